//! `ndarray` arrays in and out (the `ndarray` cargo feature).
//!
//! Every [`ndarray::ArrayBase`] whose elements are a host element type (`bool`, integers,
//! `bf16`, `f16`, `f32`, `f64`) is [`ArrayLike`], owned or borrowed, in any memory order:
//! standard (C) layout is copied as one slice, any other layout (Fortran order, transposed
//! or sliced views, negative steps) is read element by element in logical order. The
//! dtypes follow the rules of the other host sequences (8- to 32-bit types keep their
//! dtype, 64-bit data is canonicalised to 32 bits, as JAX does). [`Array::to_ndarray`] reads an array back as an [`ndarray::ArrayD`].

use ndarray::{ArrayBase, ArrayD, Data, Dimension, IxDyn};

use crate::array::Array;
use crate::convert::{ArrayLike, HostData, HostElement, Operand};
use crate::dtype::Element;
use crate::error::{Error, Result};

fn host_operand<S, D>(a: &ArrayBase<S, D>) -> Result<Operand>
where
    S: Data,
    S::Elem: HostElement,
    D: Dimension,
{
    let values = match a.as_slice() {
        Some(s) => s.to_vec(),
        None => a.iter().copied().collect(),
    };
    Ok(Operand::Host(HostData {
        shape: a.shape().to_vec(),
        values: S::Elem::collect(values)?,
    }))
}

/// An `ndarray` array, read in logical order whatever its strides.
impl<S, D> ArrayLike for ArrayBase<S, D>
where
    S: Data,
    S::Elem: HostElement,
    D: Dimension,
{
    fn into_operand(self) -> Result<Operand> {
        host_operand(&self)
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        Some(self.shape().to_vec())
    }
}

/// A borrowed `ndarray` array (views included), read in logical order whatever its strides.
impl<S, D> ArrayLike for &ArrayBase<S, D>
where
    S: Data,
    S::Elem: HostElement,
    D: Dimension,
{
    fn into_operand(self) -> Result<Operand> {
        host_operand(self)
    }

    fn declared_shape(&self) -> Option<Vec<usize>> {
        Some(self.shape().to_vec())
    }
}

impl Array {
    /// Reads the array back as an [`ndarray::ArrayD`] in standard (C) layout, waiting for
    /// the device. `T` must be the array's element type (as for [`Array::to_vec`]).
    ///
    /// ```
    /// use olympus::numpy as np;
    /// let x = np::reshape(np::arange(6.0f32)?, &[2, 3])?;
    /// let nd = x.to_ndarray::<f32>()?;
    /// assert_eq!(nd.shape(), &[2, 3]);
    /// assert_eq!(nd[[1, 2]], 5.0);
    /// // And back: any ndarray array is array-like.
    /// let y = np::multiply(&nd.t(), 2.0)?;
    /// assert_eq!(y.shape(), &[3, 2]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn to_ndarray<T: Element>(&self) -> Result<ArrayD<T>> {
        self.check_read::<T>("to_ndarray")?;
        let values = self.to_vec::<T>()?;
        shaped("to_ndarray", self.shape(), values)
    }

    /// Like [`Array::to_ndarray`], but returns a future that waits for the device without
    /// blocking the thread.
    pub fn to_ndarray_async<T: Element>(
        &self,
    ) -> impl std::future::Future<Output = Result<ArrayD<T>>> + Send + 'static {
        let shape = self.shape().to_vec();
        let checked = self.check_read::<T>("to_ndarray_async");
        let values = self.to_vec_async::<T>();
        async move {
            checked?;
            shaped("to_ndarray_async", &shape, values.await?)
        }
    }
}

fn shaped<T>(func: &str, shape: &[usize], values: Vec<T>) -> Result<ArrayD<T>> {
    ArrayD::from_shape_vec(IxDyn(shape), values)
        .map_err(|e| Error::arg(func, format!("building an ndarray of shape {shape:?}: {e}")))
}

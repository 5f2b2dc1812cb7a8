//! Duck arrays (NEP 30): see [`DuckArray`].

use crate::array::Array;
use crate::dtype::DType;
use crate::error::Result;
use half::f16;

/// Duck arrays (NEP 30): generic code written once over [`DuckArray`] keeps its input's
/// type; [`duckarray`] returns a duck array as itself and converts anything else to an
/// [`Array`].
///
/// A *duck array* is a type that follows the array API without being an [`Array`]: a
/// unit-carrying quantity, a masked array, a lazily evaluated or distributed array. It
/// declares so by implementing [`DuckArray`]: the handful of operations generic code needs
/// (shape, dtype, expand_dims, concatenate, reshape, transpose, arithmetic, sum), each
/// returning `Self`, plus how a plain array joins it ([`DuckArray::from_array`]) and how it
/// becomes one ([`DuckArray::to_array`], which may fail where NEP 30's `__array__` raises).
/// [`Array`] is itself a duck array.
///
/// NEP 30's `stack`, written once, works on arrays and on any duck type:
///
/// ```
/// use olympus::numpy::{self as np, duckarray, DuckArray};
/// use olympus::{Array, Result};
///
/// fn stack<D: DuckArray>(arrays: &[D], axis: isize) -> Result<D> {
///     let expanded = arrays.iter().map(|a| a.expand_dims(axis)).collect::<Result<Vec<D>>>()?;
///     D::concatenate(&expanded, axis)
/// }
///
/// let a = duckarray(vec![1.0f32, 2.0])?;          // host data: converted to an Array
/// let b: Array = duckarray(np::array(&[3.0f32, 4.0])?)?; // an Array: itself
/// let s = stack(&[a, b], 0)?;
/// assert_eq!(s.shape(), &[2, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
///
/// **Mixing** a duck type with plain arrays: Rust's generic code takes one element type, so
/// a mix is expressed in the duck type, and plain arrays join it through
/// [`DuckArray::from_array`] (or [`duck_as`]). The result is the duck type, as NumPy's
/// `ndarray` defers to other array types (NEP 18). For example a mix of quantities in
/// metres and a plain array treats the plain array as dimensionless, and concatenating
/// them is a unit error.
///
/// **Types that only implement the conversion protocol**
/// ([`SupportsOlympusArray`](crate::SupportsOlympusArray)) are not duck arrays: pass them
/// through [`asarray`](crate::numpy::asarray) (`duckarray(np::asarray(&x)?)`), which is what
/// NEP 30's `duckarray` does for them. (Rust has no specialisation, so `duckarray` cannot
/// accept every protocol type and every duck type in one signature.)
pub trait DuckArray: Clone + Sized {
    /// The shape.
    fn duck_shape(&self) -> Vec<usize>;

    /// The element dtype.
    fn duck_dtype(&self) -> DType;

    /// Number of dimensions.
    fn duck_ndim(&self) -> usize {
        self.duck_shape().len()
    }

    /// A new axis of length 1 at `axis` (`numpy.expand_dims`).
    fn expand_dims(&self, axis: isize) -> Result<Self>;

    /// Joins arrays along an existing axis (`numpy.concatenate`).
    fn concatenate(arrays: &[Self], axis: isize) -> Result<Self>;

    /// The same elements in another shape (`numpy.reshape`, `-1` inferred).
    fn reshape(&self, shape: &[isize]) -> Result<Self>;

    /// Permuted axes (`numpy.transpose`; reversed when `axes` is `None`).
    fn transpose(&self, axes: Option<&[isize]>) -> Result<Self>;

    /// Elementwise sum with broadcasting (`numpy.add`).
    fn add(&self, other: &Self) -> Result<Self>;

    /// Elementwise difference with broadcasting (`numpy.subtract`).
    fn subtract(&self, other: &Self) -> Result<Self>;

    /// Elementwise product with broadcasting (`numpy.multiply`).
    fn multiply(&self, other: &Self) -> Result<Self>;

    /// Sum over axes (`numpy.sum`).
    fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Self>;

    /// How a plain array joins this type in a mix (for a quantity: dimensionless; for a
    /// masked array: nothing masked).
    fn from_array(a: Array) -> Result<Self>;

    /// The values as a plain array (NEP 30's `__array__`); an error where the conversion
    /// would lose meaning the type wants to keep.
    fn to_array(&self) -> Result<Array>;
}

impl DuckArray for Array {
    fn duck_shape(&self) -> Vec<usize> {
        self.shape().to_vec()
    }

    fn duck_dtype(&self) -> DType {
        self.dtype()
    }

    fn expand_dims(&self, axis: isize) -> Result<Self> {
        super::expand_dims(self, &[axis])
    }

    fn concatenate(arrays: &[Self], axis: isize) -> Result<Self> {
        super::concatenate(arrays.iter().collect::<Vec<_>>(), axis)
    }

    fn reshape(&self, shape: &[isize]) -> Result<Self> {
        super::reshape(self, shape)
    }

    fn transpose(&self, axes: Option<&[isize]>) -> Result<Self> {
        super::transpose(self, axes)
    }

    fn add(&self, other: &Self) -> Result<Self> {
        super::add(self, other)
    }

    fn subtract(&self, other: &Self) -> Result<Self> {
        super::subtract(self, other)
    }

    fn multiply(&self, other: &Self) -> Result<Self> {
        super::multiply(self, other)
    }

    fn sum(&self, axis: Option<&[isize]>, keepdims: bool) -> Result<Self> {
        super::sum(self, axis, keepdims)
    }

    fn from_array(a: Array) -> Result<Self> {
        Ok(a)
    }

    fn to_array(&self) -> Result<Array> {
        Ok(self.clone())
    }
}

/// What [`duckarray`] accepts: duck arrays (returned as themselves), `&Array`, and host
/// data (Rust scalars, slices, arrays, `Vec`s, nested ones), converted to an [`Array`].
pub trait IntoDuckArray {
    /// The duck array `duckarray` returns.
    type Duck: DuckArray;

    /// Converts (or passes through) the value.
    fn into_duck_array(self) -> Result<Self::Duck>;
}

impl<D: DuckArray> IntoDuckArray for D {
    type Duck = D;

    fn into_duck_array(self) -> Result<D> {
        Ok(self)
    }
}

impl IntoDuckArray for &Array {
    type Duck = Array;

    fn into_duck_array(self) -> Result<Array> {
        Ok(self.clone())
    }
}

macro_rules! host_duck {
    ($($t:ty),*) => {$(
        impl IntoDuckArray for $t {
            type Duck = Array;

            fn into_duck_array(self) -> Result<Array> {
                super::asarray(self)
            }
        }
    )*};
}

host_duck!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, bool, f16);

macro_rules! host_duck_nested {
    ($($t:ty),*) => {$(
        impl<T: crate::convert::NestedData> IntoDuckArray for $t {
            type Duck = Array;

            fn into_duck_array(self) -> Result<Array> {
                super::asarray(self)
            }
        }
    )*};
}

host_duck_nested!(Vec<T>, &Vec<T>, &[T]);

impl<T: crate::convert::NestedData, const N: usize> IntoDuckArray for [T; N] {
    type Duck = Array;

    fn into_duck_array(self) -> Result<Array> {
        super::asarray(self)
    }
}

impl<T: crate::convert::NestedData, const N: usize> IntoDuckArray for &[T; N] {
    type Duck = Array;

    fn into_duck_array(self) -> Result<Array> {
        super::asarray(self)
    }
}

/// NEP 30's `np.duckarray`: `x` itself when its type is a [`DuckArray`] (no copy, no
/// conversion), otherwise `x` converted to an [`Array`] as [`asarray`](super::asarray)
/// would. See [`DuckArray`] for mixes and protocol-only types.
///
/// ```
/// use olympus::numpy::{self as np, duckarray};
/// let x = np::array(&[1.0f32, 2.0])?;
/// let same = duckarray(x.clone())?;                 // an Array is a duck array: itself
/// assert_eq!(same.to_vec::<f32>()?, x.to_vec::<f32>()?);
/// let converted = duckarray(&[[1i32, 2], [3, 4]])?; // host data: an Array
/// assert_eq!(converted.shape(), &[2, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn duckarray<X: IntoDuckArray>(x: X) -> Result<X::Duck> {
    x.into_duck_array()
}

/// `x` as the duck type `D`: a `D` itself, or anything [`duckarray`] turns into an
/// [`Array`], joined to `D` with [`DuckArray::from_array`]. The way to put plain arrays and
/// a duck type in one generic call.
///
/// ```
/// use olympus::numpy::{self as np, duck_as, DuckArray};
/// use olympus::Array;
/// // With D = Array this is duckarray; a user type D lifts plain arrays into itself.
/// let a: Array = duck_as(vec![1.0f32, 2.0])?;
/// assert_eq!(a.duck_shape(), vec![2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn duck_as<D: DuckArray + 'static, X: IntoDuckArray>(x: X) -> Result<D>
where
    X::Duck: 'static,
{
    let mut slot = Some(x.into_duck_array()?);
    // A `D` passes through; any other duck array joins `D` as a plain array.
    if let Some(same) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<D>>() {
        if let Some(d) = same.take() {
            return Ok(d);
        }
    }
    match slot {
        Some(other) => D::from_array(other.to_array()?),
        None => Err(crate::Error::arg("duck_as", "the value was already taken")),
    }
}

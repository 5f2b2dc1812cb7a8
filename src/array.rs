//! `Array`: the handle users hold. Cheap to clone (the buffer is shared), `Send` and `Sync`.

use std::cell::RefCell;
use std::sync::Arc;

use crate::dtype::{DType, Element};
use crate::error::{fmt_shape, Error, Result};
use crate::runtime::{Device, Storage};
pub use crate::shape::Aval;
use crate::shape::Layout;

pub(crate) struct ArrayImpl {
    aval: Aval,
    device: Device,
    /// The buffer; `None` for a traced array, which has no values yet.
    storage: Option<Arc<Storage>>,
    layout: Layout,
    tracer: Option<Tracer>,
}

/// What a traced array stands for: variable `var` of the graph being traced by trace
/// `trace` (of the function `name`).
#[derive(Clone, Debug)]
pub(crate) struct Tracer {
    pub(crate) trace: u64,
    pub(crate) var: usize,
    pub(crate) name: Arc<str>,
}

/// An n-dimensional array on a device.
///
/// Operations on arrays encode GPU work and return at once; reading data back
/// ([`to_vec`](Array::to_vec), [`item`](Array::item), printing) waits for it.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1.0f32, 2.0], [3.0, 4.0]])?;
/// let y = np::add(&x, 1.0)?;
/// assert_eq!(y.shape(), &[2, 2]);
/// assert_eq!(y.to_vec::<f32>()?, vec![2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
#[derive(Clone)]
pub struct Array(Arc<ArrayImpl>);

thread_local! {
    static DEVICE_STACK: RefCell<Vec<Device>> = const { RefCell::new(Vec::new()) };
}

/// The device new arrays are created on in this thread: the innermost
/// [`with_device`] scope's, else [`Device::default_device`].
pub fn current_device() -> Result<Device> {
    if let Some(d) = DEVICE_STACK.with(|s| s.borrow().last().cloned()) {
        return Ok(d);
    }
    Device::default_device()
}

/// Runs `f` with `device` as the device new arrays are created on in this thread
/// (`jax.default_device` as a scope).
///
/// ```
/// use olympus::{numpy as np, with_device, Device, DeviceOptions};
/// let dev = Device::new(DeviceOptions::default())?;
/// let x = with_device(&dev, || np::zeros(&[3], olympus::DType::Float32))?;
/// assert_eq!(x.device(), &dev);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn with_device<R>(device: &Device, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            DEVICE_STACK.with(|s| s.borrow_mut().pop());
        }
    }
    DEVICE_STACK.with(|s| s.borrow_mut().push(device.clone()));
    let _pop = Pop;
    f()
}

impl Array {
    pub(crate) fn from_storage(
        device: Device,
        storage: Arc<Storage>,
        layout: Layout,
        aval: Aval,
    ) -> Array {
        Array(Arc::new(ArrayImpl {
            aval,
            device,
            storage: Some(storage),
            layout,
            tracer: None,
        }))
    }

    /// A traced array: a variable of a graph being traced, without values.
    pub(crate) fn traced(device: Device, aval: Aval, tracer: Tracer) -> Array {
        let layout = Layout::contiguous(&aval.shape);
        Array(Arc::new(ArrayImpl {
            aval,
            device,
            storage: None,
            layout,
            tracer: Some(tracer),
        }))
    }

    /// Identity of this handle (the same for its clones), for deduplicating captures.
    pub(crate) fn handle_id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The variable this array stands for while a function is traced; `None` for arrays
    /// with values.
    pub(crate) fn tracer(&self) -> Option<&Tracer> {
        self.0.tracer.as_ref()
    }

    /// Whether the array is a traced value inside a function being traced by
    /// [`jit`](crate::jit::jit), [`vmap`](crate::vmap) or [`grad`](crate::grad) (it has a
    /// shape and dtype; under `grad` and `jvp` its data can be read, under `jit` and
    /// `vmap` it has none yet).
    pub fn is_traced(&self) -> bool {
        self.0.tracer.is_some()
    }

    /// An error for `func` when the array is traced (its values do not exist yet). (Even
    /// where its data is known, inside `grad`, it has no buffer: readers check with
    /// `check_readable`, in `lax`, instead.)
    pub(crate) fn check_concrete(&self, func: &str) -> Result<()> {
        match &self.0.tracer {
            None => Ok(()),
            Some(t) => Err(self.unknown_values(func, t)),
        }
    }

    /// The error for reading the values of a traced array that has none.
    pub(crate) fn unknown_values(&self, func: &str, t: &Tracer) -> Error {
        Error::Tracing {
            func: func.to_string(),
            traced: t.name.to_string(),
            reason: format!(
                "the values of a traced {} {} array are not known until the compiled \
                 function runs; return the array from the function instead, or make the \
                 value a static (non-array) argument",
                fmt_shape(self.shape()),
                self.dtype()
            ),
        }
    }

    /// A view of the same buffer with another layout.
    pub(crate) fn with_layout(&self, layout: Layout, aval: Aval) -> Array {
        Array(Arc::new(ArrayImpl {
            aval,
            device: self.0.device.clone(),
            storage: self.0.storage.clone(),
            layout,
            tracer: self.0.tracer.clone(),
        }))
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.0.layout
    }

    /// The buffer, or an error when the array is traced.
    pub(crate) fn storage(&self) -> Result<&Arc<Storage>> {
        // (A traced array has no buffer, even where its data is known: see `to_vec`.)
        self.check_concrete("reading an array's buffer")?;
        self.0.storage.as_ref().ok_or_else(|| Error::Device {
            func: "reading an array's buffer".into(),
            reason: "the array has no buffer".into(),
        })
    }

    /// Shape, dtype and weak flag.
    pub fn aval(&self) -> &Aval {
        &self.0.aval
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.0.aval.shape
    }

    /// The dtype.
    pub fn dtype(&self) -> DType {
        self.0.aval.dtype
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.0.aval.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        self.0.aval.size()
    }

    /// Whether the array is weakly typed (came from a Rust scalar); see [`crate::dtype`].
    pub fn weak_type(&self) -> bool {
        self.0.aval.weak
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        &self.0.device
    }

    /// Uploads `data` as an array of `shape` on the current device.
    ///
    /// ```
    /// let x = olympus::Array::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(x.shape(), &[2, 3]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array> {
        Array::from_slice_on(&current_device()?, data, shape)
    }

    /// Uploads `data` as an array of `shape` on `device`.
    pub fn from_slice_on<T: Element>(
        device: &Device,
        data: &[T],
        shape: &[usize],
    ) -> Result<Array> {
        let n = crate::shape::checked_size("Array::from_slice", shape)?;
        if n != data.len() {
            return Err(Error::shape(
                "Array::from_slice",
                &[shape, &[data.len()]],
                format!(
                    "{} elements cannot fill shape {}",
                    data.len(),
                    fmt_shape(shape)
                ),
            ));
        }
        let encoded;
        let bytes = match T::as_storage_bytes(data) {
            Some(b) => b,
            None => {
                let mut v = device.host_vec(
                    n * T::DTYPE.storage_bytes(),
                    "Array::from_slice",
                    shape,
                    T::DTYPE,
                )?;
                T::encode(data, &mut v);
                encoded = v;
                &encoded
            }
        };
        let storage = device.upload(bytes, "Array::from_slice", shape, T::DTYPE)?;
        Ok(Array::from_storage(
            device.clone(),
            storage,
            Layout::contiguous(shape),
            Aval::new(shape.to_vec(), T::DTYPE, false),
        ))
    }

    /// A 0-d array holding `value` (strongly typed).
    pub fn scalar<T: Element>(value: T) -> Result<Array> {
        Array::from_slice(&[value], &[])
    }
}

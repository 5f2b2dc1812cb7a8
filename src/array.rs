//! `Array`: the handle users hold. Cheap to clone (the buffer is shared), `Send` and `Sync`.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::runtime::{Device, Storage};
use crate::shape::{fmt_shape, size_of, Layout};

/// The abstract value of an array: shape, dtype and weak-type flag.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aval {
    /// The shape.
    pub shape: Vec<usize>,
    /// The dtype.
    pub dtype: DType,
    /// JAX's weak-type flag: set on values that came from Rust scalars.
    pub weak: bool,
}

impl Aval {
    /// A new abstract value.
    pub fn new(shape: Vec<usize>, dtype: DType, weak: bool) -> Aval {
        Aval { shape, dtype, weak }
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        size_of(&self.shape)
    }
}

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
    /// [`jit`](crate::jit::jit) (it has a shape and dtype but no values yet).
    pub fn is_traced(&self) -> bool {
        self.0.tracer.is_some()
    }

    /// An error for `func` when the array is traced (its values do not exist yet).
    pub(crate) fn check_concrete(&self, func: &str) -> Result<()> {
        match &self.0.tracer {
            None => Ok(()),
            Some(t) => Err(Error::Tracing {
                func: func.to_string(),
                traced: t.name.to_string(),
                reason: format!(
                    "the values of a traced {} {} array are not known until the compiled \
                     function runs; return the array from the function instead, or make the \
                     value a static (non-array) argument",
                    fmt_shape(self.shape()),
                    self.dtype()
                ),
            }),
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

    /// The same array with another weak-type flag (metadata only).
    pub(crate) fn with_weak(&self, weak: bool) -> Array {
        if self.weak_type() == weak {
            return self.clone();
        }
        if self.is_traced() {
            // The flag is part of the graph variable's type: record the change.
            return crate::lax::bind(
                crate::lax::Primitive::ConvertElementType {
                    dtype: self.dtype(),
                    weak,
                },
                &[self],
                None,
            )
            .unwrap_or_else(|_| self.clone());
        }
        let mut aval = self.aval().clone();
        aval.weak = weak;
        self.with_layout(self.layout().clone(), aval)
    }

    pub(crate) fn layout(&self) -> &Layout {
        &self.0.layout
    }

    /// The buffer, or an error when the array is traced.
    pub(crate) fn storage(&self) -> Result<&Arc<Storage>> {
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

    /// The array converted to `dtype` (`x.astype(dtype)`): floats to ints truncate toward
    /// zero and saturate at the integer range, NaN gives 0 (XLA's rules, defined on every
    /// adapter); ints to bool test `!= 0`; anything to float16 rounds to nearest even.
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        crate::lax::convert_element_type(self, dtype)
    }

    /// A contiguous array with the same values (itself when already contiguous).
    pub(crate) fn contiguous(&self) -> Result<Array> {
        if self.layout().is_contiguous() && self.layout().offset == 0 {
            Ok(self.clone())
        } else {
            crate::lax::copy(self)
        }
    }

    fn check_read<T: Element>(&self, func: &str) -> Result<()> {
        if T::DTYPE != self.dtype() {
            return Err(Error::dtype(
                func,
                &[self.dtype(), T::DTYPE],
                format!(
                    "the array is {}; read it as {} or convert it with astype first",
                    self.dtype(),
                    rust_type(self.dtype())
                ),
            ));
        }
        Ok(())
    }

    /// Copies the elements back to the host in C order, waiting for pending work.
    /// `T` must be the host type of the dtype (`f32` for float32, `bool` for bool, …).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_concrete("to_vec")?;
        self.check_read::<T>("to_vec")?;
        let c = self.contiguous()?;
        let n = self.size();
        let bytes = (n * self.dtype().storage_bytes()) as u64;
        self.device()
            .read(c.storage()?, bytes, "to_vec", |data| T::decode(data, n))
    }

    /// Like [`to_vec`](Array::to_vec), as a future that does not block the thread: await it
    /// in any executor (a helper thread drives the device meanwhile).
    pub fn to_vec_async<T: Element>(
        &self,
    ) -> impl Future<Output = Result<Vec<T>>> + Send + 'static {
        let prepared = self
            .check_concrete("to_vec_async")
            .and_then(|_| self.check_read::<T>("to_vec_async"))
            .and_then(|_| self.contiguous());
        let n = self.size();
        let bytes = (n * self.dtype().storage_bytes()) as u64;
        let fut = prepared.and_then(|c| {
            Ok(self
                .device()
                .read_async(c.storage()?, bytes, "to_vec_async", move |data| {
                    T::decode(data, n)
                }))
        });
        async move { fut?.await }
    }

    /// The single element of a size-1 array.
    pub fn item<T: Element>(&self) -> Result<T> {
        if self.size() != 1 {
            return Err(Error::shape(
                "item",
                &[self.shape()],
                "item() needs an array with exactly one element",
            ));
        }
        Ok(self.to_vec::<T>()?[0])
    }

    /// Submits pending work and waits until the device has finished it.
    pub fn block_until_ready(&self) -> Result<&Array> {
        self.check_concrete("block_until_ready")?;
        self.device().0.synchronize("block_until_ready")?;
        Ok(self)
    }

    /// A copy of the array on another device (read back and uploaded).
    pub fn to_device(&self, device: &Device) -> Result<Array> {
        if device == self.device() {
            return Ok(self.clone());
        }
        self.check_concrete("to_device")?;
        let c = self.contiguous()?;
        let bytes = (self.size() * self.dtype().storage_bytes()) as u64;
        let data = self
            .device()
            .read(c.storage()?, bytes, "to_device", <[u8]>::to_vec)?;
        let storage = device.upload(&data, "to_device", self.shape(), self.dtype())?;
        Ok(Array::from_storage(
            device.clone(),
            storage,
            Layout::contiguous(self.shape()),
            self.aval().clone(),
        ))
    }

    /// Every element as f64 (exact for every dtype), for printing and tests.
    pub fn to_f64_vec(&self) -> Result<Vec<f64>> {
        Ok(match self.dtype() {
            DType::Bool => self
                .to_vec::<bool>()?
                .into_iter()
                .map(Element::to_f64)
                .collect(),
            DType::Int32 => self
                .to_vec::<i32>()?
                .into_iter()
                .map(Element::to_f64)
                .collect(),
            DType::UInt32 => self
                .to_vec::<u32>()?
                .into_iter()
                .map(Element::to_f64)
                .collect(),
            DType::Float16 => self
                .to_vec::<half::f16>()?
                .into_iter()
                .map(Element::to_f64)
                .collect(),
            DType::Float32 => self
                .to_vec::<f32>()?
                .into_iter()
                .map(Element::to_f64)
                .collect(),
        })
    }
}

fn rust_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int32 => "i32",
        DType::UInt32 => "u32",
        DType::Float16 => "half::f16",
        DType::Float32 => "f32",
    }
}

// ---- printing, after NumPy's repr ----

const SUMMARY_THRESHOLD: usize = 1000;
const EDGE: usize = 3;
const LINE_WIDTH: usize = 75;

fn format_values(values: &[f64], dtype: DType) -> Vec<String> {
    match dtype {
        DType::Bool => values
            .iter()
            .map(|&v| {
                if v != 0.0 {
                    " True".to_string()
                } else {
                    "False".to_string()
                }
            })
            .collect(),
        DType::Int32 | DType::UInt32 => values.iter().map(|v| format!("{v}")).collect(),
        DType::Float16 | DType::Float32 => {
            let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            let max = finite.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let min_nz = finite
                .iter()
                .filter(|v| **v != 0.0)
                .fold(f64::INFINITY, |m, v| m.min(v.abs()));
            let sci = max >= 1e8 || min_nz < 1e-4;
            let strs: Vec<String> = values
                .iter()
                .map(|&v| format_float(v, dtype, sci))
                .collect();
            // Align decimal points: pad fractions on the right, as NumPy does.
            let frac = |s: &String| -> usize {
                match (s.find('.'), s.find('e')) {
                    (Some(p), Some(e)) => e - p - 1,
                    (Some(p), None) => s.len() - p - 1,
                    _ => 0,
                }
            };
            let width = strs
                .iter()
                .filter(|s| s.contains('.'))
                .map(frac)
                .max()
                .unwrap_or(0);
            strs.into_iter()
                .map(|s| {
                    if !s.contains('.') {
                        return s;
                    }
                    let pad = width - frac(&s);
                    match s.find('e') {
                        Some(e) => format!("{}{}{}", &s[..e], "0".repeat(pad), &s[e..]),
                        None => format!("{s}{}", " ".repeat(pad)),
                    }
                })
                .collect()
        }
    }
}

fn shortest(v: f64, dtype: DType, sci: bool) -> String {
    let same = |s: &str| -> bool {
        let p: f64 = s.parse().unwrap_or(f64::NAN);
        match dtype {
            DType::Float16 => half::f16::from_f64(p) == half::f16::from_f64(v),
            _ => p as f32 == v as f32,
        }
    };
    for prec in 0..=9 {
        let s = if sci {
            format!("{v:.prec$e}")
        } else {
            format!("{v:.prec$}")
        };
        if same(&s) {
            return s;
        }
    }
    if sci {
        format!("{v:.8e}")
    } else {
        format!("{v:.8}")
    }
}

fn format_float(v: f64, dtype: DType, sci: bool) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = shortest(v, dtype, sci);
    if sci {
        // Rust's `1.5e-5` becomes NumPy's `1.5e-05`; a bare mantissa gets its point.
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.to_string()
        } else {
            format!("{m}.")
        };
        let (sign, digits) = match e.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', e),
        };
        format!("{m}e{sign}{digits:0>2}")
    } else if s.contains('.') {
        let t = s.trim_end_matches('0');
        t.to_string()
    } else {
        format!("{s}.")
    }
}

/// Which indices along a dimension of length `n` are printed (`None` marks the ellipsis).
fn shown(n: usize, summarize: bool) -> Vec<Option<usize>> {
    if summarize && n > 2 * EDGE {
        (0..EDGE)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

fn render(
    out: &mut String,
    strs: &[String],
    shape: &[usize],
    index: &mut Vec<usize>,
    indent: usize,
    width: usize,
    summarize: bool,
) {
    let strides = crate::shape::contiguous_strides(shape);
    let depth = index.len();
    out.push('[');
    if depth + 1 == shape.len() {
        let mut line_len = indent + 1;
        let items = shown(shape[depth], summarize);
        for (k, it) in items.iter().enumerate() {
            let s = match it {
                Some(i) => {
                    let flat: isize = index
                        .iter()
                        .chain(std::iter::once(i))
                        .zip(&strides)
                        .map(|(&a, &b)| a as isize * b)
                        .sum();
                    format!("{:>width$}", strs[flat as usize])
                }
                None => "...".to_string(),
            };
            let sep = if k + 1 < items.len() { "," } else { "" };
            if k > 0 {
                if line_len + 1 + s.len() + sep.len() > LINE_WIDTH {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent + 1));
                    line_len = indent + 1;
                } else {
                    out.push(' ');
                    line_len += 1;
                }
            }
            out.push_str(&s);
            out.push_str(sep);
            line_len += s.len() + sep.len();
        }
    } else {
        let items = shown(shape[depth], summarize);
        let blank = "\n".repeat(shape.len() - depth - 1);
        for (k, it) in items.iter().enumerate() {
            if k > 0 {
                out.push(',');
                out.push_str(&blank);
                out.push_str(&" ".repeat(indent + 1));
            }
            match it {
                Some(i) => {
                    index.push(*i);
                    render(out, strs, shape, index, indent + 1, width, summarize);
                    index.pop();
                }
                None => out.push_str("..."),
            }
        }
    }
    out.push(']');
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(t) = self.tracer() {
            return write!(
                f,
                "Traced<{}>with<jit({})>",
                crate::jit::fmt_aval(self.aval()),
                t.name
            );
        }
        let values = match self.to_f64_vec() {
            Ok(v) => v,
            Err(e) => {
                return write!(
                    f,
                    "Array(<unreadable: {e}>, shape={}, dtype={})",
                    fmt_shape(self.shape()),
                    self.dtype()
                )
            }
        };
        let strs = format_values(&values, self.dtype());
        let summarize = self.size() > SUMMARY_THRESHOLD;
        let body = if self.ndim() == 0 {
            strs[0].trim().to_string()
        } else if self.size() == 0 {
            format!("[], shape={}", fmt_shape(self.shape()))
        } else {
            let width = strs.iter().map(|s| s.len()).max().unwrap_or(0);
            let mut out = String::new();
            render(
                &mut out,
                &strs,
                self.shape(),
                &mut Vec::new(),
                "Array(".len(),
                width,
                summarize,
            );
            out
        };
        write!(f, "Array({body}, dtype={}", self.dtype())?;
        if self.weak_type() {
            write!(f, ", weak_type=True")?;
        }
        write!(f, ")")
    }
}

impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

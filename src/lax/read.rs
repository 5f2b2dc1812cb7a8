//! What reads or converts an array's values, above the primitives that may run for it:
//! `astype`, host copies (`to_vec`, `item`, `to_f64_vec`, `to_device`) and printing. A
//! strided view is first copied into a contiguous buffer, which takes a kernel.

use std::fmt;
use std::future::Future;

use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::{fmt_shape, Error, Result};
use crate::runtime::Device;
use crate::shape::{fmt_aval, Layout};

impl Array {
    /// The same array with another weak-type flag (metadata only).
    pub(crate) fn with_weak(&self, weak: bool) -> Array {
        if self.weak_type() == weak {
            return self.clone();
        }
        if self.is_traced() {
            // The flag is part of the graph variable's type: record the change.
            return crate::lax::bind(
                crate::primitive::Primitive::ConvertElementType {
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

    /// A read as `T` of an array whose dtype is not `T`'s: an error saying what to do,
    /// `to_vec::<f32> of an int32 array: read it as to_vec::<i32>, or ...`.
    pub(crate) fn check_read<T: Element>(&self, func: &str) -> Result<()> {
        if T::DTYPE != self.dtype() {
            let article = if self.dtype().name().starts_with('i') {
                "an"
            } else {
                "a"
            };
            return Err(Error::InvalidArgument {
                func: format!(
                    "{func}::<{}> of {article} {} array",
                    rust_type(T::DTYPE),
                    self.dtype()
                ),
                reason: format!(
                    "{} reads {} arrays; read it as {func}::<{}>, or convert it first with \
                     astype(DType::{:?})",
                    rust_type(T::DTYPE),
                    T::DTYPE,
                    rust_type(self.dtype()),
                    T::DTYPE
                ),
            });
        }
        Ok(())
    }

    /// An error for `func` when the array is traced and its data is not known (under `jit`
    /// or `vmap`); a traced value inside `grad` or `jvp` has known data
    /// ([`crate::trace::concrete_value`]), and an error computing it is returned.
    pub(crate) fn check_readable(&self, func: &str) -> Result<()> {
        match self.tracer() {
            None => Ok(()),
            Some(t) => match crate::trace::concrete_value(self) {
                Some(data) => data.map(|_| ()),
                None => Err(self.unknown_values(func, t)),
            },
        }
    }

    /// Copies the elements back to the host in C order, waiting for pending work.
    /// `T` must be the host type of the dtype (`f32` for float32, `bool` for bool, …).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        if let Some(data) = crate::trace::concrete_value(self) {
            return data?.to_vec();
        }
        self.check_readable("to_vec")?;
        self.check_read::<T>("to_vec")?;
        let c = self.contiguous()?;
        let n = self.size();
        let bytes = (n * self.dtype().storage_bytes()) as u64;
        // The host room first: a host out of memory is an error, not an abort.
        let mut out = self
            .device()
            .host_vec(n, "to_vec", self.shape(), self.dtype())?;
        self.device().read(c.storage()?, bytes, "to_vec", |data| {
            T::decode_into(data, n, &mut out)
        })?;
        Ok(out)
    }

    /// Like [`to_vec`](Array::to_vec), as a future that does not block the thread: await it
    /// in any executor (a helper thread drives the device meanwhile).
    pub fn to_vec_async<T: Element>(
        &self,
    ) -> impl Future<Output = Result<Vec<T>>> + Send + 'static {
        // (A traced value with known data reads that data.)
        let (this, known) = match crate::trace::concrete_value(self) {
            Some(Ok(data)) => (data, Ok(())),
            Some(Err(e)) => (self.clone(), Err(e)),
            None => (self.clone(), Ok(())),
        };
        let n = this.size();
        let prepared = known
            .and_then(|_| this.check_readable("to_vec_async"))
            .and_then(|_| this.check_read::<T>("to_vec_async"))
            .and_then(|_| this.contiguous())
            .and_then(|c| {
                let out = this
                    .device()
                    .host_vec(n, "to_vec_async", this.shape(), this.dtype())?;
                Ok((c, out))
            });
        let bytes = (n * this.dtype().storage_bytes()) as u64;
        let fut = prepared.and_then(|(c, mut out)| {
            Ok(this
                .device()
                .read_async(c.storage()?, bytes, "to_vec_async", move |data| {
                    T::decode_into(data, n, &mut out);
                    out
                }))
        });
        async move { fut?.await }
    }

    /// The single element of a size-1 array.
    pub fn item<T: Element>(&self) -> Result<T> {
        self.check_readable("item")?;
        self.check_read::<T>("item")?;
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
        if let Some(data) = crate::trace::concrete_value(self) {
            data?.block_until_ready()?;
            return Ok(self);
        }
        self.check_readable("block_until_ready")?;
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
        // The host room first, as `to_vec` reserves it.
        let mut data =
            self.device()
                .host_vec(bytes as usize, "to_device", self.shape(), self.dtype())?;
        self.device().read(c.storage()?, bytes, "to_device", |d| {
            data.extend_from_slice(d)
        })?;
        let storage = device.upload(&data, "to_device", self.shape(), self.dtype())?;
        Ok(Array::from_storage(
            device.clone(),
            storage,
            Layout::contiguous(self.shape()),
            self.aval().clone(),
        ))
    }

    /// Every element as f64 (exact for every dtype; the first word of a two-word test
    /// element), for printing and tests.
    pub fn to_f64_vec(&self) -> Result<Vec<f64>> {
        fn all<T: Element>(x: &Array) -> Result<Vec<f64>> {
            // Reserved first, as `to_vec` reserves its own: out of host memory is an error.
            let mut out = x
                .device()
                .host_vec(x.size(), "to_f64_vec", x.shape(), x.dtype())?;
            out.extend(x.to_vec::<T>()?.into_iter().map(Element::to_f64));
            Ok(out)
        }
        match self.dtype() {
            DType::Bool => all::<bool>(self),
            DType::Int8 => all::<i8>(self),
            DType::UInt8 => all::<u8>(self),
            DType::Int16 => all::<i16>(self),
            DType::UInt16 => all::<u16>(self),
            DType::Int32 => all::<i32>(self),
            DType::UInt32 => all::<u32>(self),
            DType::BFloat16 => all::<half::bf16>(self),
            DType::Float16 => all::<half::f16>(self),
            DType::Float32 => all::<f32>(self),
            #[cfg(test)]
            DType::TestPair => all::<[f32; 2]>(self),
        }
    }
}

fn rust_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "i8",
        DType::UInt8 => "u8",
        DType::Int16 => "i16",
        DType::UInt16 => "u16",
        DType::Int32 => "i32",
        DType::UInt32 => "u32",
        DType::BFloat16 => "half::bf16",
        DType::Float16 => "half::f16",
        DType::Float32 => "f32",
        #[cfg(test)]
        DType::TestPair => "[f32; 2]",
    }
}

// ---- printing, after NumPy's repr ----

/// How arrays print, after NumPy's print options (see
/// [`numpy::set_printoptions`](crate::numpy::set_printoptions)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// At most this many fractional digits (fewer where they tell the value apart).
    pub precision: usize,
    /// Arrays of more elements print summarised, with `...`.
    pub threshold: usize,
    /// Elements printed at each end of a summarised axis.
    pub edgeitems: usize,
    /// Characters per line before wrapping.
    pub linewidth: usize,
    /// Fixed-point notation always (no scientific notation for small or large values).
    pub suppress: bool,
}

impl PrintOptions {
    /// NumPy's defaults: precision 8, threshold 1000, 3 edge items, 75 columns.
    pub const DEFAULT: PrintOptions = PrintOptions {
        precision: 8,
        threshold: 1000,
        edgeitems: 3,
        linewidth: 75,
        suppress: false,
    };
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions::DEFAULT
    }
}

static PRINT_OPTIONS: std::sync::RwLock<PrintOptions> =
    std::sync::RwLock::new(PrintOptions::DEFAULT);

/// The process's print options.
pub(crate) fn print_options() -> PrintOptions {
    PRINT_OPTIONS.read().map(|o| o.clone()).unwrap_or_default()
}

/// Replaces the process's print options, returning the previous ones.
pub(crate) fn replace_print_options(o: PrintOptions) -> PrintOptions {
    match PRINT_OPTIONS.write() {
        Ok(mut g) => std::mem::replace(&mut *g, o),
        Err(p) => std::mem::replace(&mut *p.into_inner(), o),
    }
}

fn format_values(values: &[f64], dtype: DType, opts: &PrintOptions) -> Vec<String> {
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
        d if d.is_integer() => values.iter().map(|v| format!("{v}")).collect(),
        _ => {
            let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            let max = finite.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let min_nz = finite
                .iter()
                .filter(|v| **v != 0.0)
                .fold(f64::INFINITY, |m, v| m.min(v.abs()));
            // NumPy's rule: scientific from 1e8 up (suppress or not), and otherwise for
            // values below 1e-4 or spanning more than three decades.
            let sci = max >= 1e8 || (!opts.suppress && (min_nz < 1e-4 || max / min_nz > 1e3));
            let strs: Vec<String> = values
                .iter()
                .map(|&v| format_float(v, dtype, sci, opts.precision))
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

fn shortest(v: f64, dtype: DType, sci: bool, precision: usize) -> String {
    let same = |s: &str| -> bool {
        let p: f64 = s.parse().unwrap_or(f64::NAN);
        match dtype {
            DType::Float16 => half::f16::from_f64(p) == half::f16::from_f64(v),
            DType::BFloat16 => half::bf16::from_f64(p) == half::bf16::from_f64(v),
            _ => p as f32 == v as f32,
        }
    };
    for prec in 0..=precision {
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
        format!("{v:.precision$e}")
    } else {
        format!("{v:.precision$}")
    }
}

fn format_float(v: f64, dtype: DType, sci: bool, precision: usize) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = shortest(v, dtype, sci, precision);
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
fn shown(n: usize, summarize: bool, edge: usize) -> Vec<Option<usize>> {
    if summarize && n > 2 * edge {
        (0..edge)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - edge..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

/// How [`render`] lays out elements: their column width, whether and how long axes are
/// summarised, and the line width.
#[derive(Clone, Copy)]
struct Style {
    width: usize,
    summarize: bool,
    edge: usize,
    linewidth: usize,
}

fn render(
    out: &mut String,
    strs: &[String],
    shape: &[usize],
    index: &mut Vec<usize>,
    indent: usize,
    style: &Style,
) {
    let Style {
        width,
        summarize,
        edge,
        linewidth,
    } = *style;
    let strides = crate::shape::contiguous_strides(shape);
    let depth = index.len();
    out.push('[');
    if depth + 1 == shape.len() {
        let mut line_len = indent + 1;
        let items = shown(shape[depth], summarize, edge);
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
                if line_len + 1 + s.len() + sep.len() > linewidth {
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
        let items = shown(shape[depth], summarize, edge);
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
                    render(out, strs, shape, index, indent + 1, style);
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
            return write!(f, "Traced<{}>with<jit({})>", fmt_aval(self.aval()), t.name);
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
        let opts = print_options();
        let strs = format_values(&values, self.dtype(), &opts);
        let summarize = self.size() > opts.threshold;
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
                &Style {
                    width,
                    summarize,
                    edge: opts.edgeitems,
                    linewidth: opts.linewidth,
                },
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

//! Array creation: zeros, ones, full, ranges, identity matrices, conversion.

use super::overrides::overridable;
use std::ops::Range;

use crate::array::{current_device, Array};
use crate::convert::{operand, operand_device, ArrayLike, Operand};
use crate::dtype::{DType, TypeSpec};
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{CompareOp, Literal};

/// The literal a scalar operand gives in `dtype`, or `None` for array operands. As JAX's
/// `full` converts its value with NumPy's `astype`, integers wrap into integer dtypes
/// (`full(2, -1, uint32)` is `[4294967295] * 2`, `full(2, 2**31)` is `[-2147483648] * 2`)
/// and floats convert from their exact value (truncated, saturated, NaN to 0).
fn scalar_literal(op: &Operand, dtype: DType) -> Option<Literal> {
    let lit = match *op {
        Operand::WeakInt(v) => Literal::from_i64(v, dtype),
        // Rust's float-to-integer `as` truncates, saturates and maps NaN to 0, as XLA does.
        Operand::WeakFloat(v) => Literal::from_f64(v, dtype),
        Operand::Bool(b) => Literal::Bool(b).cast(dtype),
        Operand::F16(h) => Literal::F16(h).cast(dtype),
        Operand::BF16(h) => Literal::BF16(h).cast(dtype),
        _ => return None,
    };
    Some(lit)
}

fn fill(
    func: &str,
    shape: &[usize],
    value: Operand,
    dtype: Option<DType>,
    weak: bool,
) -> Result<Array> {
    let spec = value.type_spec();
    let target = TypeSpec {
        dtype: dtype.unwrap_or(spec.dtype),
        weak: dtype.is_none() && weak && spec.weak,
    };
    let device = operand_device(func, std::slice::from_ref(&value))?;
    if let Some(lit) = scalar_literal(&value, target.dtype) {
        let a = lax::full(shape, lit, Some(&device))?;
        return Ok(a.with_weak(target.weak));
    }
    let v = value.materialize(func, &device, target)?;
    let s = crate::shape::broadcast_shapes_for(func, &[v.shape(), shape])?;
    if s != shape {
        return Err(Error::shape(
            func,
            &[v.shape(), shape],
            "the fill value does not broadcast to the shape",
        ));
    }
    let dims: Vec<usize> = (shape.len() - v.ndim()..shape.len()).collect();
    lax::copy(&lax::broadcast_in_dim(&v, shape, &dims)?)
}

/// An array of `shape` filled with zeros.
///
/// ```
/// use olympus::{numpy as np, DType};
/// let z = np::zeros(&[2, 3], DType::Int32)?;
/// assert_eq!(z.to_vec::<i32>()?, vec![0; 6]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn zeros(shape: &[usize], dtype: DType) -> Result<Array> {
    lax::full(
        shape,
        Literal::F32(0.0).cast(dtype),
        Some(&current_device()?),
    )
    .map_err(|e| e.renamed("zeros"))
}

/// An array of `shape` filled with ones.
pub fn ones(shape: &[usize], dtype: DType) -> Result<Array> {
    lax::full(
        shape,
        Literal::F32(1.0).cast(dtype),
        Some(&current_device()?),
    )
    .map_err(|e| e.renamed("ones"))
}

/// An array of `shape` without meaningful contents. As in JAX, it is filled with zeros
/// (device memory is never exposed uninitialised).
pub fn empty(shape: &[usize], dtype: DType) -> Result<Array> {
    zeros(shape, dtype).map_err(|e| e.renamed("empty"))
}

/// An array of `shape` filled with `fill_value` (a scalar, or an array that broadcasts to
/// `shape`), of `dtype` or else the fill value's type (weak for a Rust scalar, as in JAX).
///
/// ```
/// use olympus::{numpy as np, DType};
/// let x = np::full(&[2, 2], 7, Some(DType::Float32))?;
/// assert_eq!(x.to_vec::<f32>()?, vec![7.0; 4]);
/// let r = np::full(&[2, 3], [1u32, 2, 3], None)?;
/// assert_eq!(r.to_vec::<u32>()?, vec![1, 2, 3, 1, 2, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn full(shape: &[usize], fill_value: impl ArrayLike, dtype: Option<DType>) -> Result<Array> {
    overridable!("full"; [one fill_value]; [shape, dtype]);
    let v = operand("full", 1, fill_value)?;
    fill("full", shape, v, dtype, true)
}

/// The shape and type of `x`: declared ones where the value declares them (arrays, user
/// types declaring both through the protocol: nothing is converted), else those of its
/// conversion (host data and scalars are not uploaded).
fn like(func: &str, x: impl ArrayLike) -> Result<(Vec<usize>, TypeSpec)> {
    if let (Some(shape), Some(t)) = (x.declared_shape(), x.declared_type()) {
        return Ok((shape, t));
    }
    let op = operand(func, 0, x)?;
    Ok((op.shape(), op.type_spec()))
}

/// The shape of `x` (NumPy's `shape`), without converting a user type that declares it.
///
/// ```
/// use olympus::numpy as np;
/// assert_eq!(np::shape(vec![vec![1, 2, 3], vec![4, 5, 6]])?, vec![2, 3]);
/// assert_eq!(np::ndim(5)?, 0);
/// assert_eq!(np::size(np::zeros(&[4, 5], np::DType::Bool)?)?, 20);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn shape(x: impl ArrayLike) -> Result<Vec<usize>> {
    overridable!("shape"; [one x]; []);
    if let Some(s) = x.declared_shape() {
        return Ok(s);
    }
    Ok(operand("shape", 0, x)?.shape())
}

/// The number of dimensions of `x`.
pub fn ndim(x: impl ArrayLike) -> Result<usize> {
    overridable!("ndim"; [one x]; []);
    Ok(shape(x)?.len())
}

/// The number of elements of `x`.
pub fn size(x: impl ArrayLike) -> Result<usize> {
    overridable!("size"; [one x]; []);
    Ok(shape(x)?.iter().product())
}

/// Zeros with the shape and dtype of `x`.
pub fn zeros_like(x: impl ArrayLike) -> Result<Array> {
    overridable!("zeros_like"; [one x]; []);
    let (shape, t) = like("zeros_like", x)?;
    fill(
        "zeros_like",
        &shape,
        Operand::WeakInt(0),
        Some(t.dtype),
        false,
    )
    .map(|a| a.with_weak(t.weak))
}

/// Ones with the shape and dtype of `x`.
pub fn ones_like(x: impl ArrayLike) -> Result<Array> {
    overridable!("ones_like"; [one x]; []);
    let (shape, t) = like("ones_like", x)?;
    fill(
        "ones_like",
        &shape,
        Operand::WeakInt(1),
        Some(t.dtype),
        false,
    )
    .map(|a| a.with_weak(t.weak))
}

/// Zeros with the shape and dtype of `x` (see [`empty`]).
pub fn empty_like(x: impl ArrayLike) -> Result<Array> {
    overridable!("empty_like"; [one x]; []);
    zeros_like(x)
}

/// `fill_value` with the shape and dtype of `x`.
pub fn full_like(x: impl ArrayLike, fill_value: impl ArrayLike) -> Result<Array> {
    overridable!("full_like"; [one x, one fill_value]; []);
    let (shape, t) = like("full_like", x)?;
    let v = operand("full_like", 1, fill_value)?;
    fill("full_like", &shape, v, Some(t.dtype), false).map(|a| a.with_weak(t.weak))
}

/// [`zeros_like`] with JAX's `dtype=` and `shape=`: zeros of `shape` (default `x`'s) in
/// `dtype` (default `x`'s; weakly typed only where `x` is and `dtype` is not given).
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let x = np::array([1i8, 2, 3])?;
/// let z = np::zeros_like_with(&x, Some(DType::Float16), Some(&[2, 2]))?;
/// assert_eq!((z.dtype(), z.shape()), (DType::Float16, &[2usize, 2][..]));
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn zeros_like_with(
    x: impl ArrayLike,
    dtype: Option<DType>,
    shape: Option<&[usize]>,
) -> Result<Array> {
    overridable!("zeros_like_with"; [one x]; [dtype, shape]);
    like_with("zeros_like_with", x, Operand::WeakInt(0), dtype, shape)
}

/// [`ones_like`] with JAX's `dtype=` and `shape=`, as [`zeros_like_with`].
pub fn ones_like_with(
    x: impl ArrayLike,
    dtype: Option<DType>,
    shape: Option<&[usize]>,
) -> Result<Array> {
    overridable!("ones_like_with"; [one x]; [dtype, shape]);
    like_with("ones_like_with", x, Operand::WeakInt(1), dtype, shape)
}

/// [`empty_like`] with JAX's `dtype=` and `shape=` (zeros, as [`zeros_like_with`]).
pub fn empty_like_with(
    x: impl ArrayLike,
    dtype: Option<DType>,
    shape: Option<&[usize]>,
) -> Result<Array> {
    overridable!("empty_like_with"; [one x]; [dtype, shape]);
    like_with("empty_like_with", x, Operand::WeakInt(0), dtype, shape)
}

/// [`full_like`] with JAX's `dtype=` and `shape=`: `fill_value` converted to `dtype`
/// (default `x`'s) in `shape` (default `x`'s), as [`zeros_like_with`].
pub fn full_like_with(
    x: impl ArrayLike,
    fill_value: impl ArrayLike,
    dtype: Option<DType>,
    shape: Option<&[usize]>,
) -> Result<Array> {
    overridable!("full_like_with"; [one x, one fill_value]; [dtype, shape]);
    let v = operand("full_like_with", 1, fill_value)?;
    like_with("full_like_with", x, v, dtype, shape)
}

/// `value` in the dtype and shape of `x`, or those given (JAX's `lax.full_like`).
fn like_with(
    func: &str,
    x: impl ArrayLike,
    value: Operand,
    dtype: Option<DType>,
    shape: Option<&[usize]>,
) -> Result<Array> {
    let (own, t) = like(func, x)?;
    let shape = shape.map_or(own, <[usize]>::to_vec);
    let weak = t.weak && dtype.is_none();
    let r = fill(func, &shape, value, Some(dtype.unwrap_or(t.dtype)), false)?;
    Ok(r.with_weak(weak))
}

/// Converts `x` to an array (`jnp.asarray`): arrays pass through unchanged, host data is
/// uploaded, Rust scalars become weakly typed 0-d arrays, and user types go through
/// [`SupportsOlympusArray`](crate::SupportsOlympusArray).
///
/// ```
/// use olympus::numpy as np;
/// let a = np::asarray(vec![1.5f64, 2.5])?;   // f64 data becomes float32, as in JAX
/// assert_eq!(a.dtype(), olympus::DType::Float32);
/// let s = np::asarray(3)?;
/// assert!(s.weak_type() && s.ndim() == 0);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn asarray(x: impl ArrayLike) -> Result<Array> {
    overridable!("asarray"; [one x]; []);
    crate::convert::to_array("asarray", operand("asarray", 0, x)?)
}

/// Converts `x` to an array (`jnp.array`); the same as [`asarray`], since arrays are
/// immutable and never need a defensive copy.
pub fn array(x: impl ArrayLike) -> Result<Array> {
    overridable!("array"; [one x]; []);
    asarray(x)
}

/// `x` converted to `dtype` (see [`Array::astype`]).
pub fn astype(x: impl ArrayLike, dtype: DType) -> Result<Array> {
    overridable!("astype"; [one x]; [dtype]);
    asarray(x)?.astype(dtype)
}

/// The number type of an [`arange`] bound: integers give int32 (uint32 for `u32`), floats
/// float32.
pub trait ArangeNum: Copy {
    #[doc(hidden)]
    fn as_f64(self) -> f64;
    #[doc(hidden)]
    const DTYPE: DType;
}

macro_rules! arange_num {
    ($($t:ty => $d:expr),*) => {$(
        impl ArangeNum for $t {
            fn as_f64(self) -> f64 { self as f64 }
            const DTYPE: DType = $d;
        }
    )*};
}
arange_num!(i32 => DType::Int32, i64 => DType::Int32, usize => DType::Int32, u32 => DType::UInt32, f32 => DType::Float32, f64 => DType::Float32);

/// What [`arange`] takes: `stop`, `start..stop`, or `(start, stop, step)`.
pub trait ArangeSpec {
    #[doc(hidden)]
    fn bounds(self) -> (f64, f64, f64, DType);
}

impl<T: ArangeNum> ArangeSpec for T {
    fn bounds(self) -> (f64, f64, f64, DType) {
        (0.0, self.as_f64(), 1.0, T::DTYPE)
    }
}
impl<T: ArangeNum> ArangeSpec for Range<T> {
    fn bounds(self) -> (f64, f64, f64, DType) {
        (self.start.as_f64(), self.end.as_f64(), 1.0, T::DTYPE)
    }
}
impl<T: ArangeNum> ArangeSpec for (T, T, T) {
    fn bounds(self) -> (f64, f64, f64, DType) {
        (self.0.as_f64(), self.1.as_f64(), self.2.as_f64(), T::DTYPE)
    }
}

/// Evenly spaced values in `[start, stop)` (`np.arange`): `arange(5)`, `arange(2..8)`,
/// `arange((0.0, 1.0, 0.25))`. Integer ranges are int32 and computed on the device;
/// float ranges are float32, computed in f64 and rounded once, as NumPy does.
///
/// ```
/// use olympus::numpy as np;
/// assert_eq!(np::arange(5)?.to_vec::<i32>()?, vec![0, 1, 2, 3, 4]);
/// assert_eq!(np::arange((10, 0, -3))?.to_vec::<i32>()?, vec![10, 7, 4, 1]);
/// assert_eq!(np::arange((0.0, 1.0, 0.25))?.to_vec::<f32>()?, vec![0.0, 0.25, 0.5, 0.75]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn arange(spec: impl ArangeSpec) -> Result<Array> {
    let (start, stop, step, dtype) = spec.bounds();
    if step == 0.0 || !step.is_finite() || !start.is_finite() || !stop.is_finite() {
        return Err(Error::arg("arange", format!("needs finite bounds and a nonzero step, got start={start}, stop={stop}, step={step}")));
    }
    let n = ((stop - start) / step).ceil().max(0.0);
    let device = current_device()?;
    // Past 2^53 the count is not even exact; no device holds that many elements anyway.
    if n >= 2f64.powi(53) {
        let bytes = n * dtype.storage_bytes() as f64;
        return Err(Error::OutOfMemory {
            func: crate::error::api_name("arange"),
            bytes: bytes as u64,
            shape: vec![usize::MAX],
            dtype,
            reason: format!("{n} elements are more than any device holds"),
        });
    }
    let n = n as usize;
    if dtype.is_floating() {
        let mut v = device.host_vec(n, "arange", &[n], dtype)?;
        v.extend((0..n).map(|i| (start + i as f64 * step) as f32));
        return Array::from_slice_on(&device, &v, &[n]);
    }
    let last = start + (n.max(1) - 1) as f64 * step;
    let (lo, hi) = if dtype == DType::UInt32 {
        (0.0, u32::MAX as f64)
    } else {
        (i32::MIN as f64, i32::MAX as f64)
    };
    if start < lo || start > hi || last < lo || last > hi {
        return Err(Error::arg(
            "arange",
            format!("values from {start} to {last} do not fit {dtype}"),
        ));
    }
    let iota = lax::iota(dtype, &[n], 0, Some(&device))?;
    let (s, st) = if dtype == DType::UInt32 {
        (Literal::U32(start as u32), Literal::U32(step as i64 as u32))
    } else {
        (Literal::I32(start as i32), Literal::I32(step as i32))
    };
    let scaled = if step == 1.0 {
        iota
    } else {
        lax::mul(&iota, &lax::full(&[n], st, Some(&device))?)?
    };
    if start == 0.0 {
        Ok(scaled)
    } else {
        lax::add(&scaled, &lax::full(&[n], s, Some(&device))?)
    }
}

/// `num` evenly spaced float32 values from `start` to `stop` (included when `endpoint`),
/// computed in f64 and rounded once, as NumPy does.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::linspace(0.0, 1.0, 5, true)?;
/// assert_eq!(x.to_vec::<f32>()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn linspace(start: f64, stop: f64, num: usize, endpoint: bool) -> Result<Array> {
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let step = if div > 0 {
        (stop - start) / div as f64
    } else {
        0.0
    };
    let device = current_device()?;
    let mut v = device.host_vec(num, "linspace", &[num], DType::Float32)?;
    // (One value is `start` as in JAX, even past an infinite step.)
    v.extend((0..num).map(|i| match num {
        1 => start as f32,
        _ => (start + i as f64 * step) as f32,
    }));
    if endpoint && num > 1 {
        v[num - 1] = stop as f32;
    }
    Array::from_slice_on(&device, &v, &[num])
}

/// [`linspace`] in `dtype`, computed as JAX computes it: `start * (1 - t) + stop * t`
/// with `t = i * (1 / div)` (XLA's form of the division), `stop` itself last when
/// `endpoint`; in float32 and floored for integer dtypes (so `linspace_with(2.0, -3.0, 6,
/// true, Int32)` is `[2, 1, 0, -2, -2, -3]`, as in JAX), each step rounded to float16 for
/// float16. float32 is [`linspace`] itself.
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let x = np::linspace_with(0.0, 10.0, 4, true, DType::Int32)?;
/// assert_eq!(x.to_vec::<i32>()?, vec![0, 3, 6, 10]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn linspace_with(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: DType,
) -> Result<Array> {
    use half::f16;
    if dtype == DType::Float32 {
        return linspace(start, stop, num, endpoint);
    }
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let device = current_device()?;
    let mut v = device.host_vec(num, "linspace", &[num], dtype)?;
    let value = |i: usize| -> f32 {
        if num == 1 {
            // JAX's one value is `start` (floored for integer dtypes), endpoint or not.
            let a = if dtype == DType::Float16 {
                f32::from(f16::from_f32(start as f32))
            } else {
                start as f32
            };
            return if dtype.is_integer() { a.floor() } else { a };
        }
        if endpoint && i == div {
            // Floored for integer dtypes like every other value (JAX: -3.5 gives -4).
            return if dtype.is_integer() {
                (stop as f32).floor()
            } else {
                stop as f32
            };
        }
        if dtype == DType::Float16 {
            // Every operation rounded to float16, as XLA computes float16 arithmetic.
            // (The bounds become float32 first, as JAX's Python floats do.)
            let (a, b) = (f16::from_f32(start as f32), f16::from_f32(stop as f32));
            let r = f16::ONE / f16::from_f64(div as f64);
            let t = f16::from_f64(i as f64) * r;
            return f32::from(a * (f16::ONE - t) + b * t);
        }
        let t = i as f32 * (1.0 / div as f32);
        let x = start as f32 * (1.0 - t) + stop as f32 * t;
        if dtype.is_integer() {
            x.floor()
        } else {
            x
        }
    };
    v.extend((0..num).map(value));
    Array::from_slice_on(&device, &v, &[num])?.astype(dtype)
}

/// [`arange`] in `dtype`, as JAX's `arange(..., dtype=)`: for an integer `dtype` the
/// length comes from the bounds as given and the values are `start + i * step` with
/// `start` and `step` converted first (`arange_with((0.5, 5.0, 1.5), Int32)` is
/// `[0, 1, 2]`, and a step of 0.7 converts to 0); other dtypes convert `spec`'s values.
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let x = np::arange_with(5, DType::Float16)?;
/// assert_eq!(x.dtype(), DType::Float16);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn arange_with(spec: impl ArangeSpec, dtype: DType) -> Result<Array> {
    let (start, stop, step, kind) = spec.bounds();
    let finite = step != 0.0 && step.is_finite() && start.is_finite() && stop.is_finite();
    if !dtype.is_integer() || kind.is_integer() || !finite {
        return arange(Bounds(start, stop, step, kind))?.astype(dtype);
    }
    // The count from the float bounds, then integer arithmetic (converting truncates).
    let n = ((stop - start) / step).ceil().max(0.0);
    // uint32 in its own type (past 2^31); every other integer dtype in int32, wrapping.
    let unsigned = dtype == DType::UInt32;
    let i = arange(Bounds(0.0, n, 1.0, DType::Int32))?;
    let i = if unsigned {
        i.astype(DType::UInt32)?
    } else {
        i
    };
    let lit = |v: f64| {
        if unsigned {
            Literal::U32(v as i64 as u32)
        } else {
            Literal::I32(v as i64 as i32)
        }
    };
    let scalar = |v: f64| lax::full(i.shape(), lit(v), Some(i.device()));
    let wide = lax::add(&lax::mul(&i, &scalar(step)?)?, &scalar(start)?)?;
    wide.astype(dtype)
}

/// Bounds already read from an [`ArangeSpec`].
struct Bounds(f64, f64, f64, DType);

impl ArangeSpec for Bounds {
    fn bounds(self) -> (f64, f64, f64, DType) {
        (self.0, self.1, self.2, self.3)
    }
}

/// An `n × m` matrix (`m` defaults to `n`) with ones on diagonal `k` (0 the main one,
/// positive above, negative below).
///
/// ```
/// use olympus::{numpy as np, DType};
/// let e = np::eye(2, Some(3), 1, DType::Int32)?;
/// assert_eq!(e.to_vec::<i32>()?, vec![0, 1, 0, 0, 0, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn eye(n: usize, m: Option<usize>, k: isize, dtype: DType) -> Result<Array> {
    let m = m.unwrap_or(n);
    let shape = [n, m];
    let device = current_device()?;
    let bytes = crate::shape::checked_size("eye", &shape)?
        .checked_mul(dtype.storage_bytes())
        .map(|b| b as u64);
    device.check_fits(bytes, "eye", &shape, dtype)?;
    // Built on the device: diagonal k holds the (row, col) with col - row == k. Both fit
    // int32 (the array fits one buffer); a k past every column gives no ones at all.
    let rows = lax::iota(DType::Int32, &shape, 0, Some(&device))?;
    let cols = lax::iota(DType::Int32, &shape, 1, Some(&device))?;
    let diff = lax::binary(lax::BinaryOp::Sub, &cols, &rows)?;
    let ones = match i32::try_from(k) {
        Ok(k) if k.unsigned_abs() as usize <= n.max(m) => lax::compare(
            CompareOp::Eq,
            &diff,
            &lax::full(&shape, Literal::I32(k), Some(&device))?,
        )?,
        _ => lax::full(&shape, Literal::Bool(false), Some(&device))?,
    };
    let out = if dtype == DType::Bool {
        ones
    } else {
        ones.astype(dtype)?
    };
    Ok(out.with_weak(false))
}

/// The `n × n` identity matrix.
pub fn identity(n: usize, dtype: DType) -> Result<Array> {
    eye(n, None, 0, dtype).map_err(|e| e.renamed("identity"))
}

/// A copy of `x` in a buffer of its own (`jnp.copy`); arrays are immutable, so this is only
/// needed to detach from a buffer shared with an application.
pub fn copy(x: impl ArrayLike) -> Result<Array> {
    overridable!("copy"; [one x]; []);
    lax::copy(&asarray(operand("copy", 0, x)?)?)
}

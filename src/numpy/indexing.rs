//! Indexing: basic slices (`s![...]`, views), gathers (`take`, `take_along_axis`),
//! boolean selection (`extract`, `compress`), `nonzero` and `argwhere`.
//!
//! Out-of-range indices follow JAX's modes ([`IndexMode`]), the same eagerly and under
//! [`jit`](crate::jit()) since a traced index cannot raise: `take` and `take_along_axis`
//! fill (NaN for floats), `.at[..]` updates drop, `.at[..].get()` clips. `IndexMode::Raise`
//! is the checked variant (an eager error, a readback of one flag). Boolean selection has
//! a data-dependent shape, so it reads the mask back.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, Operand};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::lax;
use crate::primitive::{BinaryOp, CompareOp, Literal, ReduceOp};
use crate::shape::normalize_axis;

/// One entry of a basic index: see [`s!`](crate::s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceElem {
    /// One position (negative counts from the end); the axis is removed.
    Index(isize),
    /// `start..end` stepping by `step` (non-zero; negative walks backwards, with NumPy's
    /// defaults for missing bounds).
    Range {
        /// First position (default: the start, or the end for negative steps).
        start: Option<isize>,
        /// Bound not reached (default: past the end, or before the start).
        end: Option<isize>,
        /// Step.
        step: isize,
    },
    /// A new axis of length 1.
    NewAxis,
    /// As many full ranges as needed for the remaining axes.
    Ellipsis,
}

/// Inserts an axis of length 1 in [`s!`](crate::s).
#[allow(non_upper_case_globals)]
pub const NewAxis: SliceElem = SliceElem::NewAxis;
/// Stands for the remaining axes in [`s!`](crate::s).
#[allow(non_upper_case_globals)]
pub const Ellipsis: SliceElem = SliceElem::Ellipsis;

impl SliceElem {
    /// Gives a range a step (used by `s![a..b; step]`).
    pub fn step_by(self, step: isize) -> SliceElem {
        match self {
            SliceElem::Range { start, end, .. } => SliceElem::Range { start, end, step },
            other => other,
        }
    }
}

/// An index as `isize`, saturating: an unsigned index past `isize::MAX` is past any end.
fn ix<T: TryInto<isize>>(v: T) -> isize {
    v.try_into().unwrap_or(isize::MAX)
}

macro_rules! slice_elem_from {
    ($($t:ty),*) => {$(
        impl From<$t> for SliceElem {
            fn from(i: $t) -> SliceElem {
                SliceElem::Index(ix(i))
            }
        }
        impl From<std::ops::Range<$t>> for SliceElem {
            fn from(r: std::ops::Range<$t>) -> SliceElem {
                SliceElem::Range { start: Some(ix(r.start)), end: Some(ix(r.end)), step: 1 }
            }
        }
        impl From<std::ops::RangeFrom<$t>> for SliceElem {
            fn from(r: std::ops::RangeFrom<$t>) -> SliceElem {
                SliceElem::Range { start: Some(ix(r.start)), end: None, step: 1 }
            }
        }
        impl From<std::ops::RangeTo<$t>> for SliceElem {
            fn from(r: std::ops::RangeTo<$t>) -> SliceElem {
                SliceElem::Range { start: None, end: Some(ix(r.end)), step: 1 }
            }
        }
        impl From<std::ops::RangeInclusive<$t>> for SliceElem {
            fn from(r: std::ops::RangeInclusive<$t>) -> SliceElem {
                let end = ix(*r.end());
                // `a..=-1` runs to the end.
                let end = if end == -1 { None } else { end.checked_add(1) };
                SliceElem::Range { start: Some(ix(*r.start())), end, step: 1 }
            }
        }
        impl From<std::ops::RangeToInclusive<$t>> for SliceElem {
            fn from(r: std::ops::RangeToInclusive<$t>) -> SliceElem {
                let end = ix(r.end);
                let end = if end == -1 { None } else { end.checked_add(1) };
                SliceElem::Range { start: None, end, step: 1 }
            }
        }
    )*};
}
slice_elem_from!(i32, isize, usize, i64, u32);

impl From<std::ops::RangeFull> for SliceElem {
    fn from(_: std::ops::RangeFull) -> SliceElem {
        SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        }
    }
}

/// A basic index: built by [`s!`](crate::s), applied by [`Array::slice`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceSpec(pub Vec<SliceElem>);

/// A basic index, NumPy's `x[...]` without arrays: integers (negative from the end),
/// ranges with an optional `; step` (negative steps too), `..`, [`NewAxis`] and
/// [`Ellipsis`]. Applied with [`Array::slice`], it gives a view.
///
/// ```
/// use olympus::{numpy as np, s};
/// use olympus::numpy::{Ellipsis, NewAxis};
/// let x = np::reshape(np::arange(12)?, &[3, 4])?;
/// assert_eq!(x.slice(s![1, ..])?.to_vec::<i32>()?, vec![4, 5, 6, 7]);
/// assert_eq!(x.slice(s![-1, ..;-2])?.to_vec::<i32>()?, vec![11, 9]);
/// assert_eq!(x.slice(s![Ellipsis, 1..3])?.shape(), &[3, 2]);
/// assert_eq!(x.slice(s![NewAxis, .., 0])?.shape(), &[1, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
#[macro_export]
macro_rules! s {
    (@go [$($acc:expr),*]) => {
        $crate::numpy::SliceSpec(vec![$($acc),*])
    };
    (@go [$($acc:expr),*] $e:expr ; $step:expr , $($rest:tt)*) => {
        $crate::s!(@go [$($acc,)* $crate::numpy::SliceElem::from($e).step_by($step as isize)] $($rest)*)
    };
    (@go [$($acc:expr),*] $e:expr ; $step:expr) => {
        $crate::s!(@go [$($acc,)* $crate::numpy::SliceElem::from($e).step_by($step as isize)])
    };
    (@go [$($acc:expr),*] $e:expr , $($rest:tt)*) => {
        $crate::s!(@go [$($acc,)* $crate::numpy::SliceElem::from($e)] $($rest)*)
    };
    (@go [$($acc:expr),*] $e:expr) => {
        $crate::s!(@go [$($acc,)* $crate::numpy::SliceElem::from($e)])
    };
    ($($t:tt)*) => {
        $crate::s!(@go [] $($t)*)
    };
}

impl Array {
    /// Basic indexing (see [`s!`](crate::s)): a view over the same buffer, no copy.
    /// Ranges are clipped, as in NumPy. An integer past either end of its axis is clamped
    /// into it, as JAX's `x[7]` is (NumPy raises); on an empty axis it is an error.
    ///
    /// ```
    /// use olympus::{numpy as np, s};
    /// let x = np::arange(5)?;
    /// assert_eq!(x.slice(s![7])?.item::<i32>()?, 4); // JAX clamps
    /// assert_eq!(x.slice(s![-9])?.item::<i32>()?, 0);
    /// assert_eq!(x.slice(s![3..9])?.to_vec::<i32>()?, vec![3, 4]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn slice(&self, spec: SliceSpec) -> Result<Array> {
        let full = self.expand_spec(spec.0)?;
        self.slice_expanded(&full)
    }

    /// The spec with its ellipsis expanded (or one appended) to cover every axis.
    fn expand_spec(&self, elems: Vec<SliceElem>) -> Result<Vec<SliceElem>> {
        let func = "slice";
        let consumed = elems
            .iter()
            .filter(|e| matches!(e, SliceElem::Index(_) | SliceElem::Range { .. }))
            .count();
        let ellipses = elems.iter().filter(|e| **e == SliceElem::Ellipsis).count();
        if ellipses > 1 {
            return Err(Error::arg(func, "an index can only have a single ellipsis"));
        }
        if consumed > self.ndim() {
            return Err(Error::shape(
                func,
                &[self.shape()],
                format!(
                    "too many indices: {consumed} for {} dimensions",
                    self.ndim()
                ),
            ));
        }
        // Expand the ellipsis (or append one at the end).
        let mut full = Vec::new();
        let fill = self.ndim() - consumed;
        let mut filled = false;
        for e in &elems {
            if *e == SliceElem::Ellipsis {
                full.extend(std::iter::repeat_n(SliceElem::from(..), fill));
                filled = true;
            } else {
                full.push(*e);
            }
        }
        if !filled {
            full.extend(std::iter::repeat_n(SliceElem::from(..), fill));
        }
        Ok(full)
    }

    /// Whether an integer of the expanded spec lies outside its axis.
    fn int_index_out_of_range(&self, full: &[SliceElem]) -> bool {
        let mut axis = 0;
        for e in full {
            match *e {
                SliceElem::Index(i) => {
                    let n = self.shape()[axis] as i128;
                    let j = if i < 0 { i as i128 + n } else { i as i128 };
                    if j < 0 || j >= n {
                        return true;
                    }
                    axis += 1;
                }
                SliceElem::Range { .. } => axis += 1,
                _ => {}
            }
        }
        false
    }

    /// The expanded spec with integers wrapped into their axes (`IndexMode::Wrap`).
    fn wrap_int_indices(&self, full: &[SliceElem]) -> Vec<SliceElem> {
        let mut axis = 0;
        full.iter()
            .map(|e| match *e {
                SliceElem::Index(i) => {
                    let n = self.shape()[axis] as i128;
                    axis += 1;
                    SliceElem::Index(if n == 0 {
                        i
                    } else {
                        (i as i128).rem_euclid(n) as isize
                    })
                }
                SliceElem::Range { .. } => {
                    axis += 1;
                    *e
                }
                _ => *e,
            })
            .collect()
    }

    fn slice_expanded(&self, full: &[SliceElem]) -> Result<Array> {
        let func = "slice";
        // Positive-step windows (a lax slice), reversed axes, then integer axes removed
        // and new axes inserted (a reshape of the view).
        let (mut start, mut limit, mut step, mut rev) = (vec![], vec![], vec![], vec![]);
        let mut out_shape = Vec::new();
        let mut axis = 0;
        for e in full {
            match *e {
                SliceElem::NewAxis => out_shape.push(1),
                SliceElem::Index(i) => {
                    // i128: no index or length wraps, whatever the extremes.
                    let n = self.shape()[axis] as i128;
                    if n == 0 {
                        return Err(Error::shape(
                            func,
                            &[self.shape()],
                            format!("index {i} is out of bounds for axis {axis} with size 0"),
                        ));
                    }
                    let j = if i < 0 { i as i128 + n } else { i as i128 };
                    let j = j.clamp(0, n - 1);
                    start.push(j as usize);
                    limit.push(j as usize + 1);
                    step.push(1);
                    axis += 1;
                }
                SliceElem::Range {
                    start: a,
                    end: b,
                    step: st,
                } => {
                    if st == 0 {
                        return Err(Error::arg(func, "slice step cannot be zero"));
                    }
                    let n = self.shape()[axis] as i128;
                    let (lo, count) = range_window(a, b, st as i128, n);
                    let s = (st as i128).abs();
                    if count == 0 {
                        start.push(0);
                        limit.push(0);
                    } else if st > 0 {
                        start.push(lo as usize);
                        limit.push(((lo + (count - 1) * s + 1).min(n)) as usize);
                    } else {
                        // Walk backwards from `lo`: take the forward window ending at `lo`
                        // with step |st|, then reverse it.
                        start.push((lo - (count - 1) * s) as usize);
                        limit.push(lo as usize + 1);
                        rev.push(axis);
                    }
                    step.push(s.min(usize::MAX as i128) as usize);
                    out_shape.push(count as usize);
                    axis += 1;
                }
                SliceElem::Ellipsis => unreachable!("expanded above"),
            }
        }
        let mut v = lax::slice(self, &start, &limit, Some(&step))?;
        if !rev.is_empty() {
            v = lax::rev(&v, &rev)?;
        }
        if v.shape() != out_shape.as_slice() {
            v = lax::reshape(&v, &out_shape)?;
        }
        Ok(v)
    }
}

/// NumPy's slice arithmetic: the first position and the number of elements of
/// `start..end` by `step` over an axis of `n`.
/// The first index and the number of elements of `start..end` with `step` over a length
/// `n`, as Python's `slice.indices` (clipped; in i128 so no extreme argument wraps).
fn range_window(start: Option<isize>, end: Option<isize>, step: i128, n: i128) -> (i128, i128) {
    let norm = |v: isize| if v < 0 { v as i128 + n } else { v as i128 };
    let (a, b) = if step > 0 {
        (
            start.map_or(0, |v| norm(v).clamp(0, n)),
            end.map_or(n, |v| norm(v).clamp(0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| norm(v).clamp(-1, n - 1)),
            end.map_or(-1, |v| norm(v).clamp(-1, n - 1)),
        )
    };
    let span = if step > 0 { b - a } else { a - b };
    let count = if span > 0 {
        (span + step.abs() - 1) / step.abs()
    } else {
        0
    };
    (a, count)
}

/// The order of a multi-dimensional index's dimensions in a flat index (NumPy's `order=`):
/// `C`, the last dimension varying fastest (row-major), or `F`, the first (column-major).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Row-major: the last dimension varies fastest.
    #[default]
    C,
    /// Column-major (Fortran's): the first dimension varies fastest.
    F,
}

/// How a gather or scatter treats indices outside the axis (JAX's `mode=`). Negative
/// indices count from the end first (`-1` is the last), except in `take`'s `Clip`, which
/// clamps them to 0 as JAX and NumPy do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexMode {
    /// Gathers read a fill value (NaN for floats, the dtype's minimum for int32, its maximum
    /// for uint32, `true` for bool, unless given) and scatters drop the update: JAX's
    /// `"fill"`/`"drop"`, the default of `take`, `take_along_axis` and every `.at[..]`
    /// update.
    #[default]
    Fill,
    /// Indices are clamped into `[0, n)` (JAX's `"clip"`).
    Clip,
    /// Indices wrap around, modulo `n` towards minus infinity (JAX's `"wrap"`).
    Wrap,
    /// The caller promises every index is in range; out-of-range ones are clamped by
    /// gathers and dropped by updates, as XLA does (JAX's `"promise_in_bounds"`, the
    /// default of `.at[..].get()` and of JAX's `x[idx]`).
    PromiseInBounds,
    /// An error naming the function when an index is out of range, as NumPy raises: eager
    /// only (a readback of one flag), and an `Error::Tracing` under `jit`.
    Raise,
}

/// `idx` as 32-bit indices: int8/int16 widened to int32 and uint8/uint16 to uint32 (the
/// values kept, as JAX takes any integer indices); an error for other dtypes.
fn integer_indices(func: &str, idx: &Array) -> Result<Array> {
    match idx.dtype() {
        DType::Int32 | DType::UInt32 => Ok(idx.clone()),
        d if d.is_signed_integer() => idx.astype(DType::Int32),
        d if d.is_unsigned_integer() => idx.astype(DType::UInt32),
        d => Err(Error::dtype(func, &[d], "indices must be integers")),
    }
}

/// The indices a gather or scatter of `mode` reads along an axis of `n` (`n >= 1`) as
/// int32 in range, and for `Fill` the mask of the valid ones. `normalize_clip` makes
/// `Clip` count negative indices from the end first (scatters, `take_along_axis`).
fn resolve_indices(
    func: &str,
    idx: &Array,
    n: usize,
    mode: IndexMode,
    normalize_clip: bool,
    x_shape: &[usize],
    axis: usize,
) -> Result<(Array, Option<Array>)> {
    let idx = &integer_indices(func, idx)?;
    if mode == IndexMode::Raise {
        // Checking needs the values: a traced index cannot raise (use another mode).
        idx.check_readable(func)?;
        return Ok((checked_indices(func, idx, n, x_shape, axis)?, None));
    }
    let dev = idx.device();
    let shape = idx.shape().to_vec();
    let lit = |v: i64| -> Result<Array> {
        let l = if idx.dtype() == DType::UInt32 {
            Literal::U32(v as u32)
        } else {
            Literal::I32(v as i32)
        };
        lax::full(&shape, l, Some(dev))
    };
    let (zero, len, last) = (lit(0)?, lit(n as i64)?, lit(n as i64 - 1)?);
    // Negative int32 indices from the end (uint32 ones never are).
    let normalized = if idx.dtype() == DType::Int32 {
        let neg = lax::compare(CompareOp::Lt, idx, &zero)?;
        lax::select(&neg, &lax::binary(BinaryOp::Add, idx, &len)?, idx)?
    } else {
        idx.clone()
    };
    let clamp = |i: &Array| -> Result<Array> {
        let lo = if i.dtype() == DType::Int32 {
            lax::binary(BinaryOp::Max, i, &zero)?
        } else {
            i.clone()
        };
        lax::binary(BinaryOp::Min, &lo, &last)
    };
    let (eff, valid) = match mode {
        IndexMode::Fill => {
            let low = lax::compare(CompareOp::Ge, &normalized, &zero)?;
            let high = lax::compare(CompareOp::Lt, &normalized, &len)?;
            let valid = lax::binary(BinaryOp::And, &low, &high)?;
            (clamp(&normalized)?, Some(valid))
        }
        IndexMode::Clip if !normalize_clip => (clamp(idx)?, None),
        IndexMode::Clip | IndexMode::PromiseInBounds => (clamp(&normalized)?, None),
        IndexMode::Wrap => (super::remainder(idx, &len)?, None),
        IndexMode::Raise => unreachable!("handled above"),
    };
    Ok((eff.astype(DType::Int32)?, valid))
}

/// The fill value of a gather of `dtype`: `value`, wrapped into the dtype as JAX does
/// (`-1` as uint32 is 4294967295), or NaN, a signed integer's minimum, an unsigned
/// integer's maximum, `true`.
fn fill_literal(dtype: DType, value: Option<f64>) -> Literal {
    match (value, dtype.integer_range()) {
        (Some(v), Some(_)) => Literal::from_i64(v as i64, dtype),
        (None, Some((lo, hi))) => Literal::from_i64(if lo < 0 { lo } else { hi }, dtype),
        (None, None) if dtype.is_bool() => Literal::Bool(true),
        (None, None) => Literal::from_f64(f64::NAN, dtype),
        (Some(v), None) => Literal::from_f64(v, dtype),
    }
}

/// `gathered` where `valid` (of the index shape, at dimensions `dims` of the result) holds,
/// else the fill value.
fn fill_invalid(
    gathered: &Array,
    valid: &Array,
    dims: &[usize],
    fill: Option<f64>,
) -> Result<Array> {
    let mask = lax::broadcast_in_dim(valid, gathered.shape(), dims)?;
    let f = lax::full(
        gathered.shape(),
        fill_literal(gathered.dtype(), fill),
        Some(gathered.device()),
    )?;
    lax::select(&mask, gathered, &f)
}

/// Normalises negative indices (`i < 0` means `i + n`) and checks every index against
/// `n`: an eager error naming the function when one is out of range (this reads one flag
/// back, so it waits for the device).
fn checked_indices(
    func: &str,
    idx: &Array,
    n: usize,
    x_shape: &[usize],
    axis: usize,
) -> Result<Array> {
    let idx = &integer_indices(func, idx)?;
    if idx.size() == 0 {
        return idx.astype(DType::Int32);
    }
    let dev = idx.device();
    let idx = if idx.dtype() == DType::UInt32 {
        // uint32 indices past i32::MAX are out of range for any axis we can hold.
        let big = lax::full(idx.shape(), Literal::U32(i32::MAX as u32), Some(dev))?;
        let over = lax::compare(CompareOp::Gt, idx, &big)?;
        if crate::trace::values_known()
            && lax::reduce(ReduceOp::Or, &over, &(0..idx.ndim()).collect::<Vec<_>>())?
                .item::<bool>()?
        {
            return Err(out_of_range(func, x_shape, axis, n));
        }
        idx.astype(DType::Int32)?
    } else {
        idx.clone()
    };
    let shape = idx.shape().to_vec();
    let zero = lax::full(&shape, Literal::I32(0), Some(dev))?;
    let len = lax::full(&shape, Literal::I32(n as i32), Some(dev))?;
    let neg = lax::compare(CompareOp::Lt, &idx, &zero)?;
    let wrapped = lax::select(&neg, &lax::binary(BinaryOp::Add, &idx, &len)?, &idx)?;
    let low = lax::compare(CompareOp::Lt, &wrapped, &zero)?;
    let high = lax::compare(CompareOp::Ge, &wrapped, &len)?;
    let bad = lax::binary(BinaryOp::Or, &low, &high)?;
    let all: Vec<usize> = (0..shape.len()).collect();
    // Under jit the values are unknown: indices are clamped by the gather (JAX's rule).
    if crate::trace::values_known() && lax::reduce(ReduceOp::Or, &bad, &all)?.item::<bool>()? {
        return Err(out_of_range(func, x_shape, axis, n));
    }
    Ok(wrapped)
}

/// `x` at index 0 along `axis` (the axis kept, of length 1), for a gather along an axis
/// longer than int32 indices reach (`n > 2^31 - 1`). Only a broadcast axis can be that long
/// (no buffer holds 2^31 elements), and along it every element is the same: each int32
/// index is in range (uint32 ones are checked), so the result is this slice broadcast.
fn long_axis_slice(func: &str, x: &Array, idx: &Array, axis: usize) -> Result<Array> {
    let n = x.shape()[axis];
    if crate::trace::is_tracing() || x.layout().strides[axis] != 0 {
        return Err(Error::shape(
            func,
            &[x.shape()],
            format!(
                "axis {axis} has {n} elements: int32 indices reach 2^31 - 1, so only a \
                 broadcast axis (one value repeated) can be gathered past that"
            ),
        ));
    }
    let idx = &integer_indices(func, idx)?;
    if idx.dtype() == DType::UInt32 && n <= u32::MAX as usize && idx.size() > 0 {
        let len = lax::full(idx.shape(), Literal::U32(n as u32), Some(idx.device()))?;
        let bad = lax::compare(CompareOp::Ge, idx, &len)?;
        if lax::reduce(ReduceOp::Or, &bad, &(0..idx.ndim()).collect::<Vec<_>>())?.item::<bool>()? {
            return Err(out_of_range(func, x.shape(), axis, n));
        }
    }
    let mut limit = x.shape().to_vec();
    limit[axis] = 1;
    lax::slice(x, &vec![0; x.ndim()], &limit, None)
}

fn out_of_range(func: &str, x_shape: &[usize], axis: usize, n: usize) -> Error {
    Error::shape(
        func,
        &[x_shape],
        format!("an index is out of bounds for axis {axis} with size {n}"),
    )
}

/// Elements at integer `indices` along `axis` (of the flattened array when `None`): the
/// result's shape is `x.shape[..axis] + indices.shape + x.shape[axis+1..]`. Negative
/// indices count from the end; out-of-range ones read NaN (the int32 minimum, the uint32
/// maximum, `true`), JAX's default `mode="fill"`, eagerly and under [`jit`](crate::jit())
/// alike. [`take_with`] takes the other modes and a fill value; `IndexMode::Raise` gives
/// NumPy's error instead.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]])?;
/// assert_eq!(np::take(&x, [2, 0], Some(1))?.to_vec::<f32>()?, vec![3.0, 1.0, 6.0, 4.0]);
/// assert_eq!(np::take(&x, [-1], None)?.to_vec::<f32>()?, vec![6.0]);
/// assert!(np::take(&x, [6], None)?.to_vec::<f32>()?[0].is_nan());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn take(x: impl ArrayLike, indices: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("take"; [one x, one indices]; [axis]);
    let x = super::asarray(operand("take", 0, x)?)?;
    let idx = super::asarray(operand("take", 1, indices)?)?;
    take_arrays("take", x, idx, axis, IndexMode::Fill, None)
}

/// [`take`] with JAX's `mode` and `fill_value`: `Fill` (the default; `fill_value` or the
/// dtype's default, wrapped into the dtype), `Clip` (negative indices clamp to 0, as in
/// NumPy and JAX), `Wrap` (modulo the axis), `PromiseInBounds` (clamped after counting
/// negative indices from the end) and `Raise` (an error naming the function, eager only).
///
/// ```
/// use olympus::numpy::{self as np, IndexMode};
/// let x = np::array([10, 20, 30])?;
/// let at = |m| np::take_with(&x, [-1, 3, 7], None, m, None)?.to_vec::<i32>();
/// assert_eq!(at(IndexMode::Clip)?, vec![10, 30, 30]);
/// assert_eq!(at(IndexMode::Wrap)?, vec![30, 10, 20]);
/// assert_eq!(at(IndexMode::Fill)?, vec![30, i32::MIN, i32::MIN]);
/// assert!(np::take_with(&x, [3], None, IndexMode::Raise, None).is_err());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn take_with(
    x: impl ArrayLike,
    indices: impl ArrayLike,
    axis: Option<isize>,
    mode: IndexMode,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("take_with"; [one x, one indices]; [axis, mode, fill_value]);
    let x = super::asarray(operand("take_with", 0, x)?)?;
    let idx = super::asarray(operand("take_with", 1, indices)?)?;
    take_arrays("take_with", x, idx, axis, mode, fill_value)
}

fn take_arrays(
    func: &str,
    x: Array,
    idx: Array,
    axis: Option<isize>,
    mode: IndexMode,
    fill_value: Option<f64>,
) -> Result<Array> {
    let (x, axis) = match axis {
        None => (super::ravel(&x)?, 0),
        Some(a) => {
            let ax = normalize_axis(func, a, x.ndim())?;
            (x, ax)
        }
    };
    let n = x.shape()[axis];
    let pre = &x.shape()[..axis];
    let post = &x.shape()[axis + 1..];
    let k = idx.ndim();
    let mut out_shape: Vec<usize> = pre.to_vec();
    out_shape.extend_from_slice(idx.shape());
    out_shape.extend_from_slice(post);
    if n > i32::MAX as usize {
        let x0 = long_axis_slice(func, &x, &idx, axis)?;
        let mut squeezed = x0.shape().to_vec();
        squeezed.remove(axis);
        let dims: Vec<usize> = (0..axis)
            .chain(axis + idx.ndim()..out_shape.len())
            .collect();
        return lax::broadcast_in_dim(&lax::reshape(&x0, &squeezed)?, &out_shape, &dims);
    }
    crate::shape::checked_size(func, &out_shape)?;
    if n == 0 {
        if !idx.dtype().is_integer() {
            return Err(Error::dtype(
                func,
                &[idx.dtype()],
                "indices must be integers",
            ));
        }
        if idx.size() == 0 {
            // JAX returns the (empty) array itself here, whatever the indices' shape.
            return Ok(x);
        }
        // JAX's IndexError in every mode: there is no element to fill, clip or wrap to.
        return Err(Error::shape(
            func,
            &[x.shape(), idx.shape()],
            format!("cannot do a non-empty take from an empty axis ({axis})"),
        ));
    }
    let (idx, valid) = resolve_indices(func, &idx, n, mode, false, x.shape(), axis)?;
    let gathered = gather_along(&x, &idx, axis, &out_shape)?;
    match valid {
        Some(v) => fill_invalid(
            &gathered,
            &v,
            &(axis..axis + k).collect::<Vec<_>>(),
            fill_value,
        ),
        None => Ok(gathered),
    }
}

/// `x` gathered at in-range int32 `idx` along `axis`, into `out_shape`
/// (`x.shape[..axis] + idx.shape + x.shape[axis+1..]`).
fn gather_along(x: &Array, idx: &Array, axis: usize, out_shape: &[usize]) -> Result<Array> {
    // x as (pre, n, 1.., post) broadcast to (pre, n, idx[1..].., post); idx broadcast to
    // (pre, idx.., post); then a gather along `axis`.
    let n = x.shape()[axis];
    let pre = &x.shape()[..axis];
    let post = &x.shape()[axis + 1..];
    let k = idx.ndim();
    if k == 0 {
        // A scalar index: a gather with a length-1 axis, then drop it.
        let mut shape1 = pre.to_vec();
        shape1.push(1);
        shape1.extend_from_slice(post);
        let i1 = lax::broadcast_in_dim(idx, &shape1, &[])?;
        let g = lax::gather(x, &i1, axis)?;
        return lax::reshape(&g, out_shape);
    }
    let mut xs: Vec<usize> = pre.to_vec();
    xs.push(n);
    xs.extend(std::iter::repeat_n(1, k - 1));
    xs.extend_from_slice(post);
    let xv = lax::reshape(x, &xs)?;
    let mut xb: Vec<usize> = pre.to_vec();
    xb.push(n);
    xb.extend_from_slice(&idx.shape()[1..]);
    xb.extend_from_slice(post);
    let xv = lax::broadcast_in_dim(&xv, &xb, &(0..xs.len()).collect::<Vec<_>>())?;
    let dims: Vec<usize> = (axis..axis + k).collect();
    let iv = lax::broadcast_in_dim(idx, out_shape, &dims)?;
    lax::gather(&xv, &iv, axis)
}

/// `out[..., j, ...] = x[..., indices[..., j, ...], ...]` along `axis`: `indices` has
/// `x`'s number of dimensions and broadcasts against it on the other axes (NumPy's
/// `take_along_axis`, the inverse of `argsort`). Out-of-range indices read the fill value,
/// as in JAX (see [`take`]); [`take_along_axis_with`] takes the other modes.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[10, 30, 20], [60, 40, 50]])?;
/// let i = np::array([[0, 2, 1], [1, 2, 0]])?;
/// assert_eq!(np::take_along_axis(&x, &i, 1)?.to_vec::<i32>()?, vec![10, 20, 30, 40, 50, 60]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn take_along_axis(x: impl ArrayLike, indices: impl ArrayLike, axis: isize) -> Result<Array> {
    overridable!("take_along_axis"; [one x, one indices]; [axis]);
    let x = super::asarray(operand("take_along_axis", 0, x)?)?;
    let idx = super::asarray(operand("take_along_axis", 1, indices)?)?;
    take_along_axis_arrays("take_along_axis", x, idx, axis, IndexMode::Fill, None)
}

/// [`take_along_axis`] with JAX's `mode` and `fill_value` (see [`IndexMode`]); its `Clip`
/// counts negative indices from the end first, as JAX's does.
pub fn take_along_axis_with(
    x: impl ArrayLike,
    indices: impl ArrayLike,
    axis: isize,
    mode: IndexMode,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("take_along_axis_with"; [one x, one indices]; [axis, mode, fill_value]);
    let x = super::asarray(operand("take_along_axis_with", 0, x)?)?;
    let idx = super::asarray(operand("take_along_axis_with", 1, indices)?)?;
    take_along_axis_arrays("take_along_axis_with", x, idx, axis, mode, fill_value)
}

fn take_along_axis_arrays(
    func: &str,
    x: Array,
    idx: Array,
    axis: isize,
    mode: IndexMode,
    fill_value: Option<f64>,
) -> Result<Array> {
    // JAX converts uint32 indices to int32 here (unlike `take`): 2^31 and above wrap to
    // negative indices, so u32::MAX is -1, the last element.
    let idx = if idx.dtype() == DType::UInt32 {
        idx.astype(DType::Int32)?
    } else {
        idx
    };
    if idx.ndim() != x.ndim() {
        return Err(Error::shape(
            func,
            &[x.shape(), idx.shape()],
            "indices must have the same number of dimensions as the array",
        ));
    }
    let ax = normalize_axis(func, axis, x.ndim())?;
    let n = x.shape()[ax];
    let (x, idx, n, valid) = if n > i32::MAX as usize {
        // Every index reads the same values: gather from the one slice with index 0.
        let x0 = long_axis_slice(func, &x, &idx, ax)?;
        let zeros = lax::full(idx.shape(), Literal::I32(0), Some(idx.device()))?;
        (x0, zeros, 1, None)
    } else if n == 0 {
        if idx.size() > 0 && mode != IndexMode::Fill {
            return Err(out_of_range(func, x.shape(), ax, n));
        }
        // Nothing to read: every element (if any) is the fill value.
        let mut xs = x.shape().to_vec();
        xs[ax] = idx.shape()[ax];
        let shape = crate::shape::broadcast_shapes_for(func, &[&xs, idx.shape()])?;
        return lax::full(
            &shape,
            fill_literal(x.dtype(), fill_value),
            Some(x.device()),
        );
    } else {
        let (idx, valid) = resolve_indices(func, &idx, n, mode, true, x.shape(), ax)?;
        (x, idx, n, valid)
    };
    // Broadcast the other axes against each other.
    let mut xs = x.shape().to_vec();
    let mut is = idx.shape().to_vec();
    xs[ax] = 1;
    is[ax] = 1;
    let common = crate::shape::broadcast_shapes_for(func, &[&xs, &is])?;
    let mut xt = common.clone();
    xt[ax] = n;
    let mut it = common;
    it[ax] = idx.shape()[ax];
    let all: Vec<usize> = (0..x.ndim()).collect();
    let xv = lax::broadcast_in_dim(&x, &xt, &all)?;
    let iv = lax::broadcast_in_dim(&idx, &it, &all)?;
    let gathered = lax::gather(&xv, &iv, ax)?;
    match valid {
        Some(v) => fill_invalid(&gathered, &v, &all, fill_value),
        None => Ok(gathered),
    }
}

/// Flat positions of the true (non-zero, NaN counts as true) elements, read back.
fn true_positions(x: &Array) -> Result<Vec<usize>> {
    // Read on the host: a conversion on the device would be staged inside a traced
    // function (`grad` of a function that extracts by a captured int32 condition), where
    // the captured condition's values are known. Nonzero is true, NaN included.
    let v: Vec<bool> = match x.dtype() {
        DType::Bool => x.to_vec::<bool>()?,
        _ => x.to_f64_vec()?.iter().map(|&v| v != 0.0).collect(),
    };
    Ok(v.iter()
        .enumerate()
        .filter(|(_, &t)| t)
        .map(|(i, _)| i)
        .collect())
}

/// The elements of `arr` where `condition` is true, flattened (NumPy's `extract`, and
/// `x[mask]` for a mask of `x`'s shape), as JAX's `compress` of both flattened: a shorter
/// condition selects among the first elements, a longer one may only hold false past
/// them. The mask is read back (the result's size depends on it); the selection is a
/// gather on the device. [`extract_with`]'s `size` works under `jit`.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([1.0f32, -2.0, 3.0])?;
/// let m = np::greater(&x, 0.0)?;
/// assert_eq!(np::extract(&m, &x)?.to_vec::<f32>()?, vec![1.0, 3.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn extract(condition: impl ArrayLike, arr: impl ArrayLike) -> Result<Array> {
    overridable!("extract"; [one condition, one arr]; []);
    extract_impl("extract", condition, arr, None, None)
}

/// [`extract`] with JAX's `size=` and `fill_value=`: exactly `size` elements (at most the
/// smaller of the condition's and the array's sizes), the selected ones first and then
/// `fill_value` (0 by default), with no read-back, so it works under `jit`.
pub fn extract_with(
    condition: impl ArrayLike,
    arr: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("extract_with"; [one condition, one arr]; [size, fill_value]);
    extract_impl("extract_with", condition, arr, size, fill_value)
}

fn extract_impl(
    func: &str,
    condition: impl ArrayLike,
    arr: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    let c = super::ravel(super::asarray(operand(func, 0, condition)?)?)?;
    let x = super::ravel(super::asarray(operand(func, 1, arr)?)?)?;
    compress_impl(func, c, x, 0, size, fill_value)
}

/// The slices of `a` along `axis` (the flattened array when `None`) where the 1-D
/// `condition` is true (NumPy's `compress`, as JAX's: a shorter condition selects among
/// the first slices, a longer one may only hold false past them). The condition is read
/// back; [`compress_with`]'s `size` works under `jit`.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1, 2], [3, 4], [5, 6]])?;
/// let r = np::compress([false, true, true, false], &x, Some(0))?;
/// assert_eq!(r.to_vec::<i32>()?, vec![3, 4, 5, 6]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn compress(
    condition: impl ArrayLike,
    a: impl ArrayLike,
    axis: Option<isize>,
) -> Result<Array> {
    overridable!("compress"; [one condition, one a]; [axis]);
    compress_args("compress", condition, a, axis, None, None)
}

/// [`compress`] with JAX's `size=` and `fill_value=`: exactly `size` slices (at most the
/// number the condition covers), the selected ones first in order and then slices of
/// `fill_value` (0 by default), with no read-back, so it works under `jit`.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([1.0f32, 2.0, 3.0, 4.0])?;
/// let r = np::compress_with([true, false, true, false], &x, None, Some(3), Some(-1.0))?;
/// assert_eq!(r.to_vec::<f32>()?, vec![1.0, 3.0, -1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn compress_with(
    condition: impl ArrayLike,
    a: impl ArrayLike,
    axis: Option<isize>,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("compress_with"; [one condition, one a]; [axis, size, fill_value]);
    compress_args("compress_with", condition, a, axis, size, fill_value)
}

fn compress_args(
    func: &str,
    condition: impl ArrayLike,
    a: impl ArrayLike,
    axis: Option<isize>,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    let c = super::asarray(operand(func, 0, condition)?)?;
    let x = super::asarray(operand(func, 1, a)?)?;
    let (x, ax) = match axis {
        None => (super::ravel(&x)?, 0),
        Some(a) => {
            let ax = normalize_axis(func, a, x.ndim())?;
            (x, ax)
        }
    };
    compress_impl(func, c, x, ax, size, fill_value)
}

/// JAX's `compress` of `x` along `ax` by the 1-D `c`.
fn compress_impl(
    func: &str,
    c: Array,
    x: Array,
    ax: usize,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    if c.ndim() != 1 {
        return Err(Error::shape(func, &[c.shape()], "condition must be 1-D"));
    }
    let c = c.astype(DType::Bool)?;
    let n = x.shape()[ax];
    let m = c.size().min(n);
    let (used, extra) = (c.slice(crate::s![..m])?, c.slice(crate::s![m..])?);
    let x = slice_axis(&x, ax, m)?;
    let Some(size) = size else {
        if !true_positions(&extra)?.is_empty() {
            return Err(Error::shape(
                func,
                &[used.shape(), x.shape()],
                format!("condition holds true past the {n} elements of axis {ax}"),
            ));
        }
        let pos: Vec<i32> = true_positions(&used)?.iter().map(|&p| p as i32).collect();
        let idx = Array::from_slice_on(x.device(), &pos, &[pos.len()])?;
        return take_with(
            &x,
            &idx,
            Some(ax as isize),
            IndexMode::PromiseInBounds,
            None,
        );
    };
    if size > m {
        return Err(Error::arg(
            func,
            format!(
                "size {size} is more than the {m} elements the condition covers along axis {ax}"
            ),
        ));
    }
    // JAX's: the unselected slices become `fill_value`, then a stable descending sort of
    // the condition puts the selected ones first, in order.
    let mut mshape = vec![1; x.ndim()];
    mshape[ax] = m;
    let mask = super::broadcast_to(lax::reshape(&used, &mshape)?, x.shape())?;
    let fill = lax::full(
        x.shape(),
        fill_literal(x.dtype(), Some(fill_value.unwrap_or(0.0))),
        Some(x.device()),
    )?;
    let filled = lax::select(&mask, &x, &fill)?;
    let unselected = lax::unary(crate::primitive::UnaryOp::Not, &used)?.astype(DType::Int32)?;
    let order = lax::sort(&unselected, true)?;
    let first = order.slice(crate::s![..size])?;
    take_with(
        &filled,
        &first,
        Some(ax as isize),
        IndexMode::PromiseInBounds,
        None,
    )
}

/// `x`'s first `m` elements along `ax`.
fn slice_axis(x: &Array, ax: usize, m: usize) -> Result<Array> {
    if x.shape()[ax] == m {
        return Ok(x.clone());
    }
    let mut limit = x.shape().to_vec();
    limit[ax] = m;
    lax::slice(x, &vec![0; x.ndim()], &limit, None)
}

/// Where a functional update lands: a basic index, or integer positions along the first
/// axis (see [`Array::at`]).
#[derive(Clone, Debug)]
pub enum AtIndex {
    /// A basic index (`s![...]`).
    Basic(SliceSpec),
    /// Integer positions along the first axis (negative from the end); repeated
    /// positions accumulate for `add`, `multiply`, `min` and `max`.
    Positions(Array),
    /// Integer positions given on the host.
    HostPositions(Vec<i32>),
}

impl From<SliceSpec> for AtIndex {
    fn from(s: SliceSpec) -> AtIndex {
        AtIndex::Basic(s)
    }
}

impl From<isize> for AtIndex {
    fn from(i: isize) -> AtIndex {
        AtIndex::Basic(SliceSpec(vec![SliceElem::Index(i)]))
    }
}

impl From<i32> for AtIndex {
    fn from(i: i32) -> AtIndex {
        AtIndex::Basic(SliceSpec(vec![SliceElem::Index(i as isize)]))
    }
}

impl From<Array> for AtIndex {
    fn from(a: Array) -> AtIndex {
        AtIndex::Positions(a)
    }
}

impl From<&Array> for AtIndex {
    fn from(a: &Array) -> AtIndex {
        AtIndex::Positions(a.clone())
    }
}

impl From<Vec<i32>> for AtIndex {
    fn from(v: Vec<i32>) -> AtIndex {
        AtIndex::HostPositions(v)
    }
}

impl<const N: usize> From<[i32; N]> for AtIndex {
    fn from(v: [i32; N]) -> AtIndex {
        AtIndex::from(v.to_vec())
    }
}

/// A pending functional update of an array (JAX's `x.at[idx]`): each method returns a new
/// array and leaves the original unchanged.
pub struct At<'a> {
    x: &'a Array,
    index: AtIndex,
    mode: Option<IndexMode>,
    fill_value: Option<f64>,
}

impl Array {
    /// Functional updates at `index` (JAX's `x.at[idx]`): `x.at(s![1, ..]).set(0.0)`,
    /// `x.at([0, 2, 0]).add(1.0)` (repeated positions accumulate).
    ///
    /// ```
    /// use olympus::{numpy as np, s};
    /// let x = np::zeros(&[4], np::DType::Float32)?;
    /// let y = x.at([0, 2, 0]).add(1.0)?;
    /// assert_eq!(y.to_vec::<f32>()?, vec![2.0, 0.0, 1.0, 0.0]);
    /// let z = y.at(s![1..;2]).set([5.0f32, 6.0])?;
    /// assert_eq!(z.to_vec::<f32>()?, vec![2.0, 5.0, 1.0, 6.0]);
    /// assert_eq!(x.to_vec::<f32>()?, vec![0.0; 4]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn at(&self, index: impl Into<AtIndex>) -> At<'_> {
        At {
            x: self,
            index: index.into(),
            mode: None,
            fill_value: None,
        }
    }
}

impl At<'_> {
    /// How integer positions out of range are treated (JAX's `mode=`): updates drop them
    /// by default (`Fill`, JAX's `"drop"`), `get` clamps them (`PromiseInBounds`); `Clip`
    /// clamps, `Wrap` wraps, `Raise` is NumPy's error (eager only). Negative positions
    /// count from the end first in every mode.
    ///
    /// ```
    /// use olympus::numpy::{self as np, IndexMode};
    /// let x = np::array([1.0f32, 2.0, 3.0])?;
    /// assert_eq!(x.at([0, 5]).add(10.0)?.to_vec::<f32>()?, vec![11.0, 2.0, 3.0]);
    /// let clipped = x.at([0, 5]).mode(IndexMode::Clip).add(10.0)?;
    /// assert_eq!(clipped.to_vec::<f32>()?, vec![11.0, 2.0, 13.0]);
    /// assert_eq!(x.at([-1, 9]).get()?.to_vec::<f32>()?, vec![3.0, 3.0]);
    /// let filled = x.at([-1, 9]).mode(IndexMode::Fill).fill_value(0.0).get()?;
    /// assert_eq!(filled.to_vec::<f32>()?, vec![3.0, 0.0]);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    pub fn mode(mut self, mode: IndexMode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// The value `get` reads at out-of-range positions in `IndexMode::Fill` (NaN, the int32
    /// minimum, the uint32 maximum or `true` by default), wrapped into the dtype.
    pub fn fill_value(mut self, value: f64) -> Self {
        self.fill_value = Some(value);
        self
    }

    /// The flat positions the index selects (int32, in the index's result shape), clamped
    /// into range, and where `mode` is `Fill` the mask of the positions that were in range.
    fn positions(&self, func: &str, default: IndexMode) -> Result<(Array, Option<Array>)> {
        let x = self.x;
        if x.size() > i32::MAX as usize {
            return Err(Error::shape(
                func,
                &[x.shape()],
                "updates address at most 2^31 - 1 elements",
            ));
        }
        let flat = lax::iota(DType::Int32, &[x.size()], 0, Some(x.device()))?;
        let grid = lax::reshape(&flat, x.shape())?;
        let mode = self.mode.unwrap_or(default);
        let idx = match &self.index {
            AtIndex::Basic(spec) => {
                let full = grid.expand_spec(spec.0.clone())?;
                if !grid.int_index_out_of_range(&full) {
                    return Ok((grid.slice_expanded(&full)?, None));
                }
                // An integer outside its axis puts every selected element out of range.
                return match mode {
                    IndexMode::Clip | IndexMode::PromiseInBounds => {
                        Ok((grid.slice_expanded(&full)?, None))
                    }
                    IndexMode::Wrap => {
                        Ok((grid.slice_expanded(&grid.wrap_int_indices(&full))?, None))
                    }
                    IndexMode::Raise => Err(Error::shape(
                        func,
                        &[x.shape()],
                        format!(
                            "an integer of {spec:?} is out of range for shape {}",
                            fmt_shape(x.shape())
                        ),
                    )),
                    IndexMode::Fill => {
                        let clamped = grid.slice_expanded(&full)?;
                        let invalid =
                            lax::full(clamped.shape(), Literal::Bool(false), Some(x.device()))?;
                        Ok((clamped, Some(invalid)))
                    }
                };
            }
            AtIndex::Positions(a) => a.clone(),
            AtIndex::HostPositions(v) => Array::from_slice_on(x.device(), v, &[v.len()])?,
        };
        if x.ndim() == 0 {
            return Err(Error::shape(
                func,
                &[x.shape()],
                "cannot index a 0-d array by position",
            ));
        }
        let mut out_shape = idx.shape().to_vec();
        out_shape.extend_from_slice(&x.shape()[1..]);
        let n = x.shape()[0];
        if n == 0 {
            if !idx.dtype().is_integer() {
                return Err(Error::dtype(
                    func,
                    &[idx.dtype()],
                    "indices must be integers",
                ));
            }
            if idx.size() > 0 && mode != IndexMode::Fill {
                return Err(out_of_range(func, x.shape(), 0, n));
            }
            let none = lax::full(&out_shape, Literal::I32(-1), Some(x.device()))?;
            let invalid = lax::full(idx.shape(), Literal::Bool(false), Some(x.device()))?;
            return Ok((none, Some(invalid)));
        }
        let (eff, valid) = resolve_indices(func, &idx, n, mode, true, x.shape(), 0)?;
        Ok((gather_along(&grid, &eff, 0, &out_shape)?, valid))
    }

    fn apply(
        mut self,
        func: &str,
        values: impl ArrayLike,
        mode: lax::ScatterMode,
    ) -> Result<Array> {
        // An update promised in bounds that is not is dropped, as XLA's scatter drops it.
        if self.mode == Some(IndexMode::PromiseInBounds) {
            self.mode = Some(IndexMode::Fill);
        }
        let (pos, valid) = self.positions(func, IndexMode::Fill)?;
        // Out-of-range positions are dropped: the scatter skips negative ones.
        let pos = match valid {
            Some(v) => {
                let dims: Vec<usize> = (0..v.ndim()).collect();
                let mask = lax::broadcast_in_dim(&v, pos.shape(), &dims)?;
                let none = lax::full(pos.shape(), Literal::I32(-1), Some(pos.device()))?;
                lax::select(&mask, &pos, &none)?
            }
            None => pos,
        };
        // As JAX's `_scatter_impl`: the array and the values promote together, the
        // scatter runs in that type, and the result converts back to the array's dtype
        // (so float updates into int32 add in float32 and truncate once).
        let x = self.x;
        let ops = vec![Operand::Array(x.clone()), operand(func, 0, values)?];
        let mut promoted = super::promote(func, ops, false)?;
        let v = promoted.pop().expect("two operands");
        let xp = promoted.pop().expect("two operands");
        if xp.dtype() == DType::Bool
            && matches!(mode, lax::ScatterMode::Add | lax::ScatterMode::Mul)
        {
            return Err(Error::dtype(
                func,
                &[DType::Bool],
                "is not defined for bool arrays and bool values (JAX raises TypeError)",
            ));
        }
        let v = super::broadcast_to(&v, pos.shape()).map_err(|_| {
            Error::shape(
                func,
                &[x.shape(), pos.shape(), v.shape()],
                format!(
                    "values of shape {} do not broadcast to the indexed shape {}",
                    fmt_shape(v.shape()),
                    fmt_shape(pos.shape())
                ),
            )
        })?;
        let r = lax::scatter(&xp, &pos, &v, mode)?;
        let r = if r.dtype() == x.dtype() {
            r
        } else {
            r.astype(x.dtype())?
        };
        Ok(r.with_weak(x.weak_type()))
    }

    /// The selected elements (as indexing would give them); out-of-range positions are
    /// clamped unless a [`mode`](At::mode) says otherwise (JAX's `promise_in_bounds`).
    pub fn get(self) -> Result<Array> {
        let (pos, valid) = self.positions("at.get", IndexMode::PromiseInBounds)?;
        let flat = super::ravel(self.x)?;
        let p = lax::reshape(&pos, &[pos.size()])?;
        let g = lax::reshape(&lax::gather(&flat, &p, 0)?, pos.shape())?;
        match valid {
            Some(v) => fill_invalid(&g, &v, &(0..v.ndim()).collect::<Vec<_>>(), self.fill_value),
            None => Ok(g),
        }
    }

    /// Replaces the selected elements with `values` (broadcast, converted to the array's
    /// dtype).
    ///
    /// Every update promotes the array with `values`, scatters in that type and converts
    /// the result back, as JAX does: float updates into an int32 array combine in float32
    /// and truncate once.
    pub fn set(self, values: impl ArrayLike) -> Result<Array> {
        self.apply("at.set", values, lax::ScatterMode::Set)
    }

    /// Adds `values`; repeated positions accumulate. A bool array takes integer or float
    /// values (the sum converts back to bool); bool values into it are an error, as in JAX.
    #[allow(clippy::should_implement_trait)] // JAX's name; `At` is not a value to add to.
    pub fn add(self, values: impl ArrayLike) -> Result<Array> {
        self.apply("at.add", values, lax::ScatterMode::Add)
    }

    /// Multiplies by `values`; repeated positions accumulate. Bool by bool is an error, as
    /// in JAX.
    pub fn multiply(self, values: impl ArrayLike) -> Result<Array> {
        self.apply("at.multiply", values, lax::ScatterMode::Mul)
    }

    /// The minimum with `values` (NaN propagates).
    pub fn min(self, values: impl ArrayLike) -> Result<Array> {
        self.apply("at.min", values, lax::ScatterMode::Min)
    }

    /// The maximum with `values` (NaN propagates).
    pub fn max(self, values: impl ArrayLike) -> Result<Array> {
        self.apply("at.max", values, lax::ScatterMode::Max)
    }
}

super::overrides::debug_param!(IndexMode, Order);

//! Differences, integrals, weighted means, covariances, quantiles, the remaining
//! nan-reductions, sorted search and histograms, as JAX computes them.
//!
//! Everything here is built from the existing primitives: quantiles sort once and gather
//! the two neighbours of each quantile's position; `searchsorted` is JAX's parallel binary
//! search (one gather and compare per halving, `log2(n + 1)` steps over the queries);
//! `bincount` and `histogram` are scatter-adds.

use super::overrides::overridable;
use super::reductions::nan_as;
use super::ReduceOptions;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::ScatterMode;
use crate::shape::{normalize_axes, normalize_axis};

/// `r`, with a tracing error (values needed while tracing) reworded for `func` by `hint`:
/// what to pass so the output's shape no longer depends on the data.
pub(super) fn concrete<T>(func: &str, r: Result<T>, hint: &str) -> Result<T> {
    r.map_err(|e| match e {
        Error::Tracing { traced, .. } => Error::Tracing {
            // The function the caller called, not the helper that needed the values.
            func: crate::error::api_name(func),
            traced,
            reason: hint.to_string(),
        },
        e => e,
    })
}

/// `x[start..end]` along `axis` (a view).
pub(super) fn slice_axis(x: &Array, axis: usize, start: usize, end: usize) -> Result<Array> {
    lax::slice_in_dim(x, start, end, 1, axis)
}

/// `x` promoted to an inexact dtype (integers and bool to float32), as JAX's
/// `promote_dtypes_inexact`.
pub(super) fn inexact(x: Array) -> Result<Array> {
    if x.dtype().is_floating() {
        Ok(x)
    } else {
        x.astype(DType::Float32)
    }
}

/// The `n`-th discrete difference along `axis` (`a[1:] - a[:-1]`, repeated `n` times;
/// `not_equal` for bool, as in JAX), after joining `prepend` and `append` along the axis
/// (0-d ones are broadcast to one slice).
///
/// ```
/// use olympus::numpy as np;
/// let d = np::diff([1, 4, 9, 16], 1, -1, None, None)?;
/// assert_eq!(d.to_vec::<i32>()?, vec![3, 5, 7]);
/// assert_eq!(np::diff([1, 4, 9, 16], 2, -1, None, None)?.to_vec::<i32>()?, vec![2, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn diff(
    a: impl ArrayLike,
    n: usize,
    axis: isize,
    prepend: Option<&Array>,
    append: Option<&Array>,
) -> Result<Array> {
    overridable!("diff"; [one a]; [n, axis]);
    let func = "diff";
    let mut a = super::asarray(operand(func, 0, a)?)?;
    if a.ndim() == 0 {
        return Err(Error::shape(
            func,
            &[a.shape()],
            "needs an array of at least one dimension",
        ));
    }
    let ax = normalize_axis(func, axis, a.ndim())?;
    if n == 0 {
        return Ok(a);
    }
    if prepend.is_some() || append.is_some() {
        let edge = |e: &Array| -> Result<Array> {
            if e.ndim() == 0 {
                let mut s = a.shape().to_vec();
                s[ax] = 1;
                super::broadcast_to(e, &s)
            } else {
                Ok(e.clone())
            }
        };
        let mut parts = Vec::new();
        if let Some(p) = prepend {
            parts.push(edge(p)?);
        }
        parts.push(a.clone());
        if let Some(p) = append {
            parts.push(edge(p)?);
        }
        a = super::concatenate(parts, ax as isize)
            .map_err(|e| Error::arg(func, format!("prepend/append: {e}")))?;
    }
    for _ in 0..n {
        let len = a.shape()[ax];
        if len == 0 {
            break;
        }
        let hi = slice_axis(&a, ax, 1, len)?;
        let lo = slice_axis(&a, ax, 0, len - 1)?;
        a = if a.dtype() == DType::Bool {
            super::not_equal(&hi, &lo)?
        } else {
            super::subtract(&hi, &lo)?
        };
    }
    Ok(a)
}

/// The differences of the flattened array, with `to_begin` and `to_end` (flattened and
/// converted to the array's dtype) joined before and after.
pub fn ediff1d(
    ary: impl ArrayLike,
    to_end: Option<&Array>,
    to_begin: Option<&Array>,
) -> Result<Array> {
    overridable!("ediff1d"; [one ary]; []);
    let func = "ediff1d";
    let a = super::ravel(super::asarray(operand(func, 0, ary)?)?)?;
    let n = a.size();
    let d = if n == 0 {
        a.clone()
    } else {
        super::subtract(slice_axis(&a, 0, 1, n)?, slice_axis(&a, 0, 0, n - 1)?)?
    };
    let mut parts = Vec::new();
    if let Some(b) = to_begin {
        parts.push(super::ravel(b)?.astype(d.dtype())?);
    }
    parts.push(d.clone());
    if let Some(e) = to_end {
        parts.push(super::ravel(e)?.astype(d.dtype())?);
    }
    if parts.len() == 1 {
        return Ok(d);
    }
    super::concatenate(parts, 0)
}

/// The trapezoidal rule along `axis`: samples `y` at positions `x` (1-d along the axis, or
/// of `y`'s shape), or spaced `dx` apart when `x` is `None`.
///
/// ```
/// use olympus::numpy as np;
/// let area = np::trapezoid([1.0f32, 2.0, 3.0], None, 1.0, -1)?;
/// assert_eq!(area.item::<f32>()?, 4.0);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn trapezoid(y: impl ArrayLike, x: Option<&Array>, dx: f64, axis: isize) -> Result<Array> {
    overridable!("trapezoid"; [one y]; [dx, axis]);
    let func = "trapezoid";
    let y = super::asarray(operand(func, 0, y)?)?;
    if y.ndim() == 0 {
        return Err(Error::shape(func, &[y.shape()], "needs at least one axis"));
    }
    let ax = normalize_axis(func, axis, y.ndim())?;
    let (y, dxa) = match x {
        None => (inexact(y)?, None),
        Some(x) => {
            let v = super::promote(
                func,
                vec![operand(func, 0, &y)?, operand(func, 1, x)?],
                true,
            )?;
            let (y, x) = (v[0].clone(), v[1].clone());
            let d = if x.ndim() == 1 {
                if x.size() != y.shape()[ax] {
                    return Err(Error::shape(
                        func,
                        &[y.shape(), x.shape()],
                        format!("x must have y's length {} along axis {ax}", y.shape()[ax]),
                    ));
                }
                diff(&x, 1, 0, None, None)?
            } else {
                super::moveaxis(diff(&x, 1, ax as isize, None, None)?, &[ax as isize], &[-1])?
            };
            (y, Some(d))
        }
    };
    let y = super::moveaxis(&y, &[ax as isize], &[-1])?;
    let last = y.ndim() - 1;
    let n = y.shape()[last];
    let pairs = if n == 0 {
        slice_axis(&y, last, 0, 0)?
    } else {
        super::add(slice_axis(&y, last, 1, n)?, slice_axis(&y, last, 0, n - 1)?)?
    };
    let weighted = match dxa {
        None => super::multiply(pairs, dx)?,
        Some(d) => super::multiply(d, pairs)?,
    };
    super::multiply(super::sum(weighted, Some(&[-1]), false)?, 0.5)
}

/// How [`quantile`] picks a value between the two order statistics around a quantile's
/// position `q * (n - 1)` (JAX's `method=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum QuantileMethod {
    /// Interpolates linearly between them.
    #[default]
    Linear,
    /// The lower one.
    Lower,
    /// The higher one.
    Higher,
    /// Their mean.
    Midpoint,
    /// The lower one where the position's fraction is at most one half, else the higher.
    Nearest,
    /// The smallest value whose cumulative count reaches `q * n`.
    InvertedCdf,
}

impl crate::convert::IntoParam for QuantileMethod {
    fn to_param(&self) -> crate::convert::Param {
        crate::convert::Param::Other(format!("{self:?}"))
    }
}

/// The `q`-th quantiles (`q` in `[0, 1]`, 0-d or 1-d, floating) over `axis` (all axes by
/// default). The result has `q`'s shape followed by the reduced shape. A NaN in a slice
/// makes its quantiles NaN.
///
/// ```
/// use olympus::numpy::{self as np, QuantileMethod};
/// let x = np::array([4.0f32, 1.0, 3.0, 2.0])?;
/// let q = np::quantile(&x, [0.0f32, 0.5, 1.0], None, QuantileMethod::Linear, false)?;
/// assert_eq!(q.to_vec::<f32>()?, vec![1.0, 2.5, 4.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn quantile(
    a: impl ArrayLike,
    q: impl ArrayLike,
    axis: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    overridable!("quantile"; [one a, one q]; [axis, method, keepdims]);
    let func = "quantile";
    let a = super::asarray(operand(func, 0, a)?)?;
    let q = super::asarray(operand(func, 1, q)?)?;
    quantile_impl(func, a, q, axis, method, keepdims, false)
}

/// [`quantile`] with `q` in percent (`q / 100`).
pub fn percentile(
    a: impl ArrayLike,
    q: impl ArrayLike,
    axis: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    overridable!("percentile"; [one a, one q]; [axis, method, keepdims]);
    let func = "percentile";
    let a = super::asarray(operand(func, 0, a)?)?;
    let q = super::true_divide(operand(func, 1, q)?, 100.0)?;
    quantile_impl(func, a, q, axis, method, keepdims, false)
}

/// [`quantile`] ignoring NaN (NaN where a slice has no other value).
pub fn nanquantile(
    a: impl ArrayLike,
    q: impl ArrayLike,
    axis: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    overridable!("nanquantile"; [one a, one q]; [axis, method, keepdims]);
    let func = "nanquantile";
    let a = super::asarray(operand(func, 0, a)?)?;
    let q = super::asarray(operand(func, 1, q)?)?;
    quantile_impl(func, a, q, axis, method, keepdims, true)
}

/// [`percentile`] ignoring NaN.
pub fn nanpercentile(
    a: impl ArrayLike,
    q: impl ArrayLike,
    axis: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
) -> Result<Array> {
    overridable!("nanpercentile"; [one a, one q]; [axis, method, keepdims]);
    let func = "nanpercentile";
    let a = super::asarray(operand(func, 0, a)?)?;
    let q = super::true_divide(operand(func, 1, q)?, 100.0)?;
    quantile_impl(func, a, q, axis, method, keepdims, true)
}

/// The median ignoring NaN (NaN where a slice has no other value).
pub fn nanmedian(a: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("nanmedian"; [one a]; [axis, keepdims]);
    let func = "nanmedian";
    let a = super::asarray(operand(func, 0, a)?)?;
    let q = Array::scalar(0.5f32)?.with_weak(true);
    quantile_impl(func, a, q, axis, QuantileMethod::Linear, keepdims, true)
}

/// JAX's `_quantile`: sort the reduced axes (moved last and flattened), gather the order
/// statistics on either side of `q * (count - 1)`, combine them by `method`.
fn quantile_impl(
    func: &str,
    a: Array,
    q: Array,
    axis: Option<&[isize]>,
    method: QuantileMethod,
    keepdims: bool,
    skip_nan: bool,
) -> Result<Array> {
    let a = inexact(a)?;
    if !q.dtype().is_floating() {
        return Err(Error::dtype(
            func,
            &[q.dtype()],
            "q must be floating (as JAX's floor of the positions requires)",
        ));
    }
    if q.ndim() > 1 {
        return Err(Error::shape(func, &[q.shape()], "q must be 0-d or 1-d"));
    }
    let axes = match axis {
        None => (0..a.ndim()).collect(),
        Some(ax) => normalize_axes(func, ax, a.ndim())?,
    };
    let keep: Vec<usize> = (0..a.ndim()).filter(|i| !axes.contains(i)).collect();
    let lead: Vec<usize> = keep.iter().map(|&i| a.shape()[i]).collect();
    let n: usize = axes.iter().map(|&i| a.shape()[i]).product();
    let perm: Vec<usize> = keep.iter().chain(&axes).copied().collect();
    let mut flat = lead.clone();
    flat.push(n);
    let rows = lax::reshape(&lax::transpose(&a, &perm)?, &flat)?;
    let last = lead.len() as isize;
    let nq = q.size();
    // q as the trailing axis: (1, ..., 1, nq) against the rows' (lead..., n).
    let mut qshape = vec![1; lead.len()];
    qshape.push(nq);
    let qv = lax::reshape(&q, &qshape)?;
    // As JAX: NaN replaced by a constant NaN (so that its gradient is 0) before skipping
    // them; without skipping, a slice holding a NaN becomes all NaN before it is sorted
    // (its quantiles are NaN, and so are their derivatives by q).
    let nan = super::isnan(&rows)?;
    let rows = if skip_nan {
        super::r#where(&nan, f64::NAN, &rows)?
    } else {
        super::r#where(super::any(&nan, Some(&[-1]), true)?, f64::NAN, &rows)?
    };
    let (sorted, count) = if skip_nan {
        let s = super::sort(&rows, Some(-1))?;
        let c = super::sum(super::logical_not(super::isnan(&s)?)?, Some(&[-1]), true)?;
        (s, c.astype(q.dtype())?)
    } else {
        let s = super::sort(&rows, Some(-1))?;
        let c = super::full(&qshape[..0], n as f64, Some(q.dtype()))?;
        (s, c)
    };
    let out = if n == 0 {
        super::full(&[&lead[..], &[nq]].concat(), f64::NAN, Some(a.dtype()))?
    } else if method == QuantileMethod::InvertedCdf {
        let target = super::multiply(&qv, &count)?;
        let cum = super::arange(1..n as i32 + 1)?.astype(q.dtype())?;
        // The count of cumulative counts below each target, clamped into the valid rows.
        let below = super::less(
            lax::reshape(&cum, &[&vec![1; lead.len()][..], &[1, n]].concat())?,
            super::expand_dims(&target, &[-1])?,
        )?;
        let idx = super::sum(below.astype(DType::Int32)?, Some(&[-1]), false)?;
        let top = super::maximum(super::subtract(count.astype(DType::Int32)?, 1)?, 0)?;
        let idx = super::clip(idx, 0, top)?;
        let mut r = super::take_along_axis(&sorted, &idx, last)?;
        if skip_nan {
            r = super::r#where(super::equal(&count, 0.0)?, f64::NAN, &r)?;
        }
        r
    } else {
        let pos = super::multiply(&qv, super::subtract(&count, 1.0)?)?;
        let low = super::floor(&pos)?;
        let high = super::ceil(&pos)?;
        let high_w = super::subtract(&pos, &low)?;
        let low_w = super::subtract(1.0, &high_w)?;
        let top = super::subtract(&count, 1.0)?;
        let clamp = |v: &Array| -> Result<Array> {
            super::maximum(super::minimum(v, &top)?, 0.0)?.astype(DType::Int32)
        };
        let lo_v = super::take_along_axis(&sorted, clamp(&low)?, last)?;
        let hi_v = super::take_along_axis(&sorted, clamp(&high)?, last)?;
        match method {
            QuantileMethod::Linear => super::add(
                super::multiply(lo_v.astype(q.dtype())?, &low_w)?,
                super::multiply(hi_v.astype(q.dtype())?, &high_w)?,
            )?,
            QuantileMethod::Lower => lo_v,
            QuantileMethod::Higher => hi_v,
            QuantileMethod::Nearest => {
                super::r#where(super::less_equal(&high_w, 0.5)?, &lo_v, &hi_v)?
            }
            QuantileMethod::Midpoint => super::multiply(super::add(&lo_v, &hi_v)?, 0.5)?,
            QuantileMethod::InvertedCdf => unreachable!("handled above"),
        }
    };
    let out = out.astype(a.dtype())?;
    // (lead..., nq) -> (q..., lead...) with the reduced axes as ones under keepdims.
    let out = super::moveaxis(&out, &[-1], &[0])?;
    let mut shape: Vec<usize> = q.shape().to_vec();
    if keepdims {
        shape.extend((0..a.ndim()).map(|i| if axes.contains(&i) { 1 } else { a.shape()[i] }));
    } else {
        shape.extend(&lead);
    }
    lax::reshape(&out, &shape)
}

/// Variance of the non-NaN elements, normalised by their count less `ddof` (NaN where
/// that is not positive).
pub fn nanvar(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
) -> Result<Array> {
    overridable!("nanvar"; [one x]; [axis, ddof, keepdims]);
    super::reductions::nanvar_impl("nanvar", x, axis, ddof, keepdims)
}

/// [`nanvar`] with JAX's `dtype=`, `where=` and `mean=` ([`ReduceOptions`]; no
/// `initial`), as JAX's `_nanvar`: NaNs and the elements the mask leaves out take no part
/// (see [`var_with`](super::var_with)).
pub fn nanvar_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nanvar_with"; [one x]; [axis, ddof, keepdims, options]);
    super::reductions::variance("nanvar_with", x, axis, ddof, keepdims, &options, true)
}

/// [`nanstd`] with JAX's `dtype=`, `where=` and `mean=`: the square root of
/// [`nanvar_with`].
pub fn nanstd_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nanstd_with"; [one x]; [axis, ddof, keepdims, options]);
    let v = super::reductions::variance("nanstd_with", x, axis, ddof, keepdims, &options, true)?;
    super::sqrt(v)
}

/// Standard deviation of the non-NaN elements: the square root of [`nanvar`].
pub fn nanstd(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
) -> Result<Array> {
    overridable!("nanstd"; [one x]; [axis, ddof, keepdims]);
    super::sqrt(super::reductions::nanvar_impl(
        "nanstd", x, axis, ddof, keepdims,
    )?)
}

fn nan_arg(
    func: &str,
    x: impl ArrayLike,
    axis: Option<isize>,
    keepdims: bool,
    max: bool,
) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    let arg = |v: &Array| {
        if max {
            super::argmax(v, axis, keepdims)
        } else {
            super::argmin(v, axis, keepdims)
        }
    };
    if !x.dtype().is_floating() {
        return arg(&x);
    }
    let fill = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let nan = super::isnan(&x)?;
    let r = arg(&super::r#where(&nan, fill, &x)?)?;
    // All-NaN slices give -1, as JAX's do.
    let all = match axis {
        None => super::all(&nan, None, keepdims)?,
        Some(a) => super::all(&nan, Some(&[a]), keepdims)?,
    };
    super::r#where(all, -1, r)
}

/// Index of the maximum ignoring NaN (-1 where a slice is all NaN, as in JAX).
pub fn nanargmax(x: impl ArrayLike, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    overridable!("nanargmax"; [one x]; [axis, keepdims]);
    nan_arg("nanargmax", x, axis, keepdims, true)
}

/// Index of the minimum ignoring NaN (-1 where a slice is all NaN, as in JAX).
pub fn nanargmin(x: impl ArrayLike, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    overridable!("nanargmin"; [one x]; [axis, keepdims]);
    nan_arg("nanargmin", x, axis, keepdims, false)
}

/// Cumulative sum treating NaN as zero.
pub fn nancumsum(x: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("nancumsum"; [one x]; [axis]);
    let x = super::asarray(operand("nancumsum", 0, x)?)?;
    super::cumsum(nan_as(&x, 0.0)?, axis)
}

/// Cumulative product treating NaN as one.
pub fn nancumprod(x: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("nancumprod"; [one x]; [axis]);
    let x = super::asarray(operand("nancumprod", 0, x)?)?;
    super::cumprod(nan_as(&x, 1.0)?, axis)
}

/// [`nancumsum`] with JAX's `dtype=`: NaN replaced by zero first, then the running sum in
/// `dtype` as [`cumsum_with`](super::cumsum_with) computes it.
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let x = np::array([1.5f32, f32::NAN, 2.5])?;
/// let s = np::nancumsum_with(&x, None, Some(DType::Int32))?;
/// assert_eq!(s.to_vec::<i32>()?, vec![1, 1, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn nancumsum_with(
    x: impl ArrayLike,
    axis: Option<isize>,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("nancumsum_with"; [one x]; [axis, dtype]);
    let x = super::asarray(operand("nancumsum_with", 0, x)?)?;
    super::cumsum_with(nan_as(&x, 0.0)?, axis, dtype)
}

/// [`nancumprod`] with JAX's `dtype=`: NaN replaced by one first, then the running
/// product in `dtype` as [`cumprod_with`](super::cumprod_with) computes it.
pub fn nancumprod_with(
    x: impl ArrayLike,
    axis: Option<isize>,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("nancumprod_with"; [one x]; [axis, dtype]);
    let x = super::asarray(operand("nancumprod_with", 0, x)?)?;
    super::cumprod_with(nan_as(&x, 1.0)?, axis, dtype)
}

/// Which end of a run of equal values [`searchsorted`] returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first position where the value could be inserted keeping the order.
    #[default]
    Left,
    /// The last such position.
    Right,
}

impl crate::convert::IntoParam for Side {
    fn to_param(&self) -> crate::convert::Param {
        crate::convert::Param::Other(format!("{self:?}"))
    }
}

/// Where each of `v` would be inserted into the sorted 1-d `a` (`a[sorter]` when given) to
/// keep it sorted, as int32 of `v`'s shape. NaN sorts last, as in JAX's sort. `a` is not
/// checked for order (as in NumPy and JAX: an unsorted `a` gives unspecified positions);
/// a `sorter` whose values are not positions in `a` is an error eagerly (under `jit`, read
/// as JAX's `a[sorter]`).
///
/// ```
/// use olympus::numpy::{self as np, Side};
/// let a = np::array([1, 2, 2, 3])?;
/// assert_eq!(np::searchsorted(&a, [2, 5, 0], Side::Left, None)?.to_vec::<i32>()?, vec![1, 4, 0]);
/// assert_eq!(np::searchsorted(&a, 2, Side::Right, None)?.item::<i32>()?, 3);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn searchsorted(
    a: impl ArrayLike,
    v: impl ArrayLike,
    side: Side,
    sorter: Option<&Array>,
) -> Result<Array> {
    overridable!("searchsorted"; [one a, one v]; [side]);
    let func = "searchsorted";
    let (mut a, v) = super::promote_pair(func, a, v, false)?;
    if a.ndim() != 1 {
        return Err(Error::shape(func, &[a.shape()], "a must be 1-dimensional"));
    }
    if a.size() > i32::MAX as usize {
        return Err(Error::shape(
            func,
            &[a.shape()],
            "int32 positions number at most 2^31 - 1 elements",
        ));
    }
    if let Some(s) = sorter {
        if s.shape() != a.shape() || !(s.dtype().is_integer()) {
            return Err(Error::shape(
                func,
                &[a.shape(), s.shape()],
                format!(
                    "sorter must be integer positions of a's shape, got {}",
                    s.dtype()
                ),
            ));
        }
        // Checked eagerly; under `jit` JAX's `a[sorter]` (a traced value cannot raise).
        let mode = match s.is_traced() {
            true => super::IndexMode::PromiseInBounds,
            false => super::IndexMode::Raise,
        };
        a = super::take_with(&a, s, None, mode, None)
            .map_err(|e| Error::arg(func, format!("sorter: {e}")))?;
    }
    sorted_search(&a, &v, side)
}

/// The binary search of [`searchsorted`] on promoted operands: one
/// [`lax::search_sorted`] kernel, a search per query.
pub(super) fn sorted_search(a: &Array, v: &Array, side: Side) -> Result<Array> {
    if a.size() == 0 {
        return super::zeros(v.shape(), DType::Int32);
    }
    let q = lax::reshape(v, &[v.size()])?;
    let pos = lax::search_sorted(a, &q, 0, side == Side::Right)?;
    lax::reshape(&pos, v.shape())
}

/// The index of the bin of `bins` (1-d, increasing or decreasing) each value of `x` falls
/// in: `bins[i-1] <= x < bins[i]` (`<` and `<=` swapped when `right`), as int32.
pub fn digitize(x: impl ArrayLike, bins: impl ArrayLike, right: bool) -> Result<Array> {
    overridable!("digitize"; [one x, one bins]; [right]);
    let func = "digitize";
    let (x, bins) = super::promote_pair(func, x, bins, false)?;
    if bins.ndim() != 1 {
        return Err(Error::shape(
            func,
            &[bins.shape()],
            "bins must be 1-dimensional",
        ));
    }
    let n = bins.size();
    if n == 0 {
        return super::zeros(x.shape(), DType::Int32);
    }
    let side = if right { Side::Left } else { Side::Right };
    let up = sorted_search(&bins, &x, side)?;
    let down = super::subtract(
        n as i32,
        sorted_search(&super::flip(&bins, None)?, &x, side)?,
    )?;
    let increasing =
        super::greater_equal(slice_axis(&bins, 0, n - 1, n)?, slice_axis(&bins, 0, 0, 1)?)?;
    super::r#where(lax::reshape(&increasing, &[])?, up, down)
}

/// Counts of each non-negative integer in the 1-d `x` (or sums of `weights` of `x`'s shape),
/// of length `length` when given, else `max(x) + 1` but at least `minlength`. Negative
/// values count in bin 0 and values past `length` are dropped, as in JAX; under `jit`,
/// `length` is required (the output's shape cannot depend on the data).
///
/// ```
/// use olympus::numpy as np;
/// let c = np::bincount([0, 1, 1, 3], None, 0, None)?;
/// assert_eq!(c.to_vec::<i32>()?, vec![1, 2, 0, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn bincount(
    x: impl ArrayLike,
    weights: Option<&Array>,
    minlength: usize,
    length: Option<usize>,
) -> Result<Array> {
    overridable!("bincount"; [one x]; [minlength, length]);
    let func = "bincount";
    let x = super::asarray(operand(func, 0, x)?)?;
    if !x.dtype().is_integer() && !x.dtype().is_bool() {
        return Err(Error::dtype(func, &[x.dtype()], "x must be integer"));
    }
    if x.ndim() != 1 {
        return Err(Error::shape(func, &[x.shape()], "x must be 1-dimensional"));
    }
    let x = x.astype(DType::Int32)?;
    if let Some(w) = weights {
        if w.shape() != x.shape() {
            return Err(Error::shape(
                func,
                &[x.shape(), w.shape()],
                "weights must have x's shape",
            ));
        }
    }
    let length = match length {
        Some(l) => l,
        None if x.size() == 0 => minlength,
        None => {
            let top = concrete(
                func,
                super::max(&x, None, false).and_then(|m| m.item::<i32>()),
                "without `length` the output's shape depends on the values; pass `length` under jit",
            )?;
            (top.max(0) as usize + 1).max(minlength)
        }
    };
    let wdtype = weights.map_or(DType::Int32, |w| w.dtype());
    let zeros = super::zeros(&[length], wdtype)?;
    let pos = super::maximum(&x, 0)?;
    // Positions past `length` drop out of the scatter itself.
    match weights {
        Some(w) if w.dtype() != DType::Bool => lax::scatter(&zeros, &pos, w, ScatterMode::Add),
        Some(w) => zeros.at(pos).add(w),
        None => lax::scatter(&zeros, &pos, &count_ones(x.shape())?, ScatterMode::Add),
    }
}

/// A one for every update of a count, as a broadcast view of one int32 (the scatter reads
/// that one element instead of a buffer of ones).
fn count_ones(shape: &[usize]) -> Result<Array> {
    super::broadcast_to(super::ones(&[], DType::Int32)?, shape)
}

/// The bins of a [`histogram`]: a count of equal-width bins, or their edges.
#[derive(Clone, Debug)]
pub enum Bins {
    /// This many equal-width bins over the range.
    Count(usize),
    /// The edges (1-d, increasing; `n + 1` edges make `n` bins).
    Edges(Array),
}

impl From<usize> for Bins {
    fn from(n: usize) -> Bins {
        Bins::Count(n)
    }
}

impl From<Array> for Bins {
    fn from(a: Array) -> Bins {
        Bins::Edges(a)
    }
}

impl From<&Array> for Bins {
    fn from(a: &Array) -> Bins {
        Bins::Edges(a.clone())
    }
}

impl crate::convert::IntoParam for Bins {
    fn to_param(&self) -> crate::convert::Param {
        match self {
            Bins::Count(n) => crate::convert::Param::Int(*n as i64),
            Bins::Edges(e) => crate::convert::Param::Other(format!("edges {:?}", e.shape())),
        }
    }
}

/// The edges [`histogram`] uses: `bins + 1` equally spaced from `range` (the data's
/// minimum and maximum by default, widened by 0.5 each way when they are equal), or the
/// given edges (checked increasing eagerly).
pub fn histogram_bin_edges(
    a: impl ArrayLike,
    bins: impl Into<Bins>,
    range: Option<(f64, f64)>,
) -> Result<Array> {
    let bins = bins.into();
    overridable!("histogram_bin_edges"; [one a]; [bins]);
    let a = super::asarray(operand("histogram_bin_edges", 0, a)?)?;
    bin_edges("histogram_bin_edges", &a, &bins, range)
}

fn bin_edges(func: &str, a: &Array, bins: &Bins, range: Option<(f64, f64)>) -> Result<Array> {
    let dtype = if a.dtype().is_floating() {
        a.dtype()
    } else {
        DType::Float32
    };
    match bins {
        Bins::Edges(e) => {
            if e.ndim() != 1 || e.size() < 2 {
                return Err(Error::shape(
                    func,
                    &[e.shape()],
                    "bin edges must be 1-d with at least 2 edges",
                ));
            }
            let inc = super::all(
                super::greater_equal(
                    slice_axis(e, 0, 1, e.size())?,
                    slice_axis(e, 0, 0, e.size() - 1)?,
                )?,
                None,
                false,
            )?;
            // Traced edges cannot be checked; eager ones must increase.
            if let Ok(false) = inc.item::<bool>() {
                return Err(Error::arg(func, "bin edges must increase monotonically"));
            }
            super::asarray(e)?.astype(e.dtype().max(DType::Float16).max(dtype))
        }
        &Bins::Count(n) => {
            if n == 0 {
                return Err(Error::arg(func, "needs at least one bin"));
            }
            let (lo, hi) = match range {
                Some((lo, hi)) => {
                    if lo > hi || !lo.is_finite() || !hi.is_finite() {
                        return Err(Error::arg(
                            func,
                            format!("range ({lo}, {hi}) must be finite with lo <= hi"),
                        ));
                    }
                    let (lo, hi) = (
                        super::full(&[], lo, Some(dtype))?,
                        super::full(&[], hi, Some(dtype))?,
                    );
                    (lo, hi)
                }
                None if a.size() == 0 => (
                    super::full(&[], 0.0, Some(dtype))?,
                    super::full(&[], 1.0, Some(dtype))?,
                ),
                None => (
                    super::min(a, None, false)?.astype(dtype)?,
                    super::max(a, None, false)?.astype(dtype)?,
                ),
            };
            let same = super::equal(&lo, &hi)?;
            let lo = super::r#where(&same, super::subtract(&lo, 0.5)?, &lo)?;
            let hi = super::r#where(&same, super::add(&hi, 0.5)?, &hi)?;
            // lo + (hi - lo) * k / n, as linspace.
            let k = super::arange(0..n as i32 + 1)?.astype(dtype)?;
            let step = super::divide(super::subtract(&hi, &lo)?, n as f64)?;
            let e = super::add(&lo, super::multiply(&k, &step)?)?;
            // The last edge is exactly hi.
            let last = super::equal(super::arange(0..n as i32 + 1)?, n as i32)?;
            super::r#where(last, &hi, e)
        }
    }
}

/// Counts of `a`'s (flattened) values in each bin, or sums of `weights` (of `a`'s shape),
/// with the bins' edges (see [`histogram_bin_edges`]). Each bin holds `[edge_i,
/// edge_i+1)`, the last one its right edge too; values outside the edges (and NaN) are not
/// counted. `density` divides by the total and the bins' widths.
///
/// ```
/// use olympus::numpy as np;
/// let (h, edges) = np::histogram([1.0f32, 2.0, 2.5, 4.0], 3, None, None, false)?;
/// assert_eq!(h.to_vec::<f32>()?, vec![1.0, 2.0, 1.0]);
/// assert_eq!(edges.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn histogram(
    a: impl ArrayLike,
    bins: impl Into<Bins>,
    range: Option<(f64, f64)>,
    weights: Option<&Array>,
    density: bool,
) -> Result<(Array, Array)> {
    let bins = bins.into();
    overridable!("histogram"; [one a]; [bins, density]);
    let func = "histogram";
    let a = super::asarray(operand(func, 0, a)?)?;
    if let Some(w) = weights {
        if w.shape() != a.shape() {
            return Err(Error::shape(
                func,
                &[a.shape(), w.shape()],
                "weights must have a's shape",
            ));
        }
    }
    let w = weights.map(super::ravel).transpose()?;
    let ranges = range.map(|r| [r]);
    // JAX counts in a's inexact dtype, with weights promoted to it.
    let dtype = match &w {
        Some(w) => {
            crate::dtype::promote_types(inexact(a.clone())?.dtype(), inexact(w.clone())?.dtype())
        }
        None => inexact(a.clone())?.dtype(),
    };
    let w = w.map(|w| w.astype(dtype)).transpose()?;
    let (h, mut e) = counts_dd(
        func,
        super::ravel(&a)?,
        &[bins],
        ranges.as_ref().map(|r| &r[..]),
        w.as_ref(),
        dtype,
        density,
    )?;
    let edges = e.pop().unwrap_or_else(|| unreachable!());
    Ok((h, edges))
}

/// One-dimensional linear interpolation of the points `(xp, fp)` (`xp` increasing) at `x`:
/// `left`/`right` (`fp`'s first and last values by default) outside `xp`'s range; with
/// `period`, `x` and `xp` are taken modulo it (and `left`/`right` do not apply).
///
/// ```
/// use olympus::numpy as np;
/// let y = np::interp([0.5f32, 1.5, 9.0], [0.0f32, 1.0, 2.0], [0.0f32, 10.0, 20.0], None, None, None)?;
/// assert_eq!(y.to_vec::<f32>()?, vec![5.0, 15.0, 20.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn interp(
    x: impl ArrayLike,
    xp: impl ArrayLike,
    fp: impl ArrayLike,
    left: Option<f64>,
    right: Option<f64>,
    period: Option<f64>,
) -> Result<Array> {
    overridable!("interp"; [one x, one xp, one fp]; [left, right, period]);
    let func = "interp";
    let (mut x, mut xp) = super::promote_pair(func, x, xp, true)?;
    let mut fp = inexact(super::asarray(operand(func, 2, fp)?)?)?;
    if xp.ndim() != 1 || fp.ndim() != 1 || xp.size() != fp.size() || xp.size() == 0 {
        return Err(Error::shape(
            func,
            &[xp.shape(), fp.shape()],
            "xp and fp must be 1-d of one non-zero length",
        ));
    }
    if let Some(p) = period {
        if p == 0.0 || !p.is_finite() {
            return Err(Error::arg(
                func,
                format!("period {p} must be finite and non-zero"),
            ));
        }
        let p = p.abs();
        x = super::r#mod(&x, p)?;
        xp = super::r#mod(&xp, p)?;
        let order = super::argsort(&xp, None)?;
        xp = super::take(&xp, &order, None)?;
        fp = super::take(&fp, &order, None)?;
        let n = xp.size();
        xp = super::concatenate(
            [
                super::subtract(slice_axis(&xp, 0, n - 1, n)?, p)?,
                xp.clone(),
                super::add(slice_axis(&xp, 0, 0, 1)?, p)?,
            ],
            0,
        )?;
        fp = super::concatenate(
            [
                slice_axis(&fp, 0, n - 1, n)?,
                fp.clone(),
                slice_axis(&fp, 0, 0, 1)?,
            ],
            0,
        )?;
    }
    let n = xp.size();
    // JAX's `clip(i, 1, n - 1)`, which gives 0 for one point (then `i - 1` wraps to it).
    let i = super::clip(sorted_search(&xp, &x, Side::Right)?, 1, n as i32 - 1)?;
    let (xi, xl) = (
        super::take(&xp, &i, None)?,
        super::take(&xp, super::subtract(&i, 1)?, None)?,
    );
    let (fi, fl) = (
        super::take(&fp, &i, None)?,
        super::take(&fp, super::subtract(&i, 1)?, None)?,
    );
    let df = super::subtract(&fi, &fl)?;
    let dx = super::subtract(&xi, &xl)?;
    let delta = super::subtract(&x, &xl)?;
    // JAX's `spacing(finfo(xp.dtype).eps)`.
    let eps = match xp.dtype() {
        DType::Float16 => 2f64.powi(-20),
        DType::BFloat16 => 2f64.powi(-14),
        _ => 2f64.powi(-46),
    };
    let small = super::less_equal(super::abs(&dx)?, eps)?;
    // JAX: where dx is (nearly) zero take fp[i - 1], else fp[i - 1] + delta * df / dx.
    let safe_dx = super::r#where(&small, 1.0, &dx)?;
    let f = super::r#where(
        &small,
        &fl,
        super::add(&fl, super::multiply(super::divide(&delta, &safe_dx)?, &df)?)?,
    )?;
    if period.is_some() {
        return Ok(f);
    }
    let x0 = lax::reshape(&slice_axis(&xp, 0, 0, 1)?, &[])?;
    let x1 = lax::reshape(&slice_axis(&xp, 0, n - 1, n)?, &[])?;
    let f = match left {
        Some(v) => super::r#where(super::less(&x, &x0)?, v, &f)?,
        None => super::r#where(
            super::less(&x, &x0)?,
            lax::reshape(&slice_axis(&fp, 0, 0, 1)?, &[])?,
            &f,
        )?,
    };
    match right {
        Some(v) => super::r#where(super::greater(&x, &x1)?, v, &f),
        None => super::r#where(
            super::greater(&x, &x1)?,
            lax::reshape(&slice_axis(&fp, 0, n - 1, n)?, &[])?,
            &f,
        ),
    }
}

/// The multidimensional histogram of `sample` (`(N, D)` points, or a 1-d array as one
/// coordinate): per dimension its bins (one [`Bins`] for all, or one each) and range, as
/// [`histogram`]; returns the `D`-dimensional counts (or weight sums, or densities) and
/// each dimension's edges.
pub fn histogramdd(
    sample: impl ArrayLike,
    bins: &[Bins],
    range: Option<&[(f64, f64)]>,
    weights: Option<&Array>,
    density: bool,
) -> Result<(Array, Vec<Array>)> {
    overridable!("histogramdd"; [one sample]; [density]);
    let func = "histogramdd";
    let s = super::asarray(operand(func, 0, sample)?)?;
    counts_dd(func, s, bins, range, weights, DType::Int32, density)
}

/// [`histogramdd`] for `func`: per dimension, the bin of each point by a binary search of
/// its edges (bins 0 and `n + 1` outside), the flat bin a scatter-add counts.
fn counts_dd(
    func: &str,
    s: Array,
    bins: &[Bins],
    range: Option<&[(f64, f64)]>,
    weights: Option<&Array>,
    count_dtype: DType,
    density: bool,
) -> Result<(Array, Vec<Array>)> {
    let s = if s.ndim() == 1 {
        lax::reshape(&s, &[s.size(), 1])?
    } else {
        s
    };
    if s.ndim() != 2 {
        return Err(Error::shape(
            func,
            &[s.shape()],
            "sample must be (N, D) points",
        ));
    }
    let (n, d) = (s.shape()[0], s.shape()[1]);
    let bins: Vec<Bins> = match bins.len() {
        1 => vec![bins[0].clone(); d],
        k if k == d => bins.to_vec(),
        k => {
            return Err(Error::arg(
                func,
                format!("{k} bin specifications for {d} dimensions"),
            ))
        }
    };
    if let Some(r) = range {
        if r.len() != d {
            return Err(Error::arg(
                func,
                format!("{} ranges for {d} dimensions", r.len()),
            ));
        }
    }
    if let Some(w) = weights {
        if w.shape() != [n] {
            return Err(Error::shape(
                func,
                &[s.shape(), w.shape()],
                "weights must have one value per point",
            ));
        }
    }
    let mut edges = Vec::with_capacity(d);
    let mut flat: Option<Array> = None;
    let mut sizes = Vec::with_capacity(d);
    for k in 0..d {
        let col = lax::reshape(&slice_axis(&s, 1, k, k + 1)?, &[n])?;
        let e = bin_edges(func, &col, &bins[k], range.map(|r| r[k]))?;
        let nb = e.size() - 1;
        let col = col.astype(e.dtype())?;
        // JAX: searchsorted(edges, x, "right"), less one where x is the last edge; bins 0
        // and nb + 1 hold the values outside (NaN in nb + 1). Every position is in
        // 0..=nb + 1, so none needs clipping.
        let idx = sorted_search(&e, &col, Side::Right)?;
        let last = super::equal(&col, slice_axis(&e, 0, nb, nb + 1)?)?;
        let idx = super::r#where(last, super::subtract(&idx, 1)?, &idx)?;
        flat = Some(match flat {
            None => idx,
            Some(f) => super::add(super::multiply(f, nb as i64 + 2)?, idx)?,
        });
        sizes.push(nb + 2);
        edges.push(e);
    }
    let total: usize = sizes.iter().product();
    let pos = flat.map_or_else(|| super::zeros(&[n], DType::Int32), Ok)?;
    // Counts add as int32 (native atomics, exact) and convert once to their dtype.
    let hist = match weights {
        Some(w) if w.dtype() != DType::Bool => lax::scatter(
            &super::zeros(&[total], w.dtype())?,
            &pos,
            w,
            ScatterMode::Add,
        )?,
        Some(w) => super::zeros(&[total], w.dtype())?.at(pos).add(w)?,
        None => lax::scatter(
            &super::zeros(&[total], DType::Int32)?,
            &pos,
            &count_ones(&[n])?,
            ScatterMode::Add,
        )?
        .astype(count_dtype)?,
    };
    let hist = lax::reshape(&hist, &sizes)?;
    // Drop the outside bins of every dimension.
    let lo = vec![1; d];
    let hi: Vec<usize> = sizes.iter().map(|s| s - 1).collect();
    let mut hist = lax::slice(&hist, &lo, &hi, None)?;
    if density {
        hist = super::divide(&hist, super::sum(&hist, None, false)?)?;
        for (k, e) in edges.iter().enumerate() {
            let mut shape = vec![1; d];
            shape[k] = e.size() - 1;
            let width = lax::reshape(&diff(e, 1, 0, None, None)?, &shape)?;
            hist = super::divide(&hist, width)?;
        }
    }
    Ok((hist, edges))
}

/// The two-dimensional histogram of points `(x, y)`: [`histogramdd`] of the pairs.
pub fn histogram2d(
    x: impl ArrayLike,
    y: impl ArrayLike,
    bins: &[Bins],
    range: Option<&[(f64, f64)]>,
    weights: Option<&Array>,
    density: bool,
) -> Result<(Array, Array, Array)> {
    overridable!("histogram2d"; [one x, one y]; [density]);
    let func = "histogram2d";
    let v = super::promote_pair(func, x, y, false)?;
    if v.0.ndim() != 1 || v.0.shape() != v.1.shape() {
        return Err(Error::shape(
            func,
            &[v.0.shape(), v.1.shape()],
            "x and y must be 1-d of one length",
        ));
    }
    let (h, mut e) = counts_dd(
        func,
        super::stack([&v.0, &v.1], 1)?,
        bins,
        range,
        weights,
        DType::Int32,
        density,
    )?;
    let ey = e.pop().unwrap_or_else(|| unreachable!());
    let ex = e.pop().unwrap_or_else(|| unreachable!());
    Ok((h, ex, ey))
}

//! Reductions over no axis (all of them), one, several or negative axes, with keepdims.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{Literal, ReduceOp};
use crate::shape::normalize_axes;

use super::ReduceOptions;

fn prepare(func: &str, x: impl ArrayLike, axis: Option<&[isize]>) -> Result<(Array, Vec<usize>)> {
    let x = super::asarray(operand(func, 0, x)?)?;
    let axes = match axis {
        None => (0..x.ndim()).collect(),
        Some(a) => normalize_axes(func, a, x.ndim())?,
    };
    Ok((x, axes))
}

fn finish(r: Array, x_shape: &[usize], axes: &[usize], keepdims: bool) -> Result<Array> {
    if !keepdims {
        return Ok(r);
    }
    let shape: Vec<usize> = (0..x_shape.len())
        .map(|i| if axes.contains(&i) { 1 } else { x_shape[i] })
        .collect();
    lax::reshape(&r, &shape)
}

fn numeric(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    op: ReduceOp,
) -> Result<Array> {
    let (x, axes) = prepare(func, x, axis)?;
    // bool sums and products count in int32, and 8- and 16-bit integers in the 32-bit
    // integer of their signedness, as in JAX (`promote_integers`).
    let xs = match x.dtype() {
        DType::Bool => x.astype(DType::Int32)?,
        d if d.is_integer() => x.astype(d.compute_dtype())?,
        _ => x.clone(),
    };
    let r = lax::reduce(op, &xs, &axes)?;
    finish(r, x.shape(), &axes, keepdims)
}

/// Sum of elements over `axis` (all axes when `None`); bool counts as int32, 8- and
/// 16-bit integers as int32 or uint32, bfloat16 and float16 accumulate in float32, float32 accumulates as a tree. An empty sum is 0.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::reshape(np::arange(6)?, &[2, 3])?;
/// assert_eq!(np::sum(&x, None, false)?.item::<i32>()?, 15);
/// assert_eq!(np::sum(&x, Some(&[-1]), false)?.to_vec::<i32>()?, vec![3, 12]);
/// assert_eq!(np::sum(&x, Some(&[0]), true)?.shape(), &[1, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn sum(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("sum"; [one x]; [axis, keepdims]);
    numeric("sum", x, axis, keepdims, ReduceOp::Sum)
}

/// Product of elements over `axis`; an empty product is 1.
pub fn prod(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("prod"; [one x]; [axis, keepdims]);
    numeric("prod", x, axis, keepdims, ReduceOp::Prod)
}

fn extreme(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    op: ReduceOp,
    bool_op: ReduceOp,
) -> Result<Array> {
    extreme_with(func, x, axis, keepdims, op, bool_op, &ReduceOptions::new())
}

/// [`max`] or [`min`] with `initial=` and `where=` (a mask needs `initial`, as in JAX:
/// neither has an identity); with `initial` an empty axis gives it.
fn extreme_with(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    op: ReduceOp,
    bool_op: ReduceOp,
    options: &ReduceOptions,
) -> Result<Array> {
    options.only(func, &["initial"])?;
    if options.where_.is_some() && options.initial.is_none() {
        return Err(Error::arg(
            func,
            "a where= mask needs an `initial` value (the reduction has no identity), as in JAX",
        ));
    }
    let (x, axes) = prepare(func, x, axis)?;
    let x = options.masked(func, &x, op)?;
    if options.initial.is_none() && axes.iter().any(|&a| x.shape()[a] == 0) {
        return Err(Error::shape(
            func,
            &[x.shape()],
            "zero-size reduction has no identity (NumPy raises here)",
        ));
    }
    let op = if x.dtype() == DType::Bool {
        bool_op
    } else {
        op
    };
    let r = lax::reduce(op, &x, &axes)?;
    options.with_initial(finish(r, x.shape(), &axes, keepdims)?, op)
}

/// Maximum over `axis`; NaN propagates. Reducing an empty axis is an error.
pub fn max(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("max"; [one x]; [axis, keepdims]);
    extreme("max", x, axis, keepdims, ReduceOp::Max, ReduceOp::Or)
}

/// Minimum over `axis`; NaN propagates. Reducing an empty axis is an error.
pub fn min(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("min"; [one x]; [axis, keepdims]);
    extreme("min", x, axis, keepdims, ReduceOp::Min, ReduceOp::And)
}

/// [`max`] with JAX's `initial=` and `where=` ([`ReduceOptions`]; no `dtype`): the
/// maximum of `initial` and the elements where the mask holds. A mask needs `initial`, as
/// in JAX (max has no identity); with `initial` an empty axis gives it.
///
/// ```
/// use olympus::numpy::{self as np, ReduceOptions};
/// let x = np::array([[1.0f32, 7.0, 3.0], [4.0, 9.0, 6.0]])?;
/// let m = np::array([true, false, true])?;
/// let r = np::max_with(&x, Some(&[1]), false, ReduceOptions::new().where_(&m).initial(-5.0))?;
/// assert_eq!(r.to_vec::<f32>()?, vec![3.0, 6.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn max_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("max_with"; [one x]; [axis, keepdims, options]);
    let (op, bool_op) = (ReduceOp::Max, ReduceOp::Or);
    extreme_with("max_with", x, axis, keepdims, op, bool_op, &options)
}

/// [`min`] with JAX's `initial=` and `where=`, as [`max_with`].
pub fn min_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("min_with"; [one x]; [axis, keepdims, options]);
    let (op, bool_op) = (ReduceOp::Min, ReduceOp::And);
    extreme_with("min_with", x, axis, keepdims, op, bool_op, &options)
}

fn logical(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    op: ReduceOp,
    options: &ReduceOptions,
) -> Result<Array> {
    options.only(func, &[])?;
    let (x, axes) = prepare(func, x, axis)?;
    let b = if x.dtype() == DType::Bool {
        x.clone()
    } else {
        x.astype(DType::Bool)?
    };
    let b = options.masked(func, &b, op)?;
    let r = lax::reduce(op, &b, &axes)?;
    finish(r, x.shape(), &axes, keepdims)
}

/// True where every element over `axis` is true (true for an empty axis).
pub fn all(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("all"; [one x]; [axis, keepdims]);
    logical(
        "all",
        x,
        axis,
        keepdims,
        ReduceOp::And,
        &ReduceOptions::new(),
    )
}

/// [`all`] with JAX's `where=` ([`ReduceOptions`]; neither `dtype` nor `initial`): only
/// the elements where the mask holds count (true where it holds nowhere).
pub fn all_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("all_with"; [one x]; [axis, keepdims, options]);
    logical("all_with", x, axis, keepdims, ReduceOp::And, &options)
}

/// True where any element over `axis` is true (false for an empty axis).
pub fn any(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("any"; [one x]; [axis, keepdims]);
    logical(
        "any",
        x,
        axis,
        keepdims,
        ReduceOp::Or,
        &ReduceOptions::new(),
    )
}

/// [`any`] with JAX's `where=`, as [`all_with`] (false where the mask holds nowhere).
pub fn any_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("any_with"; [one x]; [axis, keepdims, options]);
    logical("any_with", x, axis, keepdims, ReduceOp::Or, &options)
}

/// Arithmetic mean over `axis`; integers and bool average in float32, float16 is summed
/// in float32 and rounded once. The mean of an empty axis is NaN.
pub fn mean(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("mean"; [one x]; [axis, keepdims]);
    let (x, axes) = prepare("mean", x, axis)?;
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    // JAX keeps the 16-bit floats (summing them in float32).
    let out = if matches!(x.dtype(), DType::Float16 | DType::BFloat16) {
        x.dtype()
    } else {
        DType::Float32
    };
    let xf = if x.dtype() == DType::Float32 {
        x.clone()
    } else {
        x.astype(DType::Float32)?
    };
    let s = lax::reduce(ReduceOp::Sum, &xf, &axes)?;
    // JAX divides by the count as a constant, which XLA rewrites into a multiplication by
    // its float32 reciprocal: the same rounding as JAX's (a true division can differ from
    // it in the last bit).
    let m = super::multiply(&s, f64::from(1.0f32 / count as f32))?;
    let m = if out != DType::Float32 {
        m.astype(out)?
    } else {
        m
    };
    finish(m, x.shape(), &axes, keepdims)
}

/// Converts to the float dtype statistics are computed in (float16 stays float16,
/// everything else float32), as JAX does.
fn inexact(x: &Array) -> Result<Array> {
    if x.dtype().is_floating() {
        Ok(x.clone())
    } else {
        x.astype(DType::Float32)
    }
}

fn arg_extreme(
    func: &str,
    x: impl ArrayLike,
    axis: Option<isize>,
    keepdims: bool,
    max: bool,
) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    let (xs, ax) = match axis {
        None => (super::ravel(&x)?, 0),
        Some(a) => {
            let ax = crate::shape::normalize_axis(func, a, x.ndim())?;
            (x.clone(), ax)
        }
    };
    let n = xs.shape()[ax];
    if n == 0 {
        return Err(Error::shape(
            func,
            &[x.shape()],
            format!("attempt to get {func} of an empty sequence (axis {ax} has size 0)"),
        ));
    }
    let v = if xs.dtype() == DType::Bool {
        xs.astype(DType::Int32)?
    } else {
        xs
    };
    let mut kshape = v.shape().to_vec();
    kshape[ax] = 1;
    let r = lax::arg_reduce(&v, ax, max)?;
    if keepdims {
        let shape: Vec<usize> = match axis {
            None => vec![1; x.ndim()],
            Some(_) => kshape,
        };
        lax::reshape(&r, &shape)
    } else {
        Ok(r)
    }
}

/// Index (int32) of the first maximum along `axis` (of the flattened array when `None`);
/// NaN counts as the maximum. An empty axis is an error.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1.0f32, 5.0, 5.0], [f32::NAN, 2.0, f32::NAN]])?;
/// assert_eq!(np::argmax(&x, Some(1), false)?.to_vec::<i32>()?, vec![1, 0]);
/// assert_eq!(np::argmax(&x, None, false)?.item::<i32>()?, 3);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn argmax(x: impl ArrayLike, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    overridable!("argmax"; [one x]; [axis, keepdims]);
    arg_extreme("argmax", x, axis, keepdims, true)
}

/// Index (int32) of the first minimum along `axis`; NaN counts as the minimum.
pub fn argmin(x: impl ArrayLike, axis: Option<isize>, keepdims: bool) -> Result<Array> {
    overridable!("argmin"; [one x]; [axis, keepdims]);
    arg_extreme("argmin", x, axis, keepdims, false)
}

/// Variance over `axis` with `ddof` delta degrees of freedom: `sum(|x - mean|²) / (n -
/// ddof)`, computed in float32 (float16 stays float16). `n <= ddof` gives NaN, as in JAX.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([1.0f32, 2.0, 3.0, 4.0])?;
/// assert_eq!(np::var(&x, None, 0, false)?.item::<f32>()?, 1.25);
/// assert_eq!(np::std(&x, None, 1, false)?.item::<f32>()?, (5.0f32 / 3.0).sqrt());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn var(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
) -> Result<Array> {
    overridable!("var"; [one x]; [axis, ddof, keepdims]);
    var_impl("var", x, axis, ddof, keepdims)
}

/// [`var`] with JAX's `dtype=`, `where=` and `mean=` ([`ReduceOptions`]; no `initial`),
/// computed as JAX's `_var`: the elements in the computation dtype (`dtype`, or float32
/// for integers; 16-bit floats compute in float32 and round at the end), centered on
/// `mean` (by default the mean over the mask), squared, summed over the mask and divided
/// by the mask's count less `ddof` (NaN where that is not positive). `dtype` must be a
/// float dtype here: JAX also computes a variance in an integer `dtype` (integer mean and
/// quotient), which Olympus does not implement.
///
/// ```
/// use olympus::numpy::{self as np, ReduceOptions};
/// let x = np::array([[1.0f32, 2.0, 9.0, 3.0]])?;
/// let m = np::array([true, true, false, true])?;
/// let v = np::var_with(&x, Some(&[1]), 0, false, ReduceOptions::new().where_(&m))?;
/// assert_eq!(v.to_vec::<f32>()?, vec![2.0 / 3.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn var_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("var_with"; [one x]; [axis, ddof, keepdims, options]);
    variance("var_with", x, axis, ddof, keepdims, &options, false)
}

/// [`std`] with JAX's `dtype=`, `where=` and `mean=`: the square root of [`var_with`].
pub fn std_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("std_with"; [one x]; [axis, ddof, keepdims, options]);
    super::sqrt(variance(
        "std_with", x, axis, ddof, keepdims, &options, false,
    )?)
}

/// The variance with `options` as JAX's `_var` (or `_nanvar` where `nan`) computes it;
/// without options, [`var`]'s or [`nanvar`](super::nanvar)'s own path.
pub(super) fn variance(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
    options: &ReduceOptions,
    nan: bool,
) -> Result<Array> {
    options.only(func, &["dtype", "mean"])?;
    let x = super::asarray(operand(func, 0, x)?)?;
    let nan = nan && x.dtype().is_floating();
    if options.dtype.is_none() && options.where_.is_none() && options.mean.is_none() {
        return if nan {
            nanvar_impl(func, &x, axis, ddof, keepdims)
        } else {
            var_impl(func, &x, axis, ddof, keepdims)
        };
    }
    // JAX's _var_promote_types: the result's dtype, and the one it is computed in.
    let out = match options.dtype {
        Some(d) if !d.is_floating() => {
            return Err(Error::dtype(
                func,
                &[d],
                "dtype must be a float dtype (a variance in an integer dtype is not implemented)",
            ));
        }
        Some(d) => d,
        None if x.dtype().is_floating() => x.dtype(),
        None => DType::Float32,
    };
    let comp = DType::Float32;
    let a = x.astype(comp)?;
    let (_, axes) = prepare(func, &a, axis)?;
    let mask = options.mask(func, a.shape())?;
    let within = ReduceOptions {
        dtype: Some(comp),
        where_: mask.clone(),
        ..ReduceOptions::default()
    };
    let m = match &options.mean {
        Some(m) => super::asarray(m)?.astype(comp)?,
        None if nan => nanmean_with(&a, axis, true, within.clone())?,
        None => mean_with(&a, axis, true, within.clone())?,
    };
    let d = super::subtract(&a, &m)?;
    let d = if nan {
        super::r#where(super::isnan(&a)?, 0.0, &d)?
    } else {
        d
    };
    let s = summed(
        func,
        &super::square(&d)?,
        axis,
        keepdims,
        &within,
        ReduceOp::Sum,
    )?;
    let count = |valid: &Array| sum_with(valid, axis, keepdims, within.clone());
    let n = match (&mask, nan) {
        (_, true) => Some(count(&super::logical_not(super::isnan(&a)?)?)?),
        (Some(m), false) => Some(count(m)?),
        (None, false) => None,
    };
    let v = match n {
        // JAX divides by the count as a constant: XLA's product by its reciprocal.
        None => {
            let norm = axes.iter().map(|&i| a.shape()[i]).product::<usize>() as f64 - ddof as f64;
            super::r#where(norm > 0.0, super::divide(&s, norm)?, f64::NAN)?
        }
        // NaN where no degree of freedom is left, divided by 1 there (JAX's `_nanvar`,
        // which keeps the gradient finite; `_var`'s values are the same).
        Some(n) => {
            let dof = super::subtract(&n, ddof as f64)?;
            let none = super::less_equal(&dof, 0.0)?;
            super::divide(
                super::r#where(&none, f64::NAN, &s)?,
                super::r#where(&none, 1.0, &dof)?,
            )?
        }
    };
    v.astype(out)
}

/// [`nanvar`](super::nanvar) without options.
pub(super) fn nanvar_impl(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if !x.dtype().is_floating() {
        return super::var(&x, axis, ddof, keepdims);
    }
    let xf = x.astype(DType::Float32)?;
    let valid = super::logical_not(super::isnan(&xf)?)?;
    let n = super::sum(&valid, axis, true)?.astype(DType::Float32)?;
    let m = super::divide(super::nansum(&xf, axis, true)?, &n)?;
    let d = super::r#where(&valid, super::subtract(&xf, &m)?, 0.0)?;
    let s = super::sum(super::multiply(&d, &d)?, axis, keepdims)?;
    let n = if keepdims {
        n
    } else {
        super::sum(&valid, axis, false)?.astype(DType::Float32)?
    };
    // JAX's `_nanvar`: NaN where no degree of freedom is left, divided by 1 there, so
    // that the gradient stays 0 (a quotient by 0 would make it `0 * inf`).
    let dof = super::subtract(&n, ddof as f64)?;
    let none = super::less_equal(&dof, 0.0)?;
    let v = super::divide(
        super::r#where(&none, f64::NAN, &s)?,
        super::r#where(&none, 1.0, &dof)?,
    )?;
    v.astype(x.dtype())
}

fn var_impl(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
) -> Result<Array> {
    let (x, axes) = prepare(func, x, axis)?;
    let xf = x.astype(DType::Float32)?;
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let m = mean(&xf, Some(&to_isize(&axes)), true)?;
    // JAX's `_var`, operation by operation (its `square`, a division by `n - ddof`, then
    // NaN where that is not positive, by a `where` that passes no gradient), so that
    // derivatives are JAX's too (signed zeros included).
    let d = super::subtract(&xf, &m)?;
    let s = lax::reduce(ReduceOp::Sum, &super::square(&d)?, &axes)?;
    let norm = count as f64 - ddof as f64;
    let v = super::r#where(norm > 0.0, super::divide(&s, norm)?, f64::NAN)?;
    let v = if matches!(x.dtype(), DType::Float16 | DType::BFloat16) {
        v.astype(x.dtype())?
    } else {
        v
    };
    finish(v, x.shape(), &axes, keepdims)
}

fn to_isize(axes: &[usize]) -> Vec<isize> {
    axes.iter().map(|&a| a as isize).collect()
}

/// Standard deviation: the square root of [`var`].
pub fn std(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    ddof: usize,
    keepdims: bool,
) -> Result<Array> {
    overridable!("std"; [one x]; [axis, ddof, keepdims]);
    let v = var_impl("std", x, axis, ddof, keepdims)?;
    super::sqrt(&v)
}

/// `log(sum(exp(x)))` over `axis`, computed stably (the maximum is subtracted first);
/// all `-inf` gives `-inf`, NaN propagates.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([1000.0f32, 1000.0])?;
/// let r = np::logsumexp(&x, None, false)?.item::<f32>()?;
/// assert!((r - (1000.0 + 2f32.ln())).abs() < 1e-3);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn logsumexp(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("logsumexp"; [one x]; [axis, keepdims]);
    let (x, axes) = prepare("logsumexp", x, axis)?;
    let xf = inexact(&x)?;
    let ax = to_isize(&axes);
    if axes.iter().any(|&a| x.shape()[a] == 0) {
        // log(0) = -inf over an empty axis.
        let s = sum(&xf, Some(&ax), keepdims)?;
        return super::log(super::multiply(s, 0.0)?);
    }
    let m = lax::reduce(ReduceOp::Max, &xf, &axes)?;
    let m = finish(m, x.shape(), &axes, true)?;
    // The shift is a constant to derivatives, as in JAX: the gradient is then exactly the
    // softmax, and no part of it flows through the maximum.
    let ms = lax::stop_gradient(&super::r#where(super::isfinite(&m)?, &m, 0.0)?)?;
    let e = super::exp(super::subtract(&xf, &ms)?)?;
    let s = sum(&e, Some(&ax), true)?;
    let r = super::add(super::log(&s)?, &ms)?;
    if keepdims {
        Ok(r)
    } else {
        let shape: Vec<usize> = (0..x.ndim())
            .filter(|i| !axes.contains(i))
            .map(|i| x.shape()[i])
            .collect();
        lax::reshape(&r, &shape)
    }
}

/// `x` with NaNs replaced by `value` (floats only; other dtypes pass through).
pub(super) fn nan_as(x: &Array, value: f64) -> Result<Array> {
    if x.dtype().is_floating() {
        super::r#where(super::isnan(x)?, value, x)
    } else {
        Ok(x.clone())
    }
}

/// Sum treating NaN as zero.
pub fn nansum(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("nansum"; [one x]; [axis, keepdims]);
    let x = super::asarray(operand("nansum", 0, x)?)?;
    sum(nan_as(&x, 0.0)?, axis, keepdims)
}

/// Product treating NaN as one.
pub fn nanprod(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("nanprod"; [one x]; [axis, keepdims]);
    let x = super::asarray(operand("nanprod", 0, x)?)?;
    prod(nan_as(&x, 1.0)?, axis, keepdims)
}

// ----- JAX's `dtype=` -----

/// `op` over `axes` of `x` converted to `dtype` first, the result in `dtype`, as JAX's
/// reductions with `dtype=` compute: integers wrap in `dtype` (they are summed in 32 bits,
/// which wraps to the same value), a bool sum is a logical or and a bool product a logical
/// and.
fn reduce_as(x: &Array, axes: &[usize], op: ReduceOp, dtype: DType) -> Result<Array> {
    let xd = x.astype(dtype)?;
    let r = match (op, dtype) {
        (ReduceOp::Sum, DType::Bool) => lax::reduce(ReduceOp::Or, &xd, axes)?,
        (ReduceOp::Prod, DType::Bool) => lax::reduce(ReduceOp::And, &xd, axes)?,
        (_, d) if d.is_integer() && d.compute_dtype() != d => {
            lax::reduce(op, &xd.astype(d.compute_dtype())?, axes)?.astype(d)?
        }
        _ => lax::reduce(op, &xd, axes)?,
    };
    Ok(r)
}

/// [`sum`] with JAX's `dtype=`, `initial=` and `where=` ([`ReduceOptions`]; `None` or a
/// dtype converts into it). With `dtype` the elements are converted to it and summed in it,
/// so integers wrap in `dtype` (int8 `[100, 100, 100]` sums to 44) and a bool sum is a
/// logical or; without, as [`sum`], which promotes narrow integers. Elements the mask
/// leaves out count as 0, and `initial` is added to each result.
///
/// ```
/// use olympus::{numpy as np, DType};
/// let x = np::array([100i8, 100, 100])?;
/// assert_eq!(np::sum_with(&x, None, false, Some(DType::Int8))?.item::<i8>()?, 44);
/// assert_eq!(np::sum_with([1.5f32, 2.5, 3.7], None, false, Some(DType::Int32))?.item::<i32>()?, 6);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn sum_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("sum_with"; [one x]; [axis, keepdims, options]);
    let x = super::asarray(operand("sum_with", 0, x)?)?;
    summed("sum_with", &x, axis, keepdims, &options, ReduceOp::Sum)
}

/// [`prod`] with JAX's `dtype=`, `initial=` and `where=`: as [`sum_with`], a product in
/// `dtype` (a bool product is a logical and), elements the mask leaves out counting as 1,
/// and each result multiplied by `initial`.
pub fn prod_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("prod_with"; [one x]; [axis, keepdims, options]);
    let x = super::asarray(operand("prod_with", 0, x)?)?;
    summed("prod_with", &x, axis, keepdims, &options, ReduceOp::Prod)
}

/// A sum or product (`op`) of `x` with every option applied: the mask (the op's
/// identity where it does not hold), the dtype, then `initial`, as JAX's `_reduction`:
/// without `dtype`, 16-bit float results are computed in float32 with `initial` applied
/// before the one rounding; with it, in `dtype`.
fn summed(
    func: &str,
    x: &Array,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: &ReduceOptions,
    op: ReduceOp,
) -> Result<Array> {
    options.only(func, &["dtype", "initial"])?;
    let x = options.masked(func, x, op)?;
    if options.dtype.is_none() && options.initial.is_none() {
        return numeric(func, &x, axis, keepdims, op);
    }
    let (x, axes) = prepare(func, &x, axis)?;
    let result = options.dtype.unwrap_or(match x.dtype() {
        DType::Bool => DType::Int32,
        d if d.is_integer() => d.compute_dtype(),
        d => d,
    });
    // JAX upcasts 16-bit floats only when no `dtype` is given: `dtype=float16` converts
    // the elements to float16 first (float32 [7e4, -7e4] sums to NaN).
    let compute = match (options.dtype, result) {
        (None, DType::Float16 | DType::BFloat16) => DType::Float32,
        _ => result,
    };
    let r = finish(
        reduce_as(&x, &axes, op, compute)?,
        x.shape(),
        &axes,
        keepdims,
    )?;
    let r = options.with_initial(r, op)?;
    if r.dtype() == result {
        Ok(r)
    } else {
        r.astype(result)
    }
}

/// [`mean`] with JAX's `dtype=` and `where=` ([`ReduceOptions`]; no `initial`). With
/// `dtype` the sum is taken in it (accumulated in float32 for float16 and bfloat16, and
/// rounded to them) and divided by the count in it, so an integer `dtype` gives the quotient
/// rounded toward zero (`mean([1, 2, 4])` in int32 is 2); the elements are converted first
/// (`mean([1.5, 2.5, 3.7])` in int32 is 2). A bool `dtype` is an error, as in JAX. With a
/// mask, the sum of the elements where it holds divided by their count (NaN where it holds
/// nowhere; -1 in an integer `dtype`, XLA's quotient by zero).
///
/// ```
/// use olympus::numpy::{self as np, ReduceOptions};
/// let x = np::array([[1.0f32, 3.0, 4.0], [5.0, 2.0, 6.0]])?;
/// let m = np::array([[true, false, true], [false, false, false]])?;
/// let r = np::mean_with(&x, Some(&[1]), false, ReduceOptions::new().where_(&m))?;
/// assert_eq!(r.to_vec::<f32>()?[0], 2.5);
/// assert!(r.to_vec::<f32>()?[1].is_nan());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn mean_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("mean_with"; [one x]; [axis, keepdims, options]);
    let func = "mean_with";
    options.only(func, &["dtype"])?;
    if options.dtype == Some(DType::Bool) {
        return Err(Error::dtype(
            func,
            &[DType::Bool],
            "a mean cannot be taken in bool (JAX's division accepts numbers only)",
        ));
    }
    let x = super::asarray(operand(func, 0, x)?)?;
    if let Some(m) = options.mask(func, x.shape())? {
        // JAX's sum over the mask divided by the mask's count, both in the computation
        // dtype (float32 for 16-bit floats unless `dtype` asks for them).
        let result = match options.dtype {
            Some(d) => d,
            None if x.dtype().is_floating() => x.dtype(),
            None => DType::Float32,
        };
        let comp = match (options.dtype, result) {
            (None, DType::Float16 | DType::BFloat16) => DType::Float32,
            _ => result,
        };
        let within = ReduceOptions::new().dtype(comp).where_(&m);
        let s = summed(func, &x, axis, keepdims, &within, ReduceOp::Sum)?;
        let n = sum_with(&m, axis, keepdims, comp)?;
        return div_toward_zero(&s, &n)?.astype(result);
    }
    let Some(d) = options.dtype else {
        return mean(&x, axis, keepdims);
    };
    if matches!(d, DType::Float16 | DType::BFloat16) {
        // JAX computes in `dtype` itself here: the sum rounded to it, then divided by the
        // count converted to it (XLA's product by the rounded reciprocal, as `divide`).
        let (_, axes) = prepare(func, &x, axis)?;
        let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
        let s = summed(
            func,
            &x,
            axis,
            keepdims,
            &ReduceOptions::new().dtype(d),
            ReduceOp::Sum,
        )?;
        return super::divide(&s, count as f64)?.astype(d);
    }
    let (x, axes) = prepare(func, &x, axis)?;
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let comp = d;
    let s = reduce_as(&x, &axes, ReduceOp::Sum, comp)?;
    let m = if comp.is_floating() {
        // As `mean`: XLA turns the division by a constant into a product by its reciprocal.
        super::multiply(&s, f64::from(1.0f32 / count as f32))?.astype(comp)?
    } else {
        // The count wraps into `dtype` as the sum does (JAX converts it with `astype`).
        let n = lax::full(
            s.shape(),
            Literal::from_i64(count as i64, comp),
            Some(s.device()),
        )?;
        div_toward_zero(&s, &n)?
    };
    finish(m.astype(d)?, x.shape(), &axes, keepdims)
}

/// [`nansum`] with JAX's `dtype=`, `initial=` and `where=`: NaNs become zero, then as
/// [`sum_with`].
pub fn nansum_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nansum_with"; [one x]; [axis, keepdims, options]);
    let x = super::asarray(operand("nansum_with", 0, x)?)?;
    summed(
        "nansum_with",
        &nan_as(&x, 0.0)?,
        axis,
        keepdims,
        &options,
        ReduceOp::Sum,
    )
}

/// [`nanprod`] with JAX's `dtype=`, `initial=` and `where=`: NaNs become one, then as
/// [`prod_with`].
pub fn nanprod_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nanprod_with"; [one x]; [axis, keepdims, options]);
    let x = super::asarray(operand("nanprod_with", 0, x)?)?;
    summed(
        "nanprod_with",
        &nan_as(&x, 1.0)?,
        axis,
        keepdims,
        &options,
        ReduceOp::Prod,
    )
}

/// [`nanmean`] with JAX's `dtype=` and `where=` ([`ReduceOptions`]; no `initial`): the
/// NaN-free sum in `dtype` ([`nansum_with`]) divided by the count of non-NaN elements in
/// `dtype` (an integer `dtype` divides rounding toward zero: `nanmean([1.5, NaN, 2.5])` in
/// int32 is `(1 + 2) / 2 = 1`); elements the mask leaves out count as NaN.
pub fn nanmean_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nanmean_with"; [one x]; [axis, keepdims, options]);
    let func = "nanmean_with";
    options.only(func, &["dtype"])?;
    let x = super::asarray(operand(func, 0, x)?)?;
    // Integers and bools hold no NaN: JAX takes their plain mean.
    if !x.dtype().is_floating() {
        return mean_with(&x, axis, keepdims, options);
    }
    // Left out by the mask is left out as a NaN is.
    let x = match options.mask(func, x.shape())? {
        Some(m) => {
            let nan = lax::full(
                x.shape(),
                Literal::from_f64(f64::NAN, x.dtype()),
                Some(x.device()),
            )?;
            lax::select(&m, &x, &nan)?
        }
        None => x,
    };
    let Some(d) = options.dtype else {
        return nanmean(&x, axis, keepdims);
    };
    if d == DType::Bool {
        return Err(Error::dtype(
            func,
            &[d],
            "a mean cannot be taken in bool (JAX's division accepts numbers only)",
        ));
    }
    let s = nansum_with(&x, axis, keepdims, Some(d))?;
    let n = sum_with(
        super::logical_not(super::isnan(&x)?)?,
        axis,
        keepdims,
        Some(d),
    )?;
    div_toward_zero(&s, &n)
}

/// `a / b` as JAX's `lax.div` divides: floats exactly, integers rounding toward zero, and
/// an integer divided by zero is -1 (all ones), as XLA gives it.
fn div_toward_zero(a: &Array, b: &Array) -> Result<Array> {
    use crate::primitive::{BinaryOp, CompareOp};
    if a.dtype().is_floating() {
        return lax::binary(BinaryOp::Div, a, b);
    }
    let c = |v: i64| lax::full(a.shape(), Literal::from_i64(v, a.dtype()), Some(a.device()));
    let zero = c(0)?;
    let by_zero = lax::compare(CompareOp::Eq, b, &zero)?;
    let q = lax::binary(BinaryOp::FloorDiv, a, b)?;
    let q = if a.dtype().is_signed_integer() {
        // Floor division rounds down where the quotient is negative and inexact: one more.
        let negative = lax::binary(
            BinaryOp::Xor,
            &lax::compare(CompareOp::Lt, a, &zero)?,
            &lax::compare(CompareOp::Lt, b, &zero)?,
        )?;
        let inexact = lax::compare(CompareOp::Ne, &lax::binary(BinaryOp::Mul, &q, b)?, a)?;
        let up = lax::binary(BinaryOp::And, &negative, &inexact)?;
        lax::select(&up, &lax::binary(BinaryOp::Add, &q, &c(1)?)?, &q)?
    } else {
        q
    };
    lax::select(&by_zero, &c(-1)?, &q)
}

/// [`cumsum`] with JAX's `dtype=`: the elements are converted to `dtype` and summed in it
/// (integers wrap in `dtype`; a bool running sum is a running or).
pub fn cumsum_with(x: impl ArrayLike, axis: Option<isize>, dtype: Option<DType>) -> Result<Array> {
    overridable!("cumsum_with"; [one x]; [axis, dtype]);
    let x = super::asarray(operand("cumsum_with", 0, x)?)?;
    running_as("cumsum_with", &x, axis, false, dtype)
}

/// [`cumprod`] with JAX's `dtype=`: as [`cumsum_with`], running products in `dtype`.
pub fn cumprod_with(x: impl ArrayLike, axis: Option<isize>, dtype: Option<DType>) -> Result<Array> {
    overridable!("cumprod_with"; [one x]; [axis, dtype]);
    let x = super::asarray(operand("cumprod_with", 0, x)?)?;
    running_as("cumprod_with", &x, axis, true, dtype)
}

/// A running sum or product of `x` converted to `dtype` (when given), in `dtype`: narrow
/// integers run in 32 bits and wrap back, bools run as counts and come back as "any so far"
/// (sums) or "all so far" (products).
fn running_as(
    func: &str,
    x: &Array,
    axis: Option<isize>,
    product: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    let Some(d) = dtype else {
        return running(func, x, axis, product);
    };
    let xd = x.astype(d)?;
    let xs = if d.is_integer() && d.compute_dtype() != d {
        xd.astype(d.compute_dtype())?
    } else {
        xd
    };
    let r = running(func, &xs, axis, product)?;
    if r.dtype() == d {
        Ok(r)
    } else {
        r.astype(d)
    }
}

/// Mean of the non-NaN elements (NaN where all are NaN).
pub fn nanmean(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("nanmean"; [one x]; [axis, keepdims]);
    let (x, axes) = prepare("nanmean", x, axis)?;
    if !x.dtype().is_floating() {
        return mean(&x, axis, keepdims);
    }
    let ax = to_isize(&axes);
    let s = sum(
        nan_as(&x, 0.0)?.astype(DType::Float32)?,
        Some(&ax),
        keepdims,
    )?;
    let n = sum(super::logical_not(super::isnan(&x)?)?, Some(&ax), keepdims)?;
    let m = super::divide(&s, &n)?;
    m.astype(x.dtype())
}

fn nan_extreme(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    is_max: bool,
) -> Result<Array> {
    let (x, axes) = prepare(func, x, axis)?;
    let ax = to_isize(&axes);
    if !x.dtype().is_floating() {
        return if is_max {
            max(&x, Some(&ax), keepdims)
        } else {
            min(&x, Some(&ax), keepdims)
        };
    }
    let fill = if is_max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    let clean = nan_as(&x, fill)?;
    let r = if is_max {
        max(&clean, Some(&ax), keepdims)
    } else {
        min(&clean, Some(&ax), keepdims)
    }
    .map_err(|e| match e {
        Error::ShapeMismatch { shapes, reason, .. } => Error::ShapeMismatch {
            func: func.to_string(),
            shapes,
            reason,
        },
        e => e,
    })?;
    // All-NaN slices give NaN, as in NumPy.
    let all_nan = all(super::isnan(&x)?, Some(&ax), keepdims)?;
    super::r#where(all_nan, f64::NAN, r)
}

/// Maximum ignoring NaN (NaN where every element is NaN). An empty axis is an error.
pub fn nanmax(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("nanmax"; [one x]; [axis, keepdims]);
    nan_extreme("nanmax", x, axis, keepdims, true)
}

/// Minimum ignoring NaN (NaN where every element is NaN). An empty axis is an error.
pub fn nanmin(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("nanmin"; [one x]; [axis, keepdims]);
    nan_extreme("nanmin", x, axis, keepdims, false)
}

/// [`nanmax`] with JAX's `initial=` and `where=` ([`ReduceOptions`]; no `dtype`): NaNs
/// are left out as the mask's elements are, and with `initial` a slice of NaNs gives
/// `initial` (JAX's NaN for it only comes without `initial`). A mask needs `initial`, as
/// in [`max_with`].
pub fn nanmax_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nanmax_with"; [one x]; [axis, keepdims, options]);
    nan_extreme_with("nanmax_with", x, axis, keepdims, true, &options)
}

/// [`nanmin`] with JAX's `initial=` and `where=`, as [`nanmax_with`].
pub fn nanmin_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("nanmin_with"; [one x]; [axis, keepdims, options]);
    nan_extreme_with("nanmin_with", x, axis, keepdims, false, &options)
}

fn nan_extreme_with(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    is_max: bool,
    options: &ReduceOptions,
) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if options.initial.is_none() && options.where_.is_none() {
        options.only(func, &["initial"])?;
        return nan_extreme(func, &x, axis, keepdims, is_max);
    }
    // JAX's `max(where(isnan(x), -inf, x), initial=, where=)`.
    let (op, bool_op, fill) = if is_max {
        (ReduceOp::Max, ReduceOp::Or, f64::NEG_INFINITY)
    } else {
        (ReduceOp::Min, ReduceOp::And, f64::INFINITY)
    };
    extreme_with(
        func,
        nan_as(&x, fill)?,
        axis,
        keepdims,
        op,
        bool_op,
        options,
    )
}

/// Number of non-zero (true; NaN counts) elements over `axis`, as int32.
pub fn count_nonzero(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("count_nonzero"; [one x]; [axis, keepdims]);
    let (x, axes) = prepare("count_nonzero", x, axis)?;
    let b = x.astype(DType::Bool)?.astype(DType::Int32)?;
    let r = lax::reduce(ReduceOp::Sum, &b, &axes)?;
    finish(r, x.shape(), &axes, keepdims)
}

fn running(func: &str, x: impl ArrayLike, axis: Option<isize>, product: bool) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    let (x, ax) = match axis {
        None => (super::ravel(&x)?, 0),
        Some(a) => {
            let ax = crate::shape::normalize_axis(func, a, x.ndim())?;
            (x, ax)
        }
    };
    // bool accumulates in int32, as in NumPy (float16 accumulates in float32 in the
    // primitive, rounded once).
    let x = if x.dtype() == DType::Bool {
        x.astype(DType::Int32)?
    } else {
        x
    };
    if product {
        lax::cumprod(&x, ax, false)
    } else {
        lax::cumsum(&x, ax, false)
    }
}

/// Cumulative sum along `axis` (of the flattened array when `None`); bool counts as int32.
/// Floats add in JAX's order (XLA's 16-element runs, their totals scanned in turn), every
/// addition rounded to the dtype, so results are JAX's bit for bit.
///
/// ```
/// use olympus::numpy as np;
/// assert_eq!(np::cumsum([1, 2, 3, 4], None)?.to_vec::<i32>()?, vec![1, 3, 6, 10]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn cumsum(x: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("cumsum"; [one x]; [axis]);
    running("cumsum", x, axis, false)
}

/// Cumulative product along `axis` (of the flattened array when `None`).
pub fn cumprod(x: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("cumprod"; [one x]; [axis]);
    running("cumprod", x, axis, true)
}

/// Moves `axis` last, applies `f` along the last axis, moves it back.
fn along_last(x: &Array, ax: usize, f: impl FnOnce(&Array) -> Result<Array>) -> Result<Array> {
    let r = x.ndim();
    if ax == r - 1 {
        return f(x);
    }
    let mut perm: Vec<usize> = (0..r).filter(|&i| i != ax).collect();
    perm.push(ax);
    let y = f(&lax::transpose(x, &perm)?)?;
    let mut inv = vec![0; r];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    lax::transpose(&y, &inv)
}

fn sort_impl(
    func: &str,
    x: impl ArrayLike,
    axis: Option<isize>,
    indices: bool,
    descending: bool,
) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    let (x, ax) = match axis {
        None => (super::ravel(&x)?, 0),
        Some(a) => {
            if x.ndim() == 0 {
                return Err(Error::shape(
                    func,
                    &[x.shape()],
                    "cannot sort a 0-d array along an axis",
                ));
            }
            let ax = crate::shape::normalize_axis(func, a, x.ndim())?;
            (x, ax)
        }
    };
    along_last(&x, ax, |y| {
        if !descending {
            return lax::sort(y, indices);
        }
        // JAX's descending order, NaN first: the ascending sort reversed for values (equal
        // elements, such as -0 and +0, in reverse order), and for positions the stable
        // ascending sort of the reversed row, reversed (equal elements in their original
        // order), mapped back from the reversed row.
        let last = [y.ndim() - 1];
        if !indices {
            return lax::rev(&lax::sort(y, false)?, &last);
        }
        let s = lax::rev(&lax::sort(&lax::rev(y, &last)?, true)?, &last)?;
        let n = y.shape()[last[0]] as i32;
        let top = lax::full(s.shape(), Literal::I32(n - 1), Some(s.device()))?;
        lax::binary(lax::BinaryOp::Sub, &top, &s)
    })
}

/// Sorted copy along `axis` (the flattened array when `None`): ascending, stable, NaN
/// last, as NumPy.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[3.0f32, f32::NAN, 1.0], [2.0, -0.0, 0.0]])?;
/// let s = np::sort(&x, Some(-1))?.to_vec::<f32>()?;
/// assert_eq!(&s[..2], &[1.0, 3.0]);
/// assert!(s[2].is_nan());
/// assert_eq!(np::argsort(&x, Some(0))?.to_vec::<i32>()?, vec![1, 1, 1, 0, 0, 0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn sort(x: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("sort"; [one x]; [axis]);
    sort_impl("sort", x, axis, false, false)
}

/// Positions (int32) that sort `x` along `axis` (stable: equal elements keep their
/// order; NaN last). `take_along_axis(x, argsort(x, axis), axis)` is `sort(x, axis)`.
pub fn argsort(x: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("argsort"; [one x]; [axis]);
    sort_impl("argsort", x, axis, true, false)
}

/// [`sort`] with JAX's `descending` and `stable`: descending order puts NaN first. Every
/// Olympus sort is stable, so `stable = false` (any order of equal elements) is met too.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([3.0f32, 1.0, f32::NAN, 2.0])?;
/// let s = np::sort_with(&x, None, true, true)?.to_vec::<f32>()?;
/// assert!(s[0].is_nan());
/// assert_eq!(&s[1..], &[3.0, 2.0, 1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn sort_with(
    x: impl ArrayLike,
    axis: Option<isize>,
    descending: bool,
    stable: bool,
) -> Result<Array> {
    overridable!("sort_with"; [one x]; [axis, descending, stable]);
    sort_impl("sort_with", x, axis, false, descending)
}

/// [`argsort`] with JAX's `descending` and `stable`: descending keeps equal elements in
/// their original order, as JAX's stable descending argsort does (NaN first).
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([3, 1, 3, 2, 1])?;
/// let i = np::argsort_with(&x, None, true, true)?;
/// assert_eq!(i.to_vec::<i32>()?, vec![0, 2, 3, 1, 4]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn argsort_with(
    x: impl ArrayLike,
    axis: Option<isize>,
    descending: bool,
    stable: bool,
) -> Result<Array> {
    overridable!("argsort_with"; [one x]; [axis, descending, stable]);
    sort_impl("argsort_with", x, axis, true, descending)
}

/// Median over `axis` (the middle of the sorted values, or the mean of the two middles);
/// NaN if any element is NaN; integers give float32. An empty axis gives NaN.
///
/// ```
/// use olympus::numpy as np;
/// assert_eq!(np::median([3, 1, 4, 1], None, false)?.item::<f32>()?, 2.0);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn median(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("median"; [one x]; [axis, keepdims]);
    let (x, axes) = prepare("median", x, axis)?;
    let xf = inexact(&x)?;
    let keep: Vec<usize> = (0..x.ndim()).filter(|i| !axes.contains(i)).collect();
    let perm: Vec<usize> = keep.iter().chain(&axes).copied().collect();
    let lead: Vec<usize> = keep.iter().map(|&i| x.shape()[i]).collect();
    let n: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let mut flat = lead.clone();
    flat.push(n);
    let y = lax::reshape(&lax::transpose(&xf, &perm)?, &flat)?;
    let r = if n == 0 {
        lax::full(
            &lead,
            Literal::from_f64(f64::NAN, xf.dtype()),
            Some(x.device()),
        )?
    } else {
        let s = lax::sort(&y, false)?;
        let last = lead.len();
        let pick = |i: usize| -> Result<Array> {
            let mut start = vec![0; last + 1];
            let mut limit = flat.clone();
            start[last] = i;
            limit[last] = i + 1;
            lax::reshape(&lax::slice(&s, &start, &limit, None)?, &lead)
        };
        let mid = if n % 2 == 1 {
            pick(n / 2)?
        } else {
            let (a, b) = (
                pick(n / 2 - 1)?.astype(DType::Float32)?,
                pick(n / 2)?.astype(DType::Float32)?,
            );
            super::multiply(super::add(&a, &b)?, 0.5)?.astype(xf.dtype())?
        };
        // NaN sorts last: a NaN there means the slice has one.
        super::r#where(super::isnan(pick(n - 1)?)?, f64::NAN, &mid)?
    };
    finish(r, x.shape(), &axes, keepdims)
}

/// True when every element is close ([`isclose`](super::isclose)); a 0-d bool array (reduced on the device).
pub fn allclose(
    a: impl ArrayLike,
    b: impl ArrayLike,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<Array> {
    overridable!("allclose"; [one a, one b]; [rtol, atol, equal_nan]);
    super::all(super::isclose(a, b, rtol, atol, equal_nan)?, None, false)
}

/// True when both have the same shape and equal elements (NaN equal to NaN when
/// `equal_nan`); a 0-d bool array (reduced on the device).
pub fn array_equal(a: impl ArrayLike, b: impl ArrayLike, equal_nan: bool) -> Result<Array> {
    overridable!("array_equal"; [one a, one b]; [equal_nan]);
    let a = super::asarray(operand("array_equal", 0, a)?)?;
    let b = super::asarray(operand("array_equal", 1, b)?)?;
    let dev = a.device().clone();
    if a.shape() != b.shape() {
        return Array::from_slice_on(&dev, &[false], &[]);
    }
    let mut eq = super::equal(&a, &b)?;
    if equal_nan {
        eq = super::logical_or(
            eq,
            super::logical_and(super::isnan(&a)?, super::isnan(&b)?)?,
        )?;
    }
    super::all(eq, None, false)
}

/// Same as [`max`] (NumPy's older name).
pub fn amax(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("amax"; [one x]; [axis, keepdims]);
    max(x, axis, keepdims)
}

/// Same as [`min`] (NumPy's older name).
pub fn amin(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("amin"; [one x]; [axis, keepdims]);
    min(x, axis, keepdims)
}

/// Same as [`max_with`].
pub fn amax_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("amax_with"; [one x]; [axis, keepdims, options]);
    let (op, bool_op) = (ReduceOp::Max, ReduceOp::Or);
    extreme_with("amax_with", x, axis, keepdims, op, bool_op, &options)
}

/// Same as [`min_with`].
pub fn amin_with(
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    options: impl Into<ReduceOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("amin_with"; [one x]; [axis, keepdims, options]);
    let (op, bool_op) = (ReduceOp::Min, ReduceOp::And);
    extreme_with("amin_with", x, axis, keepdims, op, bool_op, &options)
}

/// The range of values, `max - min`, over `axis` (all axes when `None`); bool is an error,
/// as `subtract` of bools is.
pub fn ptp(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    overridable!("ptp"; [one x]; [axis, keepdims]);
    let x = super::asarray(operand("ptp", 0, x)?)?;
    super::subtract(max(&x, axis, keepdims)?, min(&x, axis, keepdims)?)
}

/// The Array API's cumulative sum: along `axis` (which only a 1-d input may leave out),
/// in `dtype` when given (the input converts first; by default 8- and 16-bit integers
/// widen to int32 or uint32, as in [`sum`] and JAX, unlike [`cumsum`]), with a leading 0
/// along the axis when `include_initial`. A 0-d input is an error.
pub fn cumulative_sum(
    x: impl ArrayLike,
    axis: Option<isize>,
    dtype: Option<DType>,
    include_initial: bool,
) -> Result<Array> {
    overridable!("cumulative_sum"; [one x]; [axis, dtype, include_initial]);
    cumulative("cumulative_sum", x, axis, dtype, include_initial, false)
}

/// The Array API's cumulative product: as [`cumulative_sum`], with a leading 1.
pub fn cumulative_prod(
    x: impl ArrayLike,
    axis: Option<isize>,
    dtype: Option<DType>,
    include_initial: bool,
) -> Result<Array> {
    overridable!("cumulative_prod"; [one x]; [axis, dtype, include_initial]);
    cumulative("cumulative_prod", x, axis, dtype, include_initial, true)
}

fn cumulative(
    func: &str,
    x: impl ArrayLike,
    axis: Option<isize>,
    dtype: Option<DType>,
    include_initial: bool,
    product: bool,
) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() == 0 {
        return Err(Error::arg(
            func,
            "the input is 0-d (a scalar); a cumulative operation needs at least one axis",
        ));
    }
    let axis = match axis {
        Some(a) => a,
        None if x.ndim() == 1 => 0,
        None => {
            return Err(Error::arg(
                func,
                format!(
                    "the input has rank {}; only a 1-d input may leave `axis` out",
                    x.ndim()
                ),
            ))
        }
    };
    // JAX's cumulative_sum (not cumsum, nor cumulative_prod) widens 8- and 16-bit
    // integers as sum does.
    let dtype = match dtype {
        None if !product && x.dtype().is_integer() => Some(x.dtype().compute_dtype()),
        d => d,
    };
    let r = running_as(func, &x, Some(axis), product, dtype)?;
    if !include_initial {
        return Ok(r);
    }
    let ax = crate::shape::normalize_axis(func, axis, r.ndim())?;
    let mut shape = r.shape().to_vec();
    shape[ax] = 1;
    let initial = super::full(&shape, i32::from(product), Some(r.dtype()))?;
    super::concatenate([initial, r], ax as isize)
}

//! Reductions over no axis (all of them), one, several or negative axes, with keepdims.

use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax::{self, ReduceOp};
use crate::shape::normalize_axes;

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
    // bool sums and products count in int32, as in NumPy and JAX.
    let xs = if x.dtype() == DType::Bool {
        x.astype(DType::Int32)?
    } else {
        x.clone()
    };
    let r = lax::reduce(op, &xs, &axes)?;
    finish(r, x.shape(), &axes, keepdims)
}

/// Sum of elements over `axis` (all axes when `None`); bool counts as int32, float16
/// accumulates in float32, float32 accumulates as a tree. An empty sum is 0.
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
    numeric("sum", x, axis, keepdims, ReduceOp::Sum)
}

/// Product of elements over `axis`; an empty product is 1.
pub fn prod(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
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
    let (x, axes) = prepare(func, x, axis)?;
    if axes.iter().any(|&a| x.shape()[a] == 0) {
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
    finish(r, x.shape(), &axes, keepdims)
}

/// Maximum over `axis`; NaN propagates. Reducing an empty axis is an error.
pub fn max(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    extreme("max", x, axis, keepdims, ReduceOp::Max, ReduceOp::Or)
}

/// Minimum over `axis`; NaN propagates. Reducing an empty axis is an error.
pub fn min(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    extreme("min", x, axis, keepdims, ReduceOp::Min, ReduceOp::And)
}

fn logical(
    func: &str,
    x: impl ArrayLike,
    axis: Option<&[isize]>,
    keepdims: bool,
    op: ReduceOp,
) -> Result<Array> {
    let (x, axes) = prepare(func, x, axis)?;
    let b = if x.dtype() == DType::Bool {
        x.clone()
    } else {
        x.astype(DType::Bool)?
    };
    let r = lax::reduce(op, &b, &axes)?;
    finish(r, x.shape(), &axes, keepdims)
}

/// True where every element over `axis` is true (true for an empty axis).
pub fn all(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    logical("all", x, axis, keepdims, ReduceOp::And)
}

/// True where any element over `axis` is true (false for an empty axis).
pub fn any(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    logical("any", x, axis, keepdims, ReduceOp::Or)
}

/// Arithmetic mean over `axis`; integers and bool average in float32, float16 is summed
/// in float32 and rounded once. The mean of an empty axis is NaN.
pub fn mean(x: impl ArrayLike, axis: Option<&[isize]>, keepdims: bool) -> Result<Array> {
    let (x, axes) = prepare("mean", x, axis)?;
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let out = if x.dtype() == DType::Float16 {
        DType::Float16
    } else {
        DType::Float32
    };
    let xf = if x.dtype() == DType::Float32 {
        x.clone()
    } else {
        x.astype(DType::Float32)?
    };
    let s = lax::reduce(ReduceOp::Sum, &xf, &axes)?;
    let m = super::divide(&s, count as f64)?;
    let m = if out == DType::Float16 {
        m.astype(DType::Float16)?
    } else {
        m
    };
    finish(m, x.shape(), &axes, keepdims)
}

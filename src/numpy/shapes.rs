//! Shape manipulation. Transposes, broadcasts, reversals and reshapes of contiguous arrays
//! are views: new strides and offset over the same buffer, no copy.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::{normalize_axes, normalize_axis};

fn arr(func: &str, x: impl ArrayLike) -> Result<Array> {
    let op = operand(func, 0, x)?;
    super::asarray(op)
}

/// A shape argument: sizes as `isize`, one of them `-1` for a size inferred from the
/// others (NumPy's and JAX's convention: `&[4, -1]`, `&vec![2, -1]`), or an array's own
/// `usize` shape (`y.reshape(x.shape())`; a `Vec<usize>` as `v.as_slice()`). Integer
/// literals infer as `isize`, as only `isize` arrays and vectors take them.
pub trait ShapeArg {
    /// The sizes as `isize` (a size past `isize::MAX` reads as an invalid `-2`).
    fn dims(&self) -> Vec<isize>;
}

impl ShapeArg for &[isize] {
    fn dims(&self) -> Vec<isize> {
        self.to_vec()
    }
}

impl<const N: usize> ShapeArg for &[isize; N] {
    fn dims(&self) -> Vec<isize> {
        self.to_vec()
    }
}

impl ShapeArg for &Vec<isize> {
    fn dims(&self) -> Vec<isize> {
        self.to_vec()
    }
}

impl ShapeArg for &[usize] {
    fn dims(&self) -> Vec<isize> {
        self.iter()
            .map(|&d| isize::try_from(d).unwrap_or(-2))
            .collect()
    }
}

/// Gives `x` a new shape with the same number of elements, in C order; one entry may be
/// -1 and is inferred. A view when `x` is contiguous.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::reshape(np::arange(6)?, &[2, -1])?;
/// assert_eq!(x.shape(), &[2, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn reshape(x: impl ArrayLike, shape: impl ShapeArg) -> Result<Array> {
    let dims = shape.dims();
    let shape: &[isize] = &dims;
    overridable!("reshape"; [one x]; [shape]);
    let x = arr("reshape", x)?;
    let size = x.size();
    let known: usize = shape
        .iter()
        .filter(|&&d| d >= 0)
        .map(|&d| d as usize)
        .product();
    let inferred = shape.iter().filter(|&&d| d == -1).count();
    if inferred > 1 || shape.iter().any(|&d| d < -1) {
        return Err(Error::arg(
            "reshape",
            format!(
                "invalid shape {}: at most one -1 and no other negative sizes",
                crate::error::fmt_tuple(shape)
            ),
        ));
    }
    let new: Vec<usize> = shape
        .iter()
        .map(|&d| {
            if d == -1 {
                size.checked_div(known).unwrap_or(0)
            } else {
                d as usize
            }
        })
        .collect();
    if crate::shape::size_of(&new) != size {
        return Err(Error::arg(
            "reshape",
            format!(
                "cannot reshape {} ({size} elements) into {}",
                crate::error::fmt_shape(x.shape()),
                crate::error::fmt_tuple(shape)
            ),
        ));
    }
    lax::reshape(&x, &new)
}

/// The elements as a 1-D array (a view when contiguous).
pub fn ravel(x: impl ArrayLike) -> Result<Array> {
    overridable!("ravel"; [one x]; []);
    let x = arr("ravel", x)?;
    let n = x.size();
    lax::reshape(&x, &[n])
}

/// Permutes the axes (reverses them when `axes` is `None`). A view.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::reshape(np::arange(6)?, &[2, 3])?;
/// let t = np::transpose(&x, None)?;
/// assert_eq!(t.to_vec::<i32>()?, vec![0, 3, 1, 4, 2, 5]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn transpose(x: impl ArrayLike, axes: Option<&[isize]>) -> Result<Array> {
    overridable!("transpose"; [one x]; [axes]);
    let x = arr("transpose", x)?;
    let perm = match axes {
        None => (0..x.ndim()).rev().collect(),
        Some(a) => {
            if a.len() != x.ndim() {
                return Err(Error::arg(
                    "transpose",
                    format!("axes {a:?} do not match an array of dimension {}", x.ndim()),
                ));
            }
            normalize_axes("transpose", a, x.ndim())?
        }
    };
    lax::transpose(&x, &perm)
}

/// Exchanges two axes. A view.
pub fn swapaxes(x: impl ArrayLike, axis1: isize, axis2: isize) -> Result<Array> {
    overridable!("swapaxes"; [one x]; [axis1, axis2]);
    let x = arr("swapaxes", x)?;
    let a = normalize_axis("swapaxes", axis1, x.ndim())?;
    let b = normalize_axis("swapaxes", axis2, x.ndim())?;
    let mut perm: Vec<usize> = (0..x.ndim()).collect();
    perm.swap(a, b);
    lax::transpose(&x, &perm)
}

/// Moves axes to new positions, keeping the order of the others. A view.
pub fn moveaxis(x: impl ArrayLike, source: &[isize], destination: &[isize]) -> Result<Array> {
    overridable!("moveaxis"; [one x]; [source, destination]);
    let x = arr("moveaxis", x)?;
    if source.len() != destination.len() {
        return Err(Error::arg(
            "moveaxis",
            "source and destination need the same number of axes",
        ));
    }
    let src = normalize_axes("moveaxis", source, x.ndim())?;
    let dst = normalize_axes("moveaxis", destination, x.ndim())?;
    let mut rest: Vec<usize> = (0..x.ndim()).filter(|a| !src.contains(a)).collect();
    let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
    pairs.sort();
    let mut perm = Vec::with_capacity(x.ndim());
    let mut it = pairs.into_iter().peekable();
    for i in 0..x.ndim() {
        match it.peek() {
            Some(&(d, s)) if d == i => {
                perm.push(s);
                it.next();
            }
            _ => perm.push(rest.remove(0)),
        }
    }
    lax::transpose(&x, &perm)
}

/// Inserts length-1 axes at the given positions (of the result). A view.
pub fn expand_dims(x: impl ArrayLike, axis: &[isize]) -> Result<Array> {
    overridable!("expand_dims"; [one x]; [axis]);
    let x = arr("expand_dims", x)?;
    let out_ndim = x.ndim() + axis.len();
    let axes = normalize_axes("expand_dims", axis, out_ndim)?;
    let mut it = x.shape().iter();
    let shape: Vec<usize> = (0..out_ndim)
        .map(|i| {
            if axes.contains(&i) {
                1
            } else {
                *it.next().unwrap_or(&1)
            }
        })
        .collect();
    lax::reshape(&x, &shape)
}

/// Removes length-1 axes (all of them when `axis` is `None`; naming a longer axis is an
/// error). A view.
pub fn squeeze(x: impl ArrayLike, axis: Option<&[isize]>) -> Result<Array> {
    overridable!("squeeze"; [one x]; [axis]);
    let x = arr("squeeze", x)?;
    let axes = match axis {
        None => (0..x.ndim()).filter(|&i| x.shape()[i] == 1).collect(),
        Some(a) => normalize_axes("squeeze", a, x.ndim())?,
    };
    if let Some(&bad) = axes.iter().find(|&&a| x.shape()[a] != 1) {
        return Err(Error::shape(
            "squeeze",
            &[x.shape()],
            format!("cannot squeeze axis {bad} of length {}", x.shape()[bad]),
        ));
    }
    let shape: Vec<usize> = (0..x.ndim())
        .filter(|i| !axes.contains(i))
        .map(|i| x.shape()[i])
        .collect();
    lax::reshape(&x, &shape)
}

/// Broadcasts `x` to `shape` with NumPy's rules. A view.
pub fn broadcast_to(x: impl ArrayLike, shape: &[usize]) -> Result<Array> {
    overridable!("broadcast_to"; [one x]; [shape]);
    let x = arr("broadcast_to", x)?;
    let s = crate::shape::broadcast_shapes_for("broadcast_to", &[x.shape(), shape])?;
    if s != shape {
        return Err(Error::shape(
            "broadcast_to",
            &[x.shape(), shape],
            "the array does not broadcast to this shape",
        ));
    }
    let dims: Vec<usize> = (shape.len() - x.ndim()..shape.len()).collect();
    lax::broadcast_in_dim(&x, shape, &dims)
}

/// Broadcasts several arrays against each other (views).
pub fn broadcast_arrays<T: ArrayLike>(xs: impl IntoIterator<Item = T>) -> Result<Vec<Array>> {
    overridable!("broadcast_arrays"; [list xs]; []);
    let arrays: Vec<Array> = xs
        .into_iter()
        .enumerate()
        .map(|(i, x)| operand("broadcast_arrays", i, x).and_then(super::asarray))
        .collect::<Result<_>>()?;
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let shape = crate::shape::broadcast_shapes_for("broadcast_arrays", &shapes)?;
    arrays.iter().map(|a| broadcast_to(a, &shape)).collect()
}

/// Reverses the order of elements along `axis` (all axes when `None`). A view.
pub fn flip(x: impl ArrayLike, axis: Option<&[isize]>) -> Result<Array> {
    overridable!("flip"; [one x]; [axis]);
    let x = arr("flip", x)?;
    let dims = match axis {
        None => (0..x.ndim()).collect(),
        Some(a) => normalize_axes("flip", a, x.ndim())?,
    };
    lax::rev(&x, &dims)
}

fn atleast(func: &str, x: impl ArrayLike, n: usize) -> Result<Array> {
    let x = arr(func, x)?;
    let shape: Vec<usize> = match (x.ndim(), n) {
        (d, _) if d >= n => return Ok(x),
        (0, 1) => vec![1],
        (0, 2) => vec![1, 1],
        (1, 2) => vec![1, x.shape()[0]],
        (0, 3) => vec![1, 1, 1],
        (1, 3) => vec![1, x.shape()[0], 1],
        (_, _) => vec![x.shape()[0], x.shape()[1], 1],
    };
    lax::reshape(&x, &shape)
}

/// `x` with at least one dimension.
pub fn atleast_1d(x: impl ArrayLike) -> Result<Array> {
    overridable!("atleast_1d"; [one x]; []);
    atleast("atleast_1d", x, 1)
}

/// `x` with at least two dimensions (a 1-D array becomes a row).
pub fn atleast_2d(x: impl ArrayLike) -> Result<Array> {
    overridable!("atleast_2d"; [one x]; []);
    atleast("atleast_2d", x, 2)
}

/// `x` with at least three dimensions (`(n,)` becomes `(1, n, 1)`, `(m, n)` becomes `(m, n, 1)`).
pub fn atleast_3d(x: impl ArrayLike) -> Result<Array> {
    overridable!("atleast_3d"; [one x]; []);
    atleast("atleast_3d", x, 3)
}

/// Permutes the axes as `axes` says (the Array API's [`transpose`] with `axes` given).
pub fn permute_dims(x: impl ArrayLike, axes: &[isize]) -> Result<Array> {
    overridable!("permute_dims"; [one x]; [axes]);
    transpose(x, Some(axes))
}

/// Swaps the last two axes (a stack of matrices, each transposed); fewer than 2 axes is
/// an error.
pub fn matrix_transpose(x: impl ArrayLike) -> Result<Array> {
    overridable!("matrix_transpose"; [one x]; []);
    let x = at_least("matrix_transpose", x, 2)?;
    swapaxes(&x, -1, -2)
}

/// Reverses the columns (axis 1); fewer than 2 axes is an error.
pub fn fliplr(x: impl ArrayLike) -> Result<Array> {
    overridable!("fliplr"; [one x]; []);
    flip(at_least("fliplr", x, 2)?, Some(&[1]))
}

/// Reverses the rows (axis 0); a 0-d input is an error.
pub fn flipud(x: impl ArrayLike) -> Result<Array> {
    overridable!("flipud"; [one x]; []);
    flip(at_least("flipud", x, 1)?, Some(&[0]))
}

/// `x` as an array, or an error naming `func` when it has fewer than `ndim` axes.
pub(super) fn at_least(func: &str, x: impl ArrayLike, ndim: usize) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() < ndim {
        return Err(Error::shape(
            func,
            &[x.shape()],
            format!("the input needs at least {ndim} axes"),
        ));
    }
    Ok(x)
}

//! Grids and index helpers: meshgrid, indices, diagonals, triangle indices, index
//! unravelling and masks.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, IntoParam, Param};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;

/// How [`meshgrid`] orders its outputs' first two axes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Indexing {
    /// Cartesian: the first two axes swapped (NumPy's default).
    #[default]
    Xy,
    /// Matrix: axis `i` follows input `i`.
    Ij,
}

impl IntoParam for Indexing {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

/// Converts each array-like of a list.
fn each<A: ArrayLike>(func: &str, xs: impl IntoIterator<Item = A>) -> Result<Vec<Array>> {
    xs.into_iter()
        .enumerate()
        .map(|(i, x)| super::asarray(operand(func, i, x)?))
        .collect()
}

/// Coordinate grids from 1-d coordinate arrays: output `i` holds input `i`'s values along
/// its axis (axis `i`, or with [`Indexing::Xy`] the first two swapped), broadcast over the
/// others unless `sparse` (then it keeps length 1 there).
///
/// ```
/// use olympus::numpy::{self as np, Indexing};
/// let g = np::meshgrid([np::arange(3)?, np::arange(2)?], false, Indexing::Xy)?;
/// assert_eq!(g[0].shape(), &[2, 3]);
/// assert_eq!(g[0].to_vec::<i32>()?, vec![0, 1, 2, 0, 1, 2]);
/// assert_eq!(g[1].to_vec::<i32>()?, vec![0, 0, 0, 1, 1, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn meshgrid<A: ArrayLike>(
    xi: impl IntoIterator<Item = A>,
    sparse: bool,
    indexing: Indexing,
) -> Result<Vec<Array>> {
    overridable!("meshgrid"; [list xi]; [sparse, indexing]);
    let func = "meshgrid";
    let xs = each(func, xi)?;
    if let Some(x) = xs.iter().find(|x| x.ndim() != 1) {
        return Err(Error::shape(func, &[x.shape()], "each input must be 1-d"));
    }
    let n = xs.len();
    let mut lens: Vec<usize> = xs.iter().map(Array::size).collect();
    let axis_of = |i: usize| match (indexing, i) {
        (Indexing::Xy, 0) if n > 1 => 1,
        (Indexing::Xy, 1) => 0,
        _ => i,
    };
    if indexing == Indexing::Xy && n > 1 {
        lens.swap(0, 1);
    }
    xs.iter()
        .enumerate()
        .map(|(i, x)| {
            let mut s = vec![1; n];
            s[axis_of(i)] = x.size();
            let r = lax::reshape(x, &s)?;
            if sparse {
                Ok(r)
            } else {
                super::broadcast_to(&r, &lens)
            }
        })
        .collect()
}

/// The index grid of `dimensions`: an array of shape `(len(dimensions), *dimensions)`
/// whose slice `i` holds each position's index along axis `i` (int32 by default).
pub fn indices(dimensions: &[usize], dtype: Option<DType>) -> Result<Array> {
    let dtype = dtype.unwrap_or(DType::Int32);
    let grids = index_grids(dimensions, dtype)?;
    if grids.is_empty() {
        return super::zeros(&[0], dtype);
    }
    super::stack(grids, 0)
}

/// One grid per axis of `shape`, holding each position's index along that axis.
pub(super) fn index_grids(shape: &[usize], dtype: DType) -> Result<Vec<Array>> {
    (0..shape.len())
        .map(|i| {
            let mut s = vec![1; shape.len()];
            s[i] = shape[i];
            let r = lax::reshape(&super::arange(0..shape[i] as i32)?, &s)?;
            super::broadcast_to(&r, shape)?.astype(dtype)
        })
        .collect()
}

/// Open index arrays for cross-product indexing: input `i` (1-d) reshaped to length 1 on
/// every axis but `i`.
pub fn ix_<A: ArrayLike>(args: impl IntoIterator<Item = A>) -> Result<Vec<Array>> {
    overridable!("ix_"; [list args]; []);
    let func = "ix_";
    let xs = each(func, args)?;
    let n = xs.len();
    xs.iter()
        .enumerate()
        .map(|(i, x)| {
            if x.ndim() != 1 {
                return Err(Error::shape(func, &[x.shape()], "each input must be 1-d"));
            }
            if x.dtype() == DType::Bool {
                return Err(Error::dtype(
                    func,
                    &[x.dtype()],
                    "boolean inputs are not supported, as in JAX",
                ));
            }
            let mut s = vec![1; n];
            s[i] = x.size();
            if x.size() == 0 {
                // NumPy's (and JAX's) empty index is an integer one, whatever the input.
                return lax::full(&s, crate::primitive::Literal::I32(0), Some(x.device()));
            }
            lax::reshape(x, &s)
        })
        .collect()
}

/// The diagonal `k` of a 2-d array, or a 2-d array with the 1-d `v` on diagonal `k`.
///
/// ```
/// use olympus::numpy as np;
/// let d = np::diag([1, 2], 1)?;
/// assert_eq!(d.to_vec::<i32>()?, vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
/// assert_eq!(np::diag(&d, 1)?.to_vec::<i32>()?, vec![1, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn diag(v: impl ArrayLike, k: isize) -> Result<Array> {
    overridable!("diag"; [one v]; [k]);
    let v = super::asarray(operand("diag", 0, v)?)?;
    diag_of("diag", &v, k)
}

fn diag_of(func: &str, v: &Array, k: isize) -> Result<Array> {
    match v.ndim() {
        2 => super::diagonal(v, k, 0, 1),
        1 => {
            let n = v.size() + k.unsigned_abs();
            let (r, c) = (super::arange(0..n as i32)?, super::arange(0..n as i32)?);
            let on = super::equal(
                super::subtract(lax::reshape(&c, &[1, n])?, lax::reshape(&r, &[n, 1])?)?,
                k as i32,
            )?;
            // Row i holds v[i] (or v[i - |k|] below the main diagonal) where it is on `k`.
            let row = if k >= 0 {
                r.clone()
            } else {
                super::subtract(&r, -k as i32)?
            };
            let vals = super::take_with(
                v,
                lax::reshape(&row, &[n, 1])?,
                None,
                super::IndexMode::Clip,
                None,
            )?;
            super::r#where(on, vals, super::zeros(&[], v.dtype())?)
        }
        _ => Err(Error::shape(func, &[v.shape()], "takes a 1-d or 2-d array")),
    }
}

/// A 2-d array with the flattened `v` on diagonal `k`.
pub fn diagflat(v: impl ArrayLike, k: isize) -> Result<Array> {
    overridable!("diagflat"; [one v]; [k]);
    let v = super::ravel(super::asarray(operand("diagflat", 0, v)?)?)?;
    diag_of("diagflat", &v, k)
}

/// The indices of the main diagonal of an `ndim`-dimensional array of side `n`: `ndim`
/// copies of `0..n`.
pub fn diag_indices(n: usize, ndim: usize) -> Result<Vec<Array>> {
    (0..ndim).map(|_| super::arange(0..n as i32)).collect()
}

/// [`diag_indices`] of `arr`, whose axes must all have one length (at least 2 axes).
pub fn diag_indices_from(arr: impl ArrayLike) -> Result<Vec<Array>> {
    overridable!("diag_indices_from"; [one arr]; []);
    let func = "diag_indices_from";
    let a = super::asarray(operand(func, 0, arr)?)?;
    if a.ndim() < 2 || a.shape().iter().any(|&d| d != a.shape()[0]) {
        return Err(Error::shape(
            func,
            &[a.shape()],
            "needs at least 2 axes, all of one length",
        ));
    }
    diag_indices(a.shape()[0], a.ndim())
}

/// Row and column indices of the elements on and below diagonal `k` of an `n × m` array
/// (`m` defaults to `n`), in row-major order.
pub fn tril_indices(n: usize, k: isize, m: Option<usize>) -> Result<(Array, Array)> {
    tri_indices(n, k, m.unwrap_or(n), true)
}

/// Row and column indices of the elements on and above diagonal `k` of an `n × m` array.
pub fn triu_indices(n: usize, k: isize, m: Option<usize>) -> Result<(Array, Array)> {
    tri_indices(n, k, m.unwrap_or(n), false)
}

fn tri_indices(n: usize, k: isize, m: usize, lower: bool) -> Result<(Array, Array)> {
    // The positions are known from the shape alone: computed on the host.
    let (mut r, mut c) = (Vec::new(), Vec::new());
    for i in 0..n as isize {
        for j in 0..m as isize {
            if (lower && j - i <= k) || (!lower && j - i >= k) {
                r.push(i as i32);
                c.push(j as i32);
            }
        }
    }
    Ok((
        Array::from_slice(&r, &[r.len()])?,
        Array::from_slice(&c, &[c.len()])?,
    ))
}

/// [`tril_indices`] of the 2-d `arr`'s shape.
pub fn tril_indices_from(arr: impl ArrayLike, k: isize) -> Result<(Array, Array)> {
    overridable!("tril_indices_from"; [one arr]; [k]);
    let (n, m) = two_d("tril_indices_from", arr)?;
    tri_indices(n, k, m, true)
}

/// [`triu_indices`] of the 2-d `arr`'s shape.
pub fn triu_indices_from(arr: impl ArrayLike, k: isize) -> Result<(Array, Array)> {
    overridable!("triu_indices_from"; [one arr]; [k]);
    let (n, m) = two_d("triu_indices_from", arr)?;
    tri_indices(n, k, m, false)
}

fn two_d(func: &str, arr: impl ArrayLike) -> Result<(usize, usize)> {
    let a = super::asarray(operand(func, 0, arr)?)?;
    match a.shape() {
        &[n, m] => Ok((n, m)),
        s => Err(Error::shape(func, &[s], "needs a 2-d array")),
    }
}

/// The multi-indices into an array of `shape` of flat `indices` (int32 arrays of
/// `indices`' shape, one per axis). As in JAX, negative indices from `-size` count from
/// the end and others out of range are clamped.
///
/// ```
/// use olympus::numpy as np;
/// let ix = np::unravel_index([5, 1, -1], &[2, 3])?;
/// assert_eq!(ix[0].to_vec::<i32>()?, vec![1, 0, 1]);
/// assert_eq!(ix[1].to_vec::<i32>()?, vec![2, 1, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unravel_index(indices: impl ArrayLike, shape: &[usize]) -> Result<Vec<Array>> {
    overridable!("unravel_index"; [one indices]; [shape]);
    let func = "unravel_index";
    let x = super::asarray(operand(func, 0, indices)?)?;
    if !x.dtype().is_integer() {
        return Err(Error::dtype(func, &[x.dtype()], "indices must be integers"));
    }
    let mut rest = x.clone();
    let mut out = vec![rest.clone(); shape.len()];
    for (i, &s) in shape.iter().enumerate().rev() {
        if s == 0 {
            return Err(Error::shape(
                func,
                &[shape],
                "cannot index into an empty shape",
            ));
        }
        out[i] = super::remainder(&rest, s as i64)?;
        rest = super::floor_divide(&rest, s as i64)?;
    }
    let oob_pos = super::greater(&rest, 0)?;
    let oob_neg = if x.dtype().is_unsigned_integer() {
        super::zeros(&[], DType::Bool)?
    } else {
        super::less(&rest, -1)?
    };
    shape
        .iter()
        .zip(out)
        .map(|(&s, i)| {
            let lo = super::r#where(&oob_neg, 0, &i)?;
            super::r#where(&oob_pos, s as i64 - 1, lo)
        })
        .collect()
}

/// `a` (at least 2-d, all axes of one length unless 2-d) with `val` on its main diagonal;
/// with `wrap`, a tall 2-d array's diagonal restarts every `m + 1` rows. A new array, as
/// JAX's `inplace=False`.
pub fn fill_diagonal(a: impl ArrayLike, val: impl ArrayLike, wrap: bool) -> Result<Array> {
    overridable!("fill_diagonal"; [one a, one val]; [wrap]);
    let func = "fill_diagonal";
    let a = super::asarray(operand(func, 0, a)?)?;
    let val = super::asarray(operand(func, 1, val)?)?;
    if a.ndim() < 2 || (a.ndim() > 2 && a.shape().iter().any(|&d| d != a.shape()[0])) {
        return Err(Error::shape(
            func,
            &[a.shape()],
            "needs a 2-d array, or one whose axes all have one length",
        ));
    }
    // Flat positions of the diagonal: a step of 1 + m + m*m... past each element.
    let shape = a.shape().to_vec();
    let step: usize = (0..shape.len())
        .map(|i| shape[i + 1..].iter().product::<usize>())
        .sum();
    let total = a.size();
    let end = if a.ndim() == 2 && !wrap {
        shape[1].min(shape[0]) * shape[1]
    } else {
        total
    };
    let count = end.div_ceil(step).min(if a.ndim() == 2 && !wrap {
        shape[0].min(shape[1])
    } else {
        usize::MAX
    });
    let pos: Vec<i32> = (0..count)
        .map(|i| (i * step) as i32)
        .filter(|&p| (p as usize) < total)
        .collect();
    let n = pos.len();
    // Not converted first: `at.set` promotes as JAX does (a float `val` puts an int32
    // array through float32).
    let vals = super::resize(super::ravel(&val)?, &[n])?;
    let flat = super::ravel(&a)?
        .at(Array::from_slice(&pos, &[n])?)
        .set(vals)?;
    lax::reshape(&flat, &shape)
}

/// The positions of the non-zero elements of the flattened `a` (int32). With `size` the
/// result has exactly `size` entries, padded with `fill_value` (0 by default); `size` is
/// required under `jit`.
pub fn flatnonzero(
    a: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("flatnonzero"; [one a]; [size, fill_value]);
    let func = "flatnonzero";
    let a = super::asarray(operand(func, 0, a)?)?;
    super::sets::check_positions(func, &a)?;
    let a = super::ravel(a)?;
    let mask = a.astype(DType::Bool)?;
    let pos = super::arange(0..a.size() as i32)?;
    super::sets::compact(func, &pos, &mask, size, Some(fill_value.unwrap_or(0.0)))
}

/// The row and column indices where `mask_func(ones((n, n)), k)` is non-zero (for example
/// [`triu`](super::triu) or [`tril`](super::tril)), in row-major order. With `size` there
/// are exactly `size` of each (padded with 0), as JAX's; without it the count is read back,
/// so under `jit` `size` is required.
pub fn mask_indices(
    n: usize,
    mask_func: impl Fn(&Array, isize) -> Result<Array>,
    k: isize,
    size: Option<usize>,
) -> Result<(Array, Array)> {
    let func = "mask_indices";
    let m = mask_func(&super::ones(&[n, n], DType::Int32)?, k)?;
    if m.shape() != [n, n] {
        return Err(Error::shape(
            func,
            &[m.shape()],
            format!("mask_func must return an ({n}, {n}) array"),
        ));
    }
    let mask = super::ravel(&m)?.astype(DType::Bool)?;
    let pos = super::sets::compact(
        func,
        &super::arange(0..(n * n) as i32)?,
        &mask,
        size,
        Some(0.0),
    )?;
    let n = n.max(1) as i64;
    Ok((super::floor_divide(&pos, n)?, super::remainder(&pos, n)?))
}

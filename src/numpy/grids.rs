//! Grids, index helpers, diagonals, products of shapes, window functions, polynomials and
//! the remaining small arithmetic of `jax.numpy`, built from the existing functions.

use super::floats::inexact_of;
use super::overrides::overridable;
use super::stats::slice_axis;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, IntoParam, Operand, Param};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

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
fn index_grids(shape: &[usize], dtype: DType) -> Result<Vec<Array>> {
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
    let oob_neg = if x.dtype() == DType::UInt32 {
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

/// The Vandermonde matrix of the 1-d `x`: column `j` holds `x ** (n - 1 - j)` (`x ** j`
/// when `increasing`), `n` columns (`len(x)` by default).
pub fn vander(x: impl ArrayLike, n: Option<usize>, increasing: bool) -> Result<Array> {
    overridable!("vander"; [one x]; [n, increasing]);
    let func = "vander";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() != 1 {
        return Err(Error::shape(func, &[x.shape()], "x must be 1-d"));
    }
    let n = n.unwrap_or(x.size());
    let mut p = super::arange(0..n as i32)?;
    if !increasing {
        p = super::flip(&p, None)?;
    }
    if x.dtype() == DType::Bool {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "x must be numeric, as in JAX",
        ));
    }
    let col = lax::reshape(&x, &[x.size(), 1])?;
    super::power(&col, p.astype(x.dtype())?)
}

/// The Kronecker product: blocks of `b` scaled by each element of `a` (the lower-rank
/// operand gains leading axes of length 1).
///
/// ```
/// use olympus::numpy as np;
/// let k = np::kron([1, 10], [1, 2, 3])?;
/// assert_eq!(k.to_vec::<i32>()?, vec![1, 2, 3, 10, 20, 30]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn kron(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("kron"; [one a, one b]; []);
    let func = "kron";
    let v = super::promote_pair(func, a, b, false)?;
    let r = v.0.ndim().max(v.1.ndim());
    let lift = |x: &Array| -> Result<Array> {
        let mut s = vec![1; r - x.ndim()];
        s.extend(x.shape());
        lax::reshape(x, &s)
    };
    let (a, b) = (lift(&v.0)?, lift(&v.1)?);
    // a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...], then merge each (i, j) pair.
    let inter = |x: &Array, first: bool| -> Result<Array> {
        let s: Vec<usize> = x
            .shape()
            .iter()
            .flat_map(|&d| if first { [d, 1] } else { [1, d] })
            .collect();
        lax::reshape(x, &s)
    };
    let p = super::multiply(inter(&a, true)?, inter(&b, false)?)?;
    let out: Vec<usize> = a
        .shape()
        .iter()
        .zip(b.shape())
        .map(|(x, y)| x * y)
        .collect();
    lax::reshape(&p, &out)
}

/// `values` joined after `arr` along `axis` (both flattened when `axis` is `None`).
pub fn append(arr: impl ArrayLike, values: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("append"; [one arr, one values]; [axis]);
    let func = "append";
    let ops: Vec<Operand> = vec![operand(func, 0, arr)?, operand(func, 1, values)?];
    match axis {
        None => {
            let v: Vec<Array> = ops.into_iter().map(super::ravel).collect::<Result<_>>()?;
            super::concatenate(v, 0)
        }
        Some(ax) => super::concatenate(ops, ax),
    }
}

/// An array of `new_shape` filled with `a`'s flattened elements, repeated as often as
/// needed (zeros when `a` is empty).
pub fn resize(a: impl ArrayLike, new_shape: &[usize]) -> Result<Array> {
    overridable!("resize"; [one a]; [new_shape]);
    let a = super::ravel(super::asarray(operand("resize", 0, a)?)?)?;
    let total: usize = new_shape.iter().product();
    if a.size() == 0 {
        return super::zeros(new_shape, a.dtype());
    }
    let reps = total.div_ceil(a.size());
    let t = super::tile(&a, &[reps])?;
    lax::reshape(&slice_axis(&t, 0, 0, total)?, new_shape)
}

/// `a` with `axis` moved to just before position `start` (NumPy's older `moveaxis`).
pub fn rollaxis(a: impl ArrayLike, axis: isize, start: isize) -> Result<Array> {
    overridable!("rollaxis"; [one a]; [axis, start]);
    let func = "rollaxis";
    let a = super::asarray(operand(func, 0, a)?)?;
    let n = a.ndim() as isize;
    let ax = normalize_axis(func, axis, a.ndim())? as isize;
    let s = if start < 0 { start + n } else { start };
    if !(0..=n).contains(&s) {
        return Err(Error::arg(
            func,
            format!("start {start} is out of range for {n} axes"),
        ));
    }
    let dest = if ax < s { s - 1 } else { s };
    super::moveaxis(&a, &[ax], &[dest])
}

/// The slices of `x` along `axis`, as a list of arrays of one dimension less.
pub fn unstack(x: impl ArrayLike, axis: isize) -> Result<Vec<Array>> {
    overridable!("unstack"; [one x]; [axis]);
    let func = "unstack";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() == 0 {
        return Err(Error::shape(func, &[x.shape()], "needs at least one axis"));
    }
    let ax = normalize_axis(func, axis, x.ndim())?;
    let mut shape = x.shape().to_vec();
    shape.remove(ax);
    (0..x.shape()[ax])
        .map(|i| lax::reshape(&slice_axis(&x, ax, i, i + 1)?, &shape))
        .collect()
}

/// True when `a1` and `a2` broadcast together and are equal everywhere (a 0-d bool array;
/// false when the shapes do not broadcast).
pub fn array_equiv(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("array_equiv"; [one a1, one a2]; []);
    let func = "array_equiv";
    let a = super::asarray(operand(func, 0, a1)?)?;
    let b = super::asarray(operand(func, 1, a2)?)?;
    if crate::shape::broadcast_shapes_for(func, &[a.shape(), b.shape()]).is_err() {
        return super::zeros(&[], DType::Bool);
    }
    super::all(super::equal(&a, &b)?, None, false)
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
    let vals = super::resize(super::ravel(&val)?.astype(a.dtype())?, &[n])?;
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

/// `num` numbers spaced evenly on a log scale from `start` to `stop` (both non-zero and of
/// one sign), endpoint included when `endpoint`; float32 unless `dtype` is given. The
/// exponents are exact in f64 and each power is rounded once (JAX's differ by a few ulps).
///
/// ```
/// use olympus::numpy as np;
/// let g = np::geomspace(-2.0, -32.0, 5, false, None)?.to_vec::<f32>()?;
/// for (k, v) in g.iter().enumerate() {
///     let want = -2.0 * 16f64.powf(k as f64 / 5.0);
///     assert!((f64::from(*v) - want).abs() <= 2.0 * f64::from(f32::EPSILON) * want.abs());
/// }
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn geomspace(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    let func = "geomspace";
    if start == 0.0
        || stop == 0.0
        || (start < 0.0) != (stop < 0.0)
        || !start.is_finite()
        || !stop.is_finite()
    {
        return Err(Error::arg(
            func,
            format!("start {start} and stop {stop} must be finite, non-zero and of one sign"),
        ));
    }
    let sign = start.signum();
    let (ls, le) = ((start * sign).log10(), (stop * sign).log10());
    let r = super::multiply(super::logspace(ls, le, num, endpoint, 10.0)?, sign)?;
    r.astype(dtype.unwrap_or(DType::Float32))
}

/// A window of `m` points in float32: `0.5 - 0.5 cos(2πn/(m-1))`-style sums of cosines
/// (`a0 - a1 cos + a2 cos 2`); one point is `[1]`.
fn cosine_window(m: usize, a: [f64; 3]) -> Result<Array> {
    if m <= 1 {
        return super::ones(&[m], DType::Float32);
    }
    let n = super::arange(0..m as i32)?.astype(DType::Float32)?;
    // JAX's order of operations: cos(2πk · n / (M - 1)).
    let cos_k = |k: f64| -> Result<Array> {
        let t = super::multiply(&n, 2.0 * k * std::f64::consts::PI)?;
        super::cos(super::divide(t, (m - 1) as f64)?)
    };
    let w = super::subtract(a[0], super::multiply(cos_k(1.0)?, a[1])?)?;
    if a[2] == 0.0 {
        return Ok(w);
    }
    super::add(w, super::multiply(cos_k(2.0)?, a[2])?)
}

/// The Hamming window of `m` points.
pub fn hamming(m: usize) -> Result<Array> {
    cosine_window(m, [0.54, 0.46, 0.0])
}

/// The Hann window of `m` points.
pub fn hanning(m: usize) -> Result<Array> {
    cosine_window(m, [0.5, 0.5, 0.0])
}

/// The Blackman window of `m` points.
pub fn blackman(m: usize) -> Result<Array> {
    cosine_window(m, [0.42, 0.5, 0.08])
}

/// The Bartlett (triangular) window of `m` points.
pub fn bartlett(m: usize) -> Result<Array> {
    if m <= 1 {
        return super::ones(&[m], DType::Float32);
    }
    let n = super::arange(0..m as i32)?.astype(DType::Float32)?;
    // JAX: 1 - |2n + 1 - M| / (M - 1).
    let d = super::subtract(super::add(super::multiply(&n, 2.0)?, 1.0)?, m as f64)?;
    super::subtract(1.0, super::divide(super::abs(d)?, (m - 1) as f64)?)
}

/// The polynomial with coefficients `p` (highest power first, 1-d or with trailing axes
/// broadcast against `x`) evaluated at `x` by Horner's rule.
///
/// ```
/// use olympus::numpy as np;
/// let y = np::polyval([1, 0, -2], [0, 1, 2, 3])?;
/// assert_eq!(y.to_vec::<i32>()?, vec![-2, -1, 2, 7]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn polyval(p: impl ArrayLike, x: impl ArrayLike) -> Result<Array> {
    overridable!("polyval"; [one p, one x]; []);
    let func = "polyval";
    let (p, x) = super::promote_pair(func, p, x, false)?;
    if p.ndim() == 0 {
        return Err(Error::shape(
            func,
            &[p.shape()],
            "p must have at least one axis",
        ));
    }
    let shape = crate::shape::broadcast_shapes_for(func, &[&p.shape()[1..], x.shape()])?;
    let mut y = super::zeros(&shape, x.dtype())?;
    for k in 0..p.shape()[0] {
        let pk = lax::reshape(&slice_axis(&p, 0, k, k + 1)?, &p.shape()[1..])?;
        y = super::add(super::multiply(&y, &x)?, pk)?;
    }
    Ok(y)
}

/// The sum of two polynomials (1-d coefficient arrays, highest power first).
pub fn polyadd(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("polyadd"; [one a1, one a2]; []);
    poly_combine("polyadd", a1, a2, false)
}

/// The difference of two polynomials (1-d coefficient arrays, highest power first).
pub fn polysub(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("polysub"; [one a1, one a2]; []);
    poly_combine("polysub", a1, a2, true)
}

fn poly_combine(func: &str, a1: impl ArrayLike, a2: impl ArrayLike, sub: bool) -> Result<Array> {
    let v = super::promote_pair(func, a1, a2, false)?;
    let (a, b) = (super::atleast_1d(&v.0)?, super::atleast_1d(&v.1)?);
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "takes 1-d coefficient arrays",
        ));
    }
    let n = a.size().max(b.size());
    let pad = |x: &Array| super::pad(x, &[(n - x.size(), 0)], super::PadMode::Constant(0.0));
    let (a, b) = (pad(&a)?, pad(&b)?);
    if sub {
        super::subtract(a, b)
    } else {
        super::add(a, b)
    }
}

/// The `m`-th derivative of the polynomial `p` (1-d, highest power first).
pub fn polyder(p: impl ArrayLike, m: usize) -> Result<Array> {
    overridable!("polyder"; [one p]; [m]);
    let func = "polyder";
    let p = inexact_of(func, p)?;
    if p.ndim() != 1 {
        return Err(Error::shape(func, &[p.shape()], "p must be 1-d"));
    }
    let n = p.size();
    if m == 0 {
        return Ok(p);
    }
    if m >= n {
        return super::zeros(&[0], p.dtype());
    }
    // JAX: p[:-m] * (prod over j < m of (arange(m, n) - j))[::-1].
    let coeff: Vec<f64> = (m..n)
        .rev()
        .map(|i| (0..m).map(|j| (i - j) as f64).product())
        .collect();
    let c = host_f32(&coeff)?.astype(p.dtype())?;
    super::multiply(slice_axis(&p, 0, 0, n - m)?, c)
}

/// The `m`-th antiderivative of the polynomial `p` (1-d, highest power first), each
/// integration's constant taken from `k` (zeros by default; one value per integration).
pub fn polyint(p: impl ArrayLike, m: usize, k: Option<&[f64]>) -> Result<Array> {
    overridable!("polyint"; [one p]; [m]);
    let func = "polyint";
    let mut p = super::asarray(operand(func, 0, p)?)?;
    if p.ndim() != 1 {
        return Err(Error::shape(func, &[p.shape()], "p must be 1-d"));
    }
    let ks: Vec<f64> = match k {
        None => vec![0.0; m],
        Some(k) if k.len() == 1 => vec![k[0]; m],
        Some(k) if k.len() == m => k.to_vec(),
        Some(k) => {
            return Err(Error::arg(
                func,
                format!("k has {} values for {m} integrations", k.len()),
            ))
        }
    };
    if !p.dtype().is_floating() {
        p = p.astype(DType::Float32)?;
    }
    if m == 0 {
        return Ok(p);
    }
    // JAX: concatenate(p, k) / (prod over j < m of max(1, i - j))[::-1].
    let n = p.size() + m;
    let coeff: Vec<f64> = (0..n)
        .rev()
        .map(|i| (0..m).map(|j| (i as f64 - j as f64).max(1.0)).product())
        .collect();
    let k = host_f32(&ks)?.astype(p.dtype())?;
    let c = host_f32(&coeff)?.astype(p.dtype())?;
    super::true_divide(super::concatenate([p, k], 0)?, c)
}

/// A 1-d float32 array of host values (small exact integers and constants here).
fn host_f32(v: &[f64]) -> Result<Array> {
    let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    Array::from_slice(&v, &[v.len()])
}

/// The cross product of 2- or 3-vectors along `axis` (the last by default) of `a` and `b`
/// (broadcast); two 2-vectors give the scalar z component.
///
/// ```
/// use olympus::numpy as np;
/// let c = np::cross([1, 0, 0], [0, 1, 0], -1)?;
/// assert_eq!(c.to_vec::<i32>()?, vec![0, 0, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn cross(a: impl ArrayLike, b: impl ArrayLike, axis: isize) -> Result<Array> {
    overridable!("cross"; [one a, one b]; [axis]);
    let func = "cross";
    let v = super::promote_pair(func, a, b, false)?;
    let mv = |x: &Array| -> Result<Array> {
        if x.ndim() == 0 {
            return Err(Error::shape(func, &[x.shape()], "needs vectors"));
        }
        let ax = normalize_axis(func, axis, x.ndim())?;
        super::moveaxis(x, &[ax as isize], &[-1])
    };
    let (a, b) = (mv(&v.0)?, mv(&v.1)?);
    let (na, nb) = (a.shape()[a.ndim() - 1], b.shape()[b.ndim() - 1]);
    if !matches!(na, 2 | 3) || !matches!(nb, 2 | 3) {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "the vectors along the axis must have 2 or 3 components",
        ));
    }
    let comp = |x: &Array, i: usize| -> Result<Array> {
        let n = x.shape()[x.ndim() - 1];
        if i >= n {
            return super::zeros(&x.shape()[..x.ndim() - 1], x.dtype());
        }
        let s = slice_axis(x, x.ndim() - 1, i, i + 1)?;
        lax::reshape(&s, &x.shape()[..x.ndim() - 1])
    };
    let (a0, a1, a2) = (comp(&a, 0)?, comp(&a, 1)?, comp(&a, 2)?);
    let (b0, b1, b2) = (comp(&b, 0)?, comp(&b, 1)?, comp(&b, 2)?);
    let m = |x: &Array, y: &Array| super::multiply(x, y);
    let z = super::subtract(m(&a0, &b1)?, m(&a1, &b0)?)?;
    if na == 2 && nb == 2 {
        return Ok(z);
    }
    let x = super::subtract(m(&a1, &b2)?, m(&a2, &b1)?)?;
    let y = super::subtract(m(&a2, &b0)?, m(&a0, &b2)?)?;
    let out = super::stack(super::broadcast_arrays([x, y, z])?, -1)?;
    let ax = if axis < 0 {
        axis
    } else {
        normalize_axis(func, axis, out.ndim())? as isize
    };
    super::moveaxis(&out, &[-1], &[ax])
}

/// The matrix-vector product over the last axes: `x1` `(..., m, n)` times `x2` `(..., n)`
/// gives `(..., m)`, leading axes broadcast.
pub fn matvec(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("matvec"; [one x1, one x2]; []);
    let func = "matvec";
    let a = super::asarray(operand(func, 0, x1)?)?;
    let b = super::asarray(operand(func, 1, x2)?)?;
    if a.ndim() < 2 || b.ndim() < 1 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "needs a matrix and a vector",
        ));
    }
    let r = super::matmul(&a, super::expand_dims(&b, &[-1])?)?;
    super::squeeze(&r, Some(&[-1]))
}

/// The vector-matrix product over the last axes: `x1` `(..., n)` times `x2` `(..., n, m)`
/// gives `(..., m)`, leading axes broadcast.
pub fn vecmat(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("vecmat"; [one x1, one x2]; []);
    let func = "vecmat";
    let a = super::asarray(operand(func, 0, x1)?)?;
    let b = super::asarray(operand(func, 1, x2)?)?;
    if a.ndim() < 1 || b.ndim() < 2 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "needs a vector and a matrix",
        ));
    }
    let r = super::matmul(super::expand_dims(&a, &[-2])?, &b)?;
    super::squeeze(&r, Some(&[-2]))
}

/// The dot product of vectors along `axis` of `x1` and `x2` (broadcast together).
pub fn vecdot(x1: impl ArrayLike, x2: impl ArrayLike, axis: isize) -> Result<Array> {
    overridable!("vecdot"; [one x1, one x2]; [axis]);
    let func = "vecdot";
    let (a, b) = super::promote_pair(func, x1, x2, false)?;
    let check = |x: &Array| normalize_axis(func, axis, x.ndim());
    let (aa, ab) = (check(&a)?, check(&b)?);
    if a.shape()[aa] != b.shape()[ab] {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "the vectors along the axis must have one length",
        ));
    }
    let boolean = a.dtype() == DType::Bool;
    // Bool vectors are summed as int32 and the result converted back.
    let counted = |x: &Array, ax: usize| -> Result<Array> {
        let x = super::moveaxis(x, &[ax as isize], &[-1])?;
        if boolean {
            x.astype(DType::Int32)
        } else {
            Ok(x)
        }
    };
    let (a, b) = (counted(&a, aa)?, counted(&b, ab)?);
    let r = super::matmul(
        super::expand_dims(&a, &[-2])?,
        super::expand_dims(&b, &[-1])?,
    )?;
    let r = super::squeeze(&r, Some(&[-2, -1]))?;
    if boolean {
        r.astype(DType::Bool)
    } else {
        Ok(r)
    }
}

/// [`round`](super::round) under NumPy's other name.
pub fn around(a: impl ArrayLike, decimals: i32) -> Result<Array> {
    overridable!("around"; [one a]; [decimals]);
    super::round(super::asarray(operand("around", 0, a)?)?, decimals)
}

/// The floor quotient and the remainder, `(floor_divide(x1, x2), remainder(x1, x2))`.
pub fn divmod(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("divmod"; [one x1, one x2]; []);
    let func = "divmod";
    let v = super::promote_pair(func, x1, x2, false)?;
    Ok((
        super::floor_divide(&v.0, &v.1)?,
        super::remainder(&v.0, &v.1)?,
    ))
}

/// The fractional and integral parts, `(x - w, w)` with `w` rounded toward zero (as
/// floats).
pub fn modf(x: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("modf"; [one x]; []);
    let x = inexact_of("modf", x)?;
    let whole = super::r#where(
        super::greater_equal(&x, 0.0)?,
        super::floor(&x)?,
        super::ceil(&x)?,
    )?;
    Ok((super::subtract(&x, &whole)?, whole))
}

/// `x1 ** x2` in an inexact dtype (integers and bool promote to float32), as JAX's
/// `float_power` with 64-bit types disabled.
pub fn float_power(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("float_power"; [one x1, one x2]; []);
    let func = "float_power";
    let v = super::promote_pair(func, x1, x2, true)?;
    super::power(&v.0, &v.1)
}

/// The gradient of `f` by second-order central differences inside and first-order ones at
/// the ends, along each of `axis` (all by default), with sample spacing `spacing` (one
/// value for every axis, or one per axis); one array per axis.
pub fn gradient(f: impl ArrayLike, spacing: &[f64], axis: Option<&[isize]>) -> Result<Vec<Array>> {
    overridable!("gradient"; [one f]; [axis]);
    let func = "gradient";
    let a = inexact_of(func, f)?;
    let axes: Vec<usize> = match axis {
        None => (0..a.ndim()).collect(),
        Some(ax) => crate::shape::normalize_axes(func, ax, a.ndim())?,
    };
    let h: Vec<f64> = match spacing.len() {
        0 => vec![1.0; axes.len()],
        1 => vec![spacing[0]; axes.len()],
        n if n == axes.len() => spacing.to_vec(),
        n => {
            return Err(Error::arg(
                func,
                format!("{n} spacings for {} axes", axes.len()),
            ))
        }
    };
    axes.iter()
        .zip(h)
        .map(|(&ax, h)| {
            let n = a.shape()[ax];
            if n < 2 {
                return Err(Error::shape(
                    func,
                    &[a.shape()],
                    format!("axis {ax} needs at least 2 samples"),
                ));
            }
            let s = |lo: usize, hi: usize| slice_axis(&a, ax, lo, hi);
            let upper = super::divide(super::subtract(s(1, 2)?, s(0, 1)?)?, h)?;
            let lower = super::divide(super::subtract(s(n - 1, n)?, s(n - 2, n - 1)?)?, h)?;
            let inner = super::divide(
                super::multiply(super::subtract(s(2, n)?, s(0, n - 2)?)?, 0.5)?,
                h,
            )?;
            super::concatenate([upper, inner, lower], ax as isize)
        })
        .collect()
}

/// `p` with jumps between neighbours along `axis` larger than `discont` (half the period by
/// default) corrected by whole multiples of `period`, as JAX's `unwrap`.
pub fn unwrap(p: impl ArrayLike, discont: Option<f64>, axis: isize, period: f64) -> Result<Array> {
    overridable!("unwrap"; [one p]; [discont, axis, period]);
    let func = "unwrap";
    let p = super::asarray(operand(func, 0, p)?)?;
    let ax = normalize_axis(func, axis, p.ndim().max(1))?;
    if p.ndim() == 0 {
        return Err(Error::shape(func, &[p.shape()], "needs at least one axis"));
    }
    if p.shape()[ax] == 0 {
        return Ok(p);
    }
    // JAX promotes p with the (weak float) period: integers and bool become float32.
    let p = if p.dtype().is_floating() {
        p
    } else {
        p.astype(DType::Float32)?
    };
    let interval = period / 2.0;
    let discont = discont.unwrap_or(period / 2.0);
    let dd = super::diff(&p, 1, ax as isize, None, None)?;
    let ddmod = super::subtract(super::r#mod(super::add(&dd, interval)?, period)?, interval)?;
    let edge = super::logical_and(super::equal(&ddmod, -interval)?, super::greater(&dd, 0)?)?;
    let ddmod = super::r#where(edge, interval, ddmod)?;
    let correct = super::r#where(
        super::less(super::abs(&dd)?, discont)?,
        0,
        super::subtract(&ddmod, &dd)?,
    )?;
    let n = p.shape()[ax];
    let rest = super::add(
        slice_axis(&p, ax, 1, n)?,
        super::cumsum(correct, Some(ax as isize))?,
    )?;
    super::concatenate(
        [slice_axis(&p, ax, 0, 1)?, rest.astype(p.dtype())?],
        ax as isize,
    )
}

/// Which part of a full convolution [`convolve`] and [`correlate`] return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvMode {
    /// Every overlap: `len(a) + len(v) - 1` values.
    Full,
    /// `max(len(a), len(v))` values centred on the full result.
    Same,
    /// Only complete overlaps: `max - min + 1` values.
    Valid,
}

impl IntoParam for ConvMode {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

/// The discrete convolution of two 1-d arrays (inexact: integers promote to float32).
///
/// ```
/// use olympus::numpy::{self as np, ConvMode};
/// let c = np::convolve([1.0f32, 2.0, 3.0], [0.0f32, 1.0, 0.5], ConvMode::Full)?;
/// assert_eq!(c.to_vec::<f32>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn convolve(a: impl ArrayLike, v: impl ArrayLike, mode: ConvMode) -> Result<Array> {
    overridable!("convolve"; [one a, one v]; [mode]);
    conv("convolve", a, v, mode, false)
}

/// The cross-correlation of two 1-d arrays: `c[k] = Σ a[n + k] · v[n]`.
pub fn correlate(a: impl ArrayLike, v: impl ArrayLike, mode: ConvMode) -> Result<Array> {
    overridable!("correlate"; [one a, one v]; [mode]);
    conv("correlate", a, v, mode, true)
}

/// JAX's `_conv`: the longer operand slides under the (flipped, for a convolution)
/// shorter one. Each output is a row of gathered, zero-padded windows times the kernel,
/// one matrix-vector product.
fn conv(
    func: &str,
    a: impl ArrayLike,
    v: impl ArrayLike,
    mode: ConvMode,
    correlate: bool,
) -> Result<Array> {
    let (mut x, mut y) = super::promote_pair(func, a, v, true)?;
    if x.ndim() != 1 || y.ndim() != 1 {
        return Err(Error::shape(
            func,
            &[x.shape(), y.shape()],
            "takes 1-d arrays",
        ));
    }
    if x.size() == 0 || y.size() == 0 {
        return Err(Error::shape(
            func,
            &[x.shape(), y.shape()],
            "inputs cannot be empty",
        ));
    }
    let mut reverse = false;
    if x.size() < y.size() {
        std::mem::swap(&mut x, &mut y);
        reverse = correlate;
    }
    if !correlate {
        y = super::flip(&y, None)?;
    }
    let (n, m) = (x.size(), y.size());
    let (lo, hi) = match mode {
        ConvMode::Valid => (0, 0),
        ConvMode::Same => (m / 2, m - m / 2 - 1),
        ConvMode::Full => (m - 1, m - 1),
    };
    let out = n + lo + hi + 1 - m;
    // Window i reads x[i - lo + j] for j in 0..m (zero outside).
    let i = lax::reshape(&super::arange(0..out as i32)?, &[out, 1])?;
    let j = lax::reshape(&super::arange(0..m as i32)?, &[1, m])?;
    let at = super::subtract(super::add(i, j)?, lo as i64)?;
    let inside = super::logical_and(super::greater_equal(&at, 0)?, super::less(&at, n as i64)?)?;
    let read = super::take_with(&x, &at, None, super::IndexMode::Clip, None)?;
    let windows = super::r#where(inside, read, super::zeros(&[], x.dtype())?)?;
    let r = super::matmul(windows, &y)?;
    if reverse {
        super::flip(&r, None)
    } else {
        Ok(r)
    }
}

/// The product of two polynomials (1-d coefficient arrays, highest power first; inexact,
/// as JAX's).
pub fn polymul(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("polymul"; [one a1, one a2]; []);
    let func = "polymul";
    let v = super::promote_pair(func, a1, a2, false)?;
    let (a, b) = (super::atleast_1d(&v.0)?, super::atleast_1d(&v.1)?);
    if a.size() == 0 || b.size() == 0 {
        return super::zeros(&[0], DType::Float32);
    }
    // As JAX's, through the convolution: integers promote to float32.
    conv(func, &a, &b, ConvMode::Full, false)
}

/// The quotient and remainder of polynomial division `u / v` (1-d coefficient arrays,
/// highest power first, in an inexact dtype).
pub fn polydiv(u: impl ArrayLike, v: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("polydiv"; [one u, one v]; []);
    let func = "polydiv";
    let ops = super::promote_pair(func, u, v, true)?;
    let (mut u, v) = (super::atleast_1d(&ops.0)?, super::atleast_1d(&ops.1)?);
    if u.ndim() != 1 || v.ndim() != 1 || v.size() == 0 {
        return Err(Error::shape(
            func,
            &[u.shape(), v.shape()],
            "takes 1-d coefficient arrays, v non-empty",
        ));
    }
    let (m, n) = (u.size() as isize - 1, v.size() as isize - 1);
    let scale = super::true_divide(1.0, slice_axis(&v, 0, 0, 1)?)?;
    let mut q = super::zeros(&[(m - n + 1).max(1) as usize], u.dtype())?;
    for k in 0..(m - n + 1).max(0) as usize {
        let d = super::multiply(&scale, slice_axis(&u, 0, k, k + 1)?)?;
        q = q.at(k as isize).set(lax::reshape(&d, &[])?)?;
        let sub = super::multiply(super::negative(&d)?, &v)?;
        let mid = super::add(slice_axis(&u, 0, k, k + n as usize + 1)?, sub)?;
        u = super::concatenate(
            [
                slice_axis(&u, 0, 0, k)?,
                mid,
                slice_axis(&u, 0, k + n as usize + 1, u.size())?,
            ],
            0,
        )?;
    }
    Ok((q, u))
}

/// The coefficients (highest power first) of the monic polynomial with the 1-d
/// `seq_of_zeros` as roots. (A square matrix's characteristic polynomial needs its
/// eigenvalues and comes with the linear-algebra module.)
pub fn poly(seq_of_zeros: impl ArrayLike) -> Result<Array> {
    overridable!("poly"; [one seq_of_zeros]; []);
    let func = "poly";
    let z = inexact_of(func, seq_of_zeros)?;
    if z.ndim() > 1 {
        return Err(Error::shape(
            func,
            &[z.shape()],
            "takes 1-d roots (matrices need linalg.eigvals)",
        ));
    }
    let z = super::atleast_1d(&z)?;
    let mut a = super::ones(&[1], z.dtype())?;
    for k in 0..z.size() {
        let root = super::negative(slice_axis(&z, 0, k, k + 1)?)?;
        let factor = super::concatenate([super::ones(&[1], z.dtype())?, root], 0)?;
        a = conv(func, &a, &factor, ConvMode::Full, false)?;
    }
    Ok(a)
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

/// `func1d` applied to every 1-d slice of `arr` along `axis` (through [`vmap`]); the
/// function's output axes replace `axis`.
///
/// [`vmap`]: crate::vmap
pub fn apply_along_axis(
    func1d: impl Fn(&Array) -> Result<Array>,
    axis: isize,
    arr: impl ArrayLike,
) -> Result<Array> {
    overridable!("apply_along_axis"; [one arr]; [axis]);
    let func = "apply_along_axis";
    let a = super::asarray(operand(func, 0, arr)?)?;
    if a.ndim() == 0 {
        return Err(Error::shape(func, &[a.shape()], "needs at least one axis"));
    }
    let ax = normalize_axis(func, axis, a.ndim())?;
    let moved = super::moveaxis(&a, &[ax as isize], &[-1])?;
    let lead: Vec<usize> = moved.shape()[..a.ndim() - 1].to_vec();
    let rows = lax::reshape(&moved, &[lead.iter().product(), a.shape()[ax]])?;
    let f = crate::vmap(|row: Array| func1d(&row), 0, 0);
    let r = f(rows)?;
    let out: Vec<usize> = r.shape()[1..].to_vec();
    let r = lax::reshape(&r, &[&lead[..], &out[..]].concat())?;
    // The output axes sit where `axis` was.
    let src: Vec<isize> = (lead.len()..lead.len() + out.len())
        .map(|d| d as isize)
        .collect();
    let dst: Vec<isize> = (ax..ax + out.len()).map(|d| d as isize).collect();
    super::moveaxis(&r, &src, &dst)
}

/// `func(a, axis)` applied for each of `axes` in turn, each result kept at the input's rank
/// (a reduced axis comes back with length 1).
pub fn apply_over_axes(
    func: impl Fn(&Array, isize) -> Result<Array>,
    a: impl ArrayLike,
    axes: &[isize],
) -> Result<Array> {
    overridable!("apply_over_axes"; [one a]; [axes]);
    let name = "apply_over_axes";
    let mut a = super::asarray(operand(name, 0, a)?)?;
    for &ax in axes {
        let r = func(&a, ax)?;
        a = if r.ndim() == a.ndim() {
            r
        } else if r.ndim() + 1 == a.ndim() {
            super::expand_dims(&r, &[ax])?
        } else {
            return Err(Error::shape(
                name,
                &[a.shape(), r.shape()],
                "func must keep the rank or drop the one axis",
            ));
        };
    }
    Ok(a)
}

/// An array of `shape` whose element at each index is `function` of the index arrays (one
/// int32 grid per axis, converted to `dtype`, float32 by default).
pub fn fromfunction(
    function: impl Fn(&[Array]) -> Result<Array>,
    shape: &[usize],
    dtype: Option<DType>,
) -> Result<Array> {
    let grids = index_grids(shape, dtype.unwrap_or(DType::Float32))?;
    function(&grids)
}

/// A 1-d array of the first `count` items of `iter` (all of them by default).
pub fn fromiter<T: crate::dtype::Element>(
    iter: impl IntoIterator<Item = T>,
    count: Option<usize>,
) -> Result<Array> {
    let v: Vec<T> = match count {
        Some(n) => {
            let v: Vec<T> = iter.into_iter().take(n).collect();
            if v.len() < n {
                return Err(Error::arg(
                    "fromiter",
                    format!("the iterator ended after {} of {n} items", v.len()),
                ));
            }
            v
        }
        None => iter.into_iter().collect(),
    };
    Array::from_slice(&v, &[v.len()])
}

/// A 1-d array of `dtype` read from little-endian `buffer` bytes, from byte `offset`,
/// `count` elements (all that fit by default); bool is one byte per element.
pub fn frombuffer(
    buffer: &[u8],
    dtype: DType,
    count: Option<usize>,
    offset: usize,
) -> Result<Array> {
    let func = "frombuffer";
    let size = dtype.itemsize();
    let avail = buffer.len().checked_sub(offset).ok_or_else(|| {
        Error::arg(
            func,
            format!(
                "offset {offset} is past the buffer's {} bytes",
                buffer.len()
            ),
        )
    })?;
    let n = match count {
        Some(n) if n.checked_mul(size).is_none_or(|b| b > avail) => {
            return Err(Error::arg(
                func,
                format!("{n} elements of {dtype} need more than the {avail} bytes left"),
            ))
        }
        Some(n) => n,
        None if avail % size != 0 => {
            return Err(Error::arg(
                func,
                format!("{avail} bytes are not a whole number of {dtype} elements"),
            ))
        }
        None => avail / size,
    };
    let b = &buffer[offset..offset + n * size];
    // Each element from its little-endian bytes.
    fn parse<T: crate::dtype::Element, const N: usize>(
        b: &[u8],
        n: usize,
        f: fn([u8; N]) -> T,
    ) -> Result<Array> {
        let v: Vec<T> = b
            .chunks_exact(N)
            .map(|w| f(w.try_into().unwrap_or([0; N])))
            .collect();
        Array::from_slice(&v, &[n])
    }
    match dtype {
        DType::Bool => parse(b, n, |[x]: [u8; 1]| x != 0),
        DType::Int32 => parse(b, n, i32::from_le_bytes),
        DType::UInt32 => parse(b, n, u32::from_le_bytes),
        DType::Float32 => parse(b, n, f32::from_le_bytes),
        DType::Float16 => parse(b, n, half::f16::from_le_bytes),
        DType::BFloat16 => parse(b, n, half::bf16::from_le_bytes),
        DType::Int8 => parse(b, n, i8::from_le_bytes),
        DType::UInt8 => parse(b, n, u8::from_le_bytes),
        DType::Int16 => parse(b, n, i16::from_le_bytes),
        DType::UInt16 => parse(b, n, u16::from_le_bytes),
    }
}

/// [`frombuffer`] of a file's bytes (raw little-endian data, as NumPy's `tofile` writes).
pub fn fromfile(
    path: impl AsRef<std::path::Path>,
    dtype: DType,
    count: Option<usize>,
    offset: usize,
) -> Result<Array> {
    let p = path.as_ref();
    let bytes =
        std::fs::read(p).map_err(|e| Error::arg("fromfile", format!("{}: {e}", p.display())))?;
    frombuffer(&bytes, dtype, count, offset).map_err(|e| match e {
        Error::InvalidArgument { reason, .. } => {
            Error::arg("fromfile", format!("{}: {reason}", p.display()))
        }
        e => e,
    })
}

/// `f` (a function of 0-d arrays) made to work elementwise on arrays: the arguments are
/// broadcast together, `f` is mapped over every element with [`vmap`](crate::vmap), and
/// the results take the broadcast shape (followed by any axes of `f`'s own result).
///
/// ```
/// use olympus::numpy as np;
/// let clamp_sq = np::vectorize(|v: &[olympus::Array]| {
///     let s = np::multiply(&v[0], &v[0])?;
///     np::minimum(s, &v[1])
/// });
/// let r = clamp_sq(&[np::array([1.0f32, 2.0, 3.0])?, np::asarray(5.0f32)?])?;
/// assert_eq!(r.to_vec::<f32>()?, vec![1.0, 4.0, 5.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn vectorize<F>(f: F) -> impl Fn(&[Array]) -> Result<Array>
where
    F: Fn(&[Array]) -> Result<Array>,
{
    move |args: &[Array]| {
        let func = "vectorize";
        let b = super::broadcast_arrays(args.to_vec())?;
        let shape = b.first().map_or_else(Vec::new, |x| x.shape().to_vec());
        let n: usize = shape.iter().product();
        if n == 0 {
            // The result's own axes and dtype come from one call on zeros.
            let probe: Vec<Array> = b
                .iter()
                .map(|x| super::zeros(&[], x.dtype()))
                .collect::<Result<_>>()?;
            let r = f(&probe)?;
            return super::zeros(&[&shape[..], r.shape()].concat(), r.dtype());
        }
        let flat: Vec<Array> = b.iter().map(super::ravel).collect::<Result<_>>()?;
        let mapped = crate::vmap(|xs: Vec<Array>| f(&xs), 0, 0);
        let r = mapped(flat).map_err(|e| match e {
            Error::InvalidArgument { reason, .. } => Error::arg(func, reason),
            e => e,
        })?;
        lax::reshape(&r, &[&shape[..], &r.shape()[1..]].concat())
    }
}

/// The modified Bessel function of the first kind of order 0, as JAX computes it:
/// `exp(|x|) · i0e(|x|)`, with Cephes' float32 Chebyshev series for `i0e` (float16 in
/// float32, rounded once).
///
/// ```
/// use olympus::numpy as np;
/// let v = np::i0([0.0f32, 1.0])?.to_vec::<f32>()?;
/// assert!((v[0] - 1.0).abs() < 1e-6); // 1.0000001, as JAX's series gives
/// assert!((v[1] - 1.266_065_9).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn i0(x: impl ArrayLike) -> Result<Array> {
    overridable!("i0"; [one x]; []);
    let x = inexact_of("i0", x)?;
    let ax = super::abs(&x)?;
    super::multiply(super::exp(&ax)?, i0e(&ax)?.astype(x.dtype())?)
}

/// Cephes' float32 `i0e` of `|x|` (JAX's `bessel_i0e`), in float32. The coefficients are
/// Cephes' digits as JAX lists them (each rounds to float32 before use).
#[allow(clippy::excessive_precision)]
fn i0e(x: &Array) -> Result<Array> {
    const A: [f64; 18] = [
        -1.300_025_009_986_248_042_12E-8,
        6.046_995_022_541_918_949_32E-8,
        -2.670_793_853_940_611_733_91E-7,
        1.117_387_539_120_103_718_15E-6,
        -4.416_738_358_458_750_563_59E-6,
        1.644_844_807_072_889_708_93E-5,
        -5.754_195_010_082_103_703_98E-5,
        1.885_028_850_958_416_557_29E-4,
        -5.763_755_745_385_823_658_85E-4,
        1.639_475_616_941_335_798_42E-3,
        -4.324_309_995_050_575_944_30E-3,
        1.054_646_039_459_499_831_83E-2,
        -2.373_741_480_589_946_881_56E-2,
        4.930_528_423_967_070_848_78E-2,
        -9.490_109_704_804_764_442_10E-2,
        1.716_209_015_222_087_753_49E-1,
        -3.046_826_723_431_983_986_83E-1,
        6.767_952_744_094_760_849_95E-1,
    ];
    const B: [f64; 7] = [
        3.396_232_025_708_386_345_15E-9,
        2.266_668_990_498_178_064_59E-8,
        2.048_918_589_469_063_741_83E-7,
        2.891_370_520_834_756_482_97E-6,
        6.889_758_346_916_823_984_26E-5,
        3.369_116_478_255_694_089_90E-3,
        8.044_904_110_141_088_316_08E-1,
    ];
    // Clenshaw's recurrence, as JAX's `evaluate_chebyshev_polynomial`: (b0, b1, b2), with
    // `t·b1 - b2` as one fused multiply-add, the contraction XLA's CPU backend makes.
    let chebyshev = |t: &Array, coeffs: &[f64]| -> Result<Array> {
        let zero = super::zeros(t.shape(), DType::Float32)?;
        let mut b = (zero.clone(), zero.clone(), zero);
        for &c in coeffs {
            let tb = lax::bind(
                lax::Primitive::Fma,
                &[t, &b.0, &super::negative(&b.1)?],
                None,
            )?;
            b = (super::add(tb, c as f32 as f64)?, b.0, b.1);
        }
        super::multiply(super::subtract(&b.0, &b.2)?, 0.5)
    };
    let x = super::abs(x.astype(DType::Float32)?)?;
    let low = chebyshev(&super::subtract(super::multiply(&x, 0.5)?, 2.0)?, &A)?;
    let high = super::divide(
        chebyshev(&super::subtract(super::divide(32.0, &x)?, 2.0)?, &B)?,
        super::sqrt(&x)?,
    )?;
    super::r#where(super::less_equal(&x, 8.0)?, low, high)
}

/// The Kaiser window of `m` points with shape parameter `beta`, in float32.
pub fn kaiser(m: usize, beta: f64) -> Result<Array> {
    if m <= 1 {
        return super::ones(&[m], DType::Float32);
    }
    let n = super::arange(0..m as i32)?.astype(DType::Float32)?;
    let alpha = 0.5 * (m - 1) as f64;
    let r = super::divide(super::subtract(&n, alpha)?, alpha)?;
    let arg = super::multiply(
        super::sqrt(super::subtract(1.0, super::multiply(&r, &r)?)?)?,
        beta,
    )?;
    let b = super::full(&[], beta, Some(DType::Float32))?;
    super::divide(i0(arg)?, i0(b)?)
}

/// The order of bits within a byte for [`packbits`] and [`unpackbits`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BitOrder {
    /// The first element is the byte's most significant bit (NumPy's default).
    #[default]
    Big,
    /// The first element is the byte's least significant bit.
    Little,
}

impl IntoParam for BitOrder {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

/// The eight bit weights of a byte in `order`, as uint32.
fn byte_weights(order: BitOrder) -> Result<Array> {
    let w: Vec<u32> = (0..8)
        .map(|i| match order {
            BitOrder::Big => 128 >> i,
            BitOrder::Little => 1 << i,
        })
        .collect();
    Array::from_slice(&w, &[8])
}

/// `x` (the whole array flattened when `axis` is `None`) with the chosen axis moved last,
/// and that axis.
fn axis_last(func: &str, x: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((super::ravel(x)?, 0)),
        Some(a) => {
            let a = normalize_axis(func, a, x.ndim())?;
            Ok((super::moveaxis(x, &[a as isize], &[-1])?, a))
        }
    }
}

/// Packs the truth of each element of an integer or bool array into the bits of uint8
/// bytes along `axis` (the flattened array by default), eight elements a byte, the last
/// byte padded with zeros (`np.packbits`).
///
/// ```
/// use olympus::numpy as np;
/// let b = np::packbits(np::asarray(vec![1u8, 0, 1, 1, 0, 0, 0, 1, 1])?, None, np::BitOrder::Big)?;
/// assert_eq!(b.to_vec::<u8>()?, vec![177, 128]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn packbits(x: impl ArrayLike, axis: Option<isize>, bitorder: BitOrder) -> Result<Array> {
    overridable!("packbits"; [one x]; [axis, bitorder]);
    let func = "packbits";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.dtype().is_floating() {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "packs integer or bool arrays",
        ));
    }
    let (m, a) = axis_last(func, &x, axis)?;
    let r = m.ndim();
    let n = m.shape()[r - 1];
    let bytes = n.div_ceil(8);
    let bits = super::not_equal(&m, 0)?.astype(DType::UInt32)?;
    let mut pad = vec![(0, 0); r];
    pad[r - 1] = (0, bytes * 8 - n);
    let bits = super::pad(&bits, &pad, super::PadMode::Constant(0.0))?;
    let mut shape = m.shape()[..r - 1].to_vec();
    shape.extend([bytes, 8]);
    let weighted = super::multiply(lax::reshape(&bits, &shape)?, byte_weights(bitorder)?)?;
    let packed = super::sum(&weighted, Some(&[-1]), false)?.astype(DType::UInt8)?;
    match axis {
        None => Ok(packed),
        Some(_) => super::moveaxis(&packed, &[-1], &[a as isize]),
    }
}

/// Unpacks each uint8 byte into its eight bits along `axis` (the flattened array by
/// default), keeping the first `count` bits (all of them by default; a negative count
/// drops that many from the end, a count past the end pads with zeros) (`np.unpackbits`).
///
/// ```
/// use olympus::numpy as np;
/// let b = np::unpackbits(np::asarray(vec![177u8])?, None, None, np::BitOrder::Little)?;
/// assert_eq!(b.to_vec::<u8>()?, vec![1, 0, 0, 0, 1, 1, 0, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unpackbits(
    x: impl ArrayLike,
    axis: Option<isize>,
    count: Option<isize>,
    bitorder: BitOrder,
) -> Result<Array> {
    overridable!("unpackbits"; [one x]; [axis, count, bitorder]);
    let func = "unpackbits";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.dtype() != DType::UInt8 {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "unpacks uint8 arrays (convert with astype first)",
        ));
    }
    let (m, a) = axis_last(func, &x, axis)?;
    let r = m.ndim();
    let n = m.shape()[r - 1] * 8;
    let mut shape = m.shape().to_vec();
    shape.push(1);
    let words = lax::reshape(&m.astype(DType::UInt32)?, &shape)?;
    let bits = super::bitwise_and(super::floor_divide(&words, byte_weights(bitorder)?)?, 1)?;
    shape.pop();
    shape[r - 1] = n;
    let bits = lax::reshape(&bits, &shape)?;
    let keep = match count {
        None => n,
        Some(c) if c < 0 => n.saturating_sub(c.unsigned_abs()),
        Some(c) => c as usize,
    };
    let bits = if keep <= n {
        slice_axis(&bits, r - 1, 0, keep)?
    } else {
        let mut pad = vec![(0, 0); r];
        pad[r - 1] = (0, keep - n);
        super::pad(&bits, &pad, super::PadMode::Constant(0.0))?
    };
    let bits = bits.astype(DType::UInt8)?;
    match axis {
        None => Ok(bits),
        Some(_) => super::moveaxis(&bits, &[-1], &[a as isize]),
    }
}

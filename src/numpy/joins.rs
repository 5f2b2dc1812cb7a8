//! Joining, splitting, tiling, rolling and padding arrays, and triangles.
//!
//! Joins are one `concatenate` kernel (operands read in place, views included); splits are
//! views; tiles and repeats are broadcasts copied once; rolls join two views.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, Operand};
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::lax;
use crate::primitive::{CompareOp, Literal};
use crate::shape::normalize_axis;

/// Converts a sequence of array-likes and promotes them to one dtype (no broadcasting).
fn promoted<A: ArrayLike>(func: &str, arrays: impl IntoIterator<Item = A>) -> Result<Vec<Array>> {
    promoted_as(func, arrays, None)
}

/// [`promoted`], or with `dtype` each converted to it on its own (JAX's joins'
/// `dtype=`: `asarray(x, dtype=dtype)` for each).
fn promoted_as<A: ArrayLike>(
    func: &str,
    arrays: impl IntoIterator<Item = A>,
    dtype: Option<DType>,
) -> Result<Vec<Array>> {
    let ops: Vec<Operand> = arrays
        .into_iter()
        .enumerate()
        .map(|(i, a)| operand(func, i, a))
        .collect::<Result<_>>()?;
    if ops.is_empty() {
        return Err(Error::arg(func, "needs at least one array"));
    }
    match dtype {
        None => super::promote(func, ops, false),
        Some(d) => ops
            .into_iter()
            .map(|o| super::asarray(o)?.astype(d))
            .collect(),
    }
}

/// Joins arrays along an existing axis (negative counts from the end). The arrays are
/// promoted to one dtype and must have equal shapes except along `axis`.
///
/// ```
/// use olympus::numpy as np;
/// let a = np::array([[1, 2], [3, 4]])?;
/// let b = np::array([[5, 6]])?;
/// assert_eq!(np::concatenate([&a, &b], 0)?.to_vec::<i32>()?, vec![1, 2, 3, 4, 5, 6]);
/// assert_eq!(np::concatenate([a, np::transpose(&b, None)?], 1)?.shape(), &[2, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn concatenate<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    axis: isize,
) -> Result<Array> {
    overridable!("concatenate"; [list arrays]; [axis]);
    let xs = promoted("concatenate", arrays)?;
    join("concatenate", &xs, axis)
}

/// [`concatenate`] with JAX's `dtype=`: each array converted to `dtype` (as `astype`)
/// before the join, in place of the promotion.
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let a = np::array([1i8, 2])?;
/// let j = np::concatenate_with([a, np::array([2.5f32])?], 0, Some(DType::Int32))?;
/// assert_eq!(j.to_vec::<i32>()?, vec![1, 2, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn concatenate_with<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    axis: isize,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("concatenate_with"; [list arrays]; [axis, dtype]);
    let xs = promoted_as("concatenate_with", arrays, dtype)?;
    join("concatenate_with", &xs, axis)
}

fn join(func: &str, xs: &[Array], axis: isize) -> Result<Array> {
    let ndim = xs[0].ndim();
    if ndim == 0 {
        return Err(Error::shape(
            func,
            &[xs[0].shape()],
            "zero-dimensional arrays cannot be concatenated",
        ));
    }
    if let Some(bad) = xs.iter().find(|x| x.ndim() != ndim) {
        return Err(Error::shape(
            func,
            &[xs[0].shape(), bad.shape()],
            "all the input arrays must have the same number of dimensions",
        ));
    }
    let axis = normalize_axis(func, axis, ndim)?;
    let refs: Vec<&Array> = xs.iter().collect();
    lax::concatenate(&refs, axis).map_err(|e| e.renamed(func))
}

/// Joins arrays of one shape along a new axis.
///
/// ```
/// use olympus::numpy as np;
/// let s = np::stack([vec![1.0f32, 2.0], vec![3.0, 4.0]], -1)?;
/// assert_eq!(s.shape(), &[2, 2]);
/// assert_eq!(s.to_vec::<f32>()?, vec![1.0, 3.0, 2.0, 4.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn stack<A: ArrayLike>(arrays: impl IntoIterator<Item = A>, axis: isize) -> Result<Array> {
    overridable!("stack"; [list arrays]; [axis]);
    stack_as("stack", promoted("stack", arrays)?, axis)
}

/// [`stack`] with JAX's `dtype=`, as [`concatenate_with`].
pub fn stack_with<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    axis: isize,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("stack_with"; [list arrays]; [axis, dtype]);
    stack_as(
        "stack_with",
        promoted_as("stack_with", arrays, dtype)?,
        axis,
    )
}

fn stack_as(func: &str, xs: Vec<Array>, axis: isize) -> Result<Array> {
    let shape = xs[0].shape().to_vec();
    if let Some(bad) = xs.iter().find(|x| x.shape() != shape.as_slice()) {
        return Err(Error::shape(
            func,
            &[&shape, bad.shape()],
            "all input arrays must have the same shape",
        ));
    }
    let axis = normalize_axis(func, axis, shape.len() + 1)?;
    let mut new = shape.clone();
    new.insert(axis, 1);
    let xs: Vec<Array> = xs
        .iter()
        .map(|x| lax::reshape(x, &new))
        .collect::<Result<_>>()?;
    join(func, &xs, axis as isize)
}

/// Joins along the first axis after making every array at least 2-D (rows).
pub fn vstack<A: ArrayLike>(arrays: impl IntoIterator<Item = A>) -> Result<Array> {
    overridable!("vstack"; [list arrays]; []);
    stacked("vstack", promoted("vstack", arrays)?, 2)
}

/// Joins along the second axis (the first for 1-D arrays).
pub fn hstack<A: ArrayLike>(arrays: impl IntoIterator<Item = A>) -> Result<Array> {
    overridable!("hstack"; [list arrays]; []);
    stacked("hstack", promoted("hstack", arrays)?, 1)
}

/// Joins along the third axis after making every array at least 3-D.
pub fn dstack<A: ArrayLike>(arrays: impl IntoIterator<Item = A>) -> Result<Array> {
    overridable!("dstack"; [list arrays]; []);
    stacked("dstack", promoted("dstack", arrays)?, 3)
}

/// [`vstack`] with JAX's `dtype=`, as [`concatenate_with`].
pub fn vstack_with<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("vstack_with"; [list arrays]; [dtype]);
    stacked("vstack_with", promoted_as("vstack_with", arrays, dtype)?, 2)
}

/// [`hstack`] with JAX's `dtype=`, as [`concatenate_with`].
pub fn hstack_with<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("hstack_with"; [list arrays]; [dtype]);
    stacked("hstack_with", promoted_as("hstack_with", arrays, dtype)?, 1)
}

/// [`dstack`] with JAX's `dtype=`, as [`concatenate_with`].
pub fn dstack_with<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("dstack_with"; [list arrays]; [dtype]);
    stacked("dstack_with", promoted_as("dstack_with", arrays, dtype)?, 3)
}

/// The arrays made at least `rank`-D and joined: rows (`vstack`, rank 2, axis 0),
/// columns (`hstack`, rank 1, axis 1 or 0 for 1-D) or depth (`dstack`, rank 3, axis 2).
fn stacked(func: &str, xs: Vec<Array>, rank: usize) -> Result<Array> {
    let lift: fn(Array) -> Result<Array> = match rank {
        1 => |x| super::atleast_1d(x),
        2 => |x| super::atleast_2d(x),
        _ => |x| super::atleast_3d(x),
    };
    let xs: Vec<Array> = xs.into_iter().map(lift).collect::<Result<_>>()?;
    let axis = match rank {
        1 if xs[0].ndim() == 1 => 0,
        1 => 1,
        2 => 0,
        _ => 2,
    };
    join(func, &xs, axis)
}

/// How to split an axis: into a number of sections, or at indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sections {
    /// This many sections (equal for `split`; sizes differing by at most one, the larger
    /// first, for `array_split`).
    Count(usize),
    /// Split before each of these indices (negative counts from the end; indices past the
    /// end give empty sections, as in NumPy).
    Indices(Vec<isize>),
}

impl From<usize> for Sections {
    fn from(n: usize) -> Sections {
        Sections::Count(n)
    }
}

impl From<&[isize]> for Sections {
    fn from(v: &[isize]) -> Sections {
        Sections::Indices(v.to_vec())
    }
}

impl<const N: usize> From<[isize; N]> for Sections {
    fn from(v: [isize; N]) -> Sections {
        Sections::Indices(v.to_vec())
    }
}

impl From<Vec<isize>> for Sections {
    fn from(v: Vec<isize>) -> Sections {
        Sections::Indices(v)
    }
}

/// Splits into views along `axis`; a count must divide the axis evenly.
///
/// ```
/// use olympus::numpy as np;
/// let parts = np::split(np::arange(6)?, 3, 0)?;
/// assert_eq!(parts[2].to_vec::<i32>()?, vec![4, 5]);
/// let parts = np::split(np::arange(6)?, [1, -2], 0)?;
/// assert_eq!(parts.iter().map(|p| p.size()).collect::<Vec<_>>(), vec![1, 3, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn split(x: impl ArrayLike, sections: impl Into<Sections>, axis: isize) -> Result<Vec<Array>> {
    let sections: Sections = sections.into();
    overridable!("split"; [one x]; [sections, axis]);
    split_impl("split", x, sections, axis, true)
}

/// Splits into views along `axis`; a count need not divide the axis (the first sections
/// are one longer).
pub fn array_split(
    x: impl ArrayLike,
    sections: impl Into<Sections>,
    axis: isize,
) -> Result<Vec<Array>> {
    let sections: Sections = sections.into();
    overridable!("array_split"; [one x]; [sections, axis]);
    split_impl("array_split", x, sections, axis, false)
}

fn split_impl(
    func: &str,
    x: impl ArrayLike,
    sections: Sections,
    axis: isize,
    even: bool,
) -> Result<Vec<Array>> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() == 0 {
        return Err(Error::shape(func, &[x.shape()], "cannot split a 0-d array"));
    }
    let axis = normalize_axis(func, axis, x.ndim())?;
    let n = x.shape()[axis];
    let bounds: Vec<(usize, usize)> = match sections {
        Sections::Count(0) => {
            return Err(Error::arg(
                func,
                "the number of sections must be larger than 0",
            ))
        }
        Sections::Count(k) if k > n.max(1 << 16) => {
            return Err(Error::arg(
                func,
                format!(
                    "{k} sections of an axis of {n} elements: at most {} are made (all past \
                     {n} would be empty)",
                    n.max(1 << 16)
                ),
            ))
        }
        Sections::Count(k) => {
            if even && n % k != 0 {
                return Err(Error::shape(
                    func,
                    &[x.shape()],
                    format!("array split does not result in an equal division: axis {axis} of size {n} into {k} sections"),
                ));
            }
            let (q, r) = (n / k, n % k);
            let mut start = 0;
            (0..k)
                .map(|i| {
                    let len = q + usize::from(i < r);
                    start += len;
                    (start - len, start)
                })
                .collect()
        }
        Sections::Indices(idx) => {
            let clampi = |i: isize| -> usize {
                (i128::from(i as i64) + if i < 0 { n as i128 } else { 0 }).clamp(0, n as i128)
                    as usize
            };
            let mut cuts: Vec<usize> = vec![0];
            cuts.extend(idx.iter().map(|&i| clampi(i)));
            cuts.push(n);
            // A later index before an earlier one gives an empty section, as in NumPy.
            cuts.windows(2).map(|w| (w[0], w[1].max(w[0]))).collect()
        }
    };
    bounds
        .into_iter()
        .map(|(a, b)| {
            let mut start = vec![0; x.ndim()];
            let mut limit = x.shape().to_vec();
            start[axis] = a;
            limit[axis] = b;
            lax::slice(&x, &start, &limit, None)
        })
        .collect()
}

/// Repeats the whole array `reps[i]` times along axis `i` (NumPy's `tile`: shorter `reps`
/// are padded with ones on the left, a smaller array gains leading axes).
///
/// ```
/// use olympus::numpy as np;
/// let t = np::tile(np::array([1, 2])?, &[2, 2])?;
/// assert_eq!(t.to_vec::<i32>()?, vec![1, 2, 1, 2, 1, 2, 1, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tile(x: impl ArrayLike, reps: &[usize]) -> Result<Array> {
    overridable!("tile"; [one x]; [reps]);
    let x = super::asarray(operand("tile", 0, x)?)?;
    let d = x.ndim().max(reps.len());
    let mut shape = vec![1; d - x.ndim()];
    shape.extend_from_slice(x.shape());
    let mut r = vec![1; d - reps.len()];
    r.extend_from_slice(reps);
    // (r0, s0, r1, s1, ...) broadcast from (1, s0, 1, s1, ...), then merged pairwise.
    let inter: Vec<usize> = shape.iter().flat_map(|&s| [1, s]).collect();
    let target: Vec<usize> = (0..d).flat_map(|i| [r[i], shape[i]]).collect();
    let out = (0..d)
        .map(|i| crate::shape::dim_product("tile", &[x.shape()], [r[i], shape[i]]))
        .collect::<Result<Vec<usize>>>()?;
    crate::shape::checked_size("tile", &out)?;
    let tiled = || {
        let v = lax::reshape(&x, &inter)?;
        let b = lax::broadcast_in_dim(&v, &target, &(0..2 * d).collect::<Vec<_>>())?;
        lax::reshape(&lax::copy(&b)?, &out)
    };
    tiled().map_err(|e| e.renamed("tile"))
}

/// How many times to repeat elements: the same for all, or one count per element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repeats {
    /// Every element this many times.
    Each(usize),
    /// Element `i` `counts[i]` times (one count per element along the axis).
    Counts(Vec<usize>),
}

impl From<usize> for Repeats {
    fn from(n: usize) -> Repeats {
        Repeats::Each(n)
    }
}

impl From<&[usize]> for Repeats {
    fn from(v: &[usize]) -> Repeats {
        Repeats::Counts(v.to_vec())
    }
}

impl<const N: usize> From<[usize; N]> for Repeats {
    fn from(v: [usize; N]) -> Repeats {
        Repeats::Counts(v.to_vec())
    }
}

impl From<Vec<usize>> for Repeats {
    fn from(v: Vec<usize>) -> Repeats {
        Repeats::Counts(v)
    }
}

/// Repeats each element along `axis` (over the flattened array when `None`).
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1, 2], [3, 4]])?;
/// assert_eq!(np::repeat(&x, 2, None)?.to_vec::<i32>()?, vec![1, 1, 2, 2, 3, 3, 4, 4]);
/// assert_eq!(np::repeat(&x, [1, 2], Some(0))?.to_vec::<i32>()?, vec![1, 2, 3, 4, 3, 4]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn repeat(
    x: impl ArrayLike,
    repeats: impl Into<Repeats>,
    axis: Option<isize>,
) -> Result<Array> {
    let repeats: Repeats = repeats.into();
    overridable!("repeat"; [one x]; [repeats, axis]);
    let x = super::asarray(operand("repeat", 0, x)?)?;
    let (x, axis) = match axis {
        None => (super::ravel(&x)?, 0),
        Some(a) => {
            if x.ndim() == 0 {
                (lax::reshape(&x, &[1])?, normalize_axis("repeat", a, 1)?)
            } else {
                let ax = normalize_axis("repeat", a, x.ndim())?;
                (x, ax)
            }
        }
    };
    let n = x.shape()[axis];
    match repeats {
        Repeats::Each(k) => {
            // (.., n, 1, ..) broadcast to (.., n, k, ..) and merged.
            let mut inter = x.shape().to_vec();
            inter.insert(axis + 1, 1);
            let mut target = inter.clone();
            target[axis + 1] = k;
            let mut out = x.shape().to_vec();
            out[axis] = crate::shape::dim_product("repeat", &[x.shape()], [n, k])?;
            crate::shape::checked_size("repeat", &out)?;
            let repeated = || {
                let v = lax::reshape(&x, &inter)?;
                let b = lax::broadcast_in_dim(&v, &target, &(0..inter.len()).collect::<Vec<_>>())?;
                lax::reshape(&lax::copy(&b)?, &out)
            };
            repeated().map_err(|e| e.renamed("repeat"))
        }
        Repeats::Counts(c) => {
            if c.len() == 1 {
                return repeat(&x, c[0], Some(axis as isize));
            }
            if c.len() != n {
                return Err(Error::shape(
                    "repeat",
                    &[x.shape()],
                    format!(
                        "{} repeat counts for {n} elements along axis {axis}",
                        c.len()
                    ),
                ));
            }
            // The source index of every output position, then one gather.
            let total = crate::shape::dim_sum("repeat", &[x.shape()], c.iter().copied())?;
            let mut out = x.shape().to_vec();
            out[axis] = total;
            crate::shape::checked_size("repeat", &out)?;
            let mut idx = x
                .device()
                .host_vec(total, "repeat", &[total], DType::Int32)?;
            idx.extend(
                c.iter()
                    .enumerate()
                    .flat_map(|(i, &k)| std::iter::repeat_n(i as i32, k)),
            );
            let idx = Array::from_slice_on(x.device(), &idx, &[total])?;
            super::take_with(
                &x,
                &idx,
                Some(axis as isize),
                super::IndexMode::PromiseInBounds,
                None,
            )
        }
    }
}

/// Rolls elements along axes: element `i` moves to `i + shift` (wrapping). With
/// `axis = None` the array is rolled flat and keeps its shape; otherwise `shift` has one
/// entry, applied to every axis, or one per axis.
///
/// ```
/// use olympus::numpy as np;
/// assert_eq!(np::roll(np::arange(5)?, &[2], None)?.to_vec::<i32>()?, vec![3, 4, 0, 1, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn roll(x: impl ArrayLike, shift: &[isize], axis: Option<&[isize]>) -> Result<Array> {
    overridable!("roll"; [one x]; [shift, axis]);
    let x = super::asarray(operand("roll", 0, x)?)?;
    let Some(axes) = axis else {
        if shift.len() != 1 {
            return Err(Error::arg("roll", "without axes, shift must be one number"));
        }
        let flat = roll(super::ravel(&x)?, shift, Some(&[0]))?;
        return lax::reshape(&flat, x.shape());
    };
    if shift.len() != axes.len() && shift.len() != 1 {
        return Err(Error::arg(
            "roll",
            format!("shift {shift:?} and axis {axes:?} must have equal lengths, or shift one"),
        ));
    }
    let mut cur = x;
    for (i, &a) in axes.iter().enumerate() {
        let ax = normalize_axis("roll", a, cur.ndim())?;
        let n = cur.shape()[ax] as i128;
        let s = if n == 0 {
            0
        } else {
            (shift[i.min(shift.len() - 1)] as i128).rem_euclid(n)
        };
        if s == 0 {
            continue;
        }
        let cut = (n - s) as usize;
        let mut lo = vec![0; cur.ndim()];
        let mut hi = cur.shape().to_vec();
        hi[ax] = cut;
        let head = lax::slice(&cur, &lo, &hi, None)?;
        lo[ax] = cut;
        hi[ax] = n as usize;
        let tail = lax::slice(&cur, &lo, &hi, None)?;
        cur = lax::concatenate(&[&tail, &head], ax)?;
    }
    Ok(cur)
}

/// How `pad` fills.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadMode {
    /// A constant, converted to the array's dtype (NumPy's `mode="constant"`) as JAX
    /// converts a float `constant_values`: toward zero, saturating at an integer dtype's
    /// range (`300.0` pads `int8` with 127, where JAX's integer `300` would wrap to 44).
    Constant(f64),
    /// Copies of the edge element (`mode="edge"`).
    Edge,
}

/// Pads each axis with `pad_width[i] = (before, after)` elements; one pair applies to
/// every axis.
///
/// ```
/// use olympus::numpy as np;
/// let p = np::pad(np::array([1, 2])?, &[(1, 2)], np::PadMode::Constant(9.0))?;
/// assert_eq!(p.to_vec::<i32>()?, vec![9, 1, 2, 9, 9]);
/// let e = np::pad(np::array([1, 2])?, &[(2, 1)], np::PadMode::Edge)?;
/// assert_eq!(e.to_vec::<i32>()?, vec![1, 1, 1, 2, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn pad(x: impl ArrayLike, pad_width: &[(usize, usize)], mode: PadMode) -> Result<Array> {
    overridable!("pad"; [one x]; [pad_width, mode]);
    let x = super::asarray(operand("pad", 0, x)?)?;
    let r = x.ndim();
    let widths: Vec<(usize, usize)> = match pad_width.len() {
        1 => vec![pad_width[0]; r],
        n if n == r => pad_width.to_vec(),
        n => {
            return Err(Error::shape(
                "pad",
                &[x.shape()],
                format!("{n} pad widths for {r} axes (give one pair, or one per axis)"),
            ))
        }
    };
    let low: Vec<usize> = widths.iter().map(|w| w.0).collect();
    let high: Vec<usize> = widths.iter().map(|w| w.1).collect();
    let value = match mode {
        PadMode::Constant(v) => Some(Literal::from_f64(v, x.dtype())),
        PadMode::Edge => None,
    };
    lax::pad(&x, &low, &high, value).map_err(|e| e.renamed("pad"))
}

/// Lower triangle of the last two axes: elements above diagonal `k` become zero (`k > 0`
/// is above the main diagonal).
///
/// ```
/// use olympus::numpy as np;
/// let t = np::tril(np::ones(&[2, 3], np::DType::Int32)?, 0)?;
/// assert_eq!(t.to_vec::<i32>()?, vec![1, 0, 0, 1, 1, 0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tril(x: impl ArrayLike, k: isize) -> Result<Array> {
    overridable!("tril"; [one x]; [k]);
    triangle("tril", x, k, true)
}

/// Upper triangle of the last two axes: elements below diagonal `k` become zero.
pub fn triu(x: impl ArrayLike, k: isize) -> Result<Array> {
    overridable!("triu"; [one x]; [k]);
    triangle("triu", x, k, false)
}

fn triangle(func: &str, x: impl ArrayLike, k: isize, lower: bool) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() < 2 {
        return Err(Error::shape(
            func,
            &[x.shape()],
            format!(
                "needs at least 2 dimensions, got shape {}",
                fmt_shape(x.shape())
            ),
        ));
    }
    let r = x.ndim();
    let (m, n) = (x.shape()[r - 2], x.shape()[r - 1]);
    let dev = x.device();
    let rows = lax::iota(DType::Int32, &[m, n], 0, Some(dev))?;
    let cols = lax::iota(DType::Int32, &[m, n], 1, Some(dev))?;
    // Keep col - row <= k (lower) or col - row >= k (upper).
    let diff = lax::binary(lax::BinaryOp::Sub, &cols, &rows)?;
    let kk = lax::full(
        &[m, n],
        Literal::I32(k.clamp(i32::MIN as isize, i32::MAX as isize) as i32),
        Some(dev),
    )?;
    let op = if lower { CompareOp::Le } else { CompareOp::Ge };
    let keep = lax::compare(op, &diff, &kk)?;
    let keep = lax::broadcast_in_dim(&keep, x.shape(), &[r - 2, r - 1])?;
    let zero = lax::full(x.shape(), Literal::I32(0).cast(x.dtype()), Some(dev))?;
    lax::select(&keep, &x, &zero.with_weak(x.weak_type()))
}

super::overrides::debug_param!(Sections, Repeats, PadMode);

/// The Array API's [`concatenate`]: along `axis`, or of the arrays flattened when `None`.
pub fn concat<A: ArrayLike>(
    arrays: impl IntoIterator<Item = A>,
    axis: Option<isize>,
) -> Result<Array> {
    overridable!("concat"; [list arrays]; [axis]);
    let xs = promoted("concat", arrays)?;
    match axis {
        Some(a) => join("concat", &xs, a),
        None => {
            let flat = xs.iter().map(super::ravel).collect::<Result<Vec<_>>>()?;
            join("concat", &flat, 0)
        }
    }
}

/// Splits along axis 1 (axis 0 for 1-d input), as [`split`] does; a 0-d input is an error.
pub fn hsplit(x: impl ArrayLike, sections: impl Into<Sections>) -> Result<Vec<Array>> {
    let sections: Sections = sections.into();
    overridable!("hsplit"; [one x]; [sections]);
    let x = super::shapes::at_least("hsplit", x, 1)?;
    let axis = if x.ndim() == 1 { 0 } else { 1 };
    split_impl("hsplit", x, sections, axis, true)
}

/// Splits along axis 0, as [`split`] does (a 1-d input too, as in JAX); a 0-d input is an
/// error.
pub fn vsplit(x: impl ArrayLike, sections: impl Into<Sections>) -> Result<Vec<Array>> {
    let sections: Sections = sections.into();
    overridable!("vsplit"; [one x]; [sections]);
    let x = super::shapes::at_least("vsplit", x, 1)?;
    split_impl("vsplit", x, sections, 0, true)
}

/// Splits along axis 2, as [`split`] does; fewer than 3 axes is an error.
pub fn dsplit(x: impl ArrayLike, sections: impl Into<Sections>) -> Result<Vec<Array>> {
    let sections: Sections = sections.into();
    overridable!("dsplit"; [one x]; [sections]);
    let x = super::shapes::at_least("dsplit", x, 3)?;
    split_impl("dsplit", x, sections, 2, true)
}

/// Stacks 1-d arrays as columns (and 2-d arrays as they are) side by side.
pub fn column_stack<A: ArrayLike>(arrays: impl IntoIterator<Item = A>) -> Result<Array> {
    overridable!("column_stack"; [list arrays]; []);
    let xs = promoted("column_stack", arrays)?
        .into_iter()
        .map(|x| match x.ndim() {
            0 | 1 => super::reshape(&x, &[-1, 1]),
            _ => Ok(x),
        })
        .collect::<Result<Vec<_>>>()?;
    join("column_stack", &xs, 1)
}

/// Rotates by 90° `k` times in the plane of `axes` (from the first axis toward the
/// second), as views.
pub fn rot90(x: impl ArrayLike, k: i64, axes: (isize, isize)) -> Result<Array> {
    overridable!("rot90"; [one x]; [k]);
    let x = super::shapes::at_least("rot90", x, 2)?;
    let a0 = normalize_axis("rot90", axes.0, x.ndim())?;
    let a1 = normalize_axis("rot90", axes.1, x.ndim())?;
    if a0 == a1 {
        return Err(Error::arg(
            "rot90",
            format!("the axes {axes:?} must differ"),
        ));
    }
    let (f0, f1) = (a0 as isize, a1 as isize);
    let mut perm: Vec<isize> = (0..x.ndim() as isize).collect();
    perm.swap(a0, a1);
    match k.rem_euclid(4) {
        0 => Ok(x),
        1 => super::transpose(super::flip(&x, Some(&[f1]))?, Some(&perm)),
        2 => super::flip(&x, Some(&[f0, f1])),
        _ => super::flip(super::transpose(&x, Some(&perm))?, Some(&[f1])),
    }
}

/// An `n × m` array (`m` defaults to `n`) with ones on and below diagonal `k` and zeros
/// above, of `dtype` (float32 by default).
pub fn tri(n: usize, m: Option<usize>, k: isize, dtype: Option<DType>) -> Result<Array> {
    let ones = super::full(
        &[n, m.unwrap_or(n)],
        1,
        Some(dtype.unwrap_or(DType::Float32)),
    )?;
    tril(ones, k)
}

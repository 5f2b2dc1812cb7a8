//! Set operations on flattened arrays: `unique` (also of slices along an axis) and its
//! Array API forms, `isin`, and the sorted intersections, unions and differences; and
//! `nonzero`/`argwhere`, which compact the same way.
//!
//! Each sorts once, marks where a run of equal values starts, and compacts the marked
//! values on the device (a scatter of each run's start to its rank), so with `size` every
//! function also runs under `jit`, padded as JAX pads: with `fill_value`, else with the
//! first value of the result (0 when it is empty). Without `size` the number of values is
//! read back first, which a trace cannot do: `jit` then reports that `size` is needed.

use super::overrides::overridable;
use super::stats::{concrete, slice_axis, sorted_search, Side};
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;

const SIZE_HINT: &str =
    "the number of values depends on the data; pass `size` (and `fill_value`) under jit";

/// A flattened array sorted, with the mark of each run's first element and, where asked
/// for, the sorting positions.
struct Runs {
    sorted: Array,
    starts: Array,
    perm: Option<Array>,
}

impl Runs {
    fn perm(&self) -> &Array {
        self.perm
            .as_ref()
            .unwrap_or_else(|| unreachable!("runs(.., positions: true) keeps them"))
    }
}

/// Sorts `flat` (stable) and marks where its runs of equal values start; with `equal_nan`
/// every NaN joins one run (NaN sorts last). The sorting `positions` cost an argsort and
/// a gather where a sort of the values alone does.
fn runs(flat: &Array, equal_nan: bool, positions: bool) -> Result<Runs> {
    let (sorted, perm) = if positions {
        let perm = super::argsort(flat, None)?;
        (super::take(flat, &perm, None)?, Some(perm))
    } else {
        (super::sort(flat, None)?, None)
    };
    let starts = first_of_runs(&sorted, equal_nan)?;
    Ok(Runs {
        sorted,
        starts,
        perm,
    })
}

/// The positions of the first `slots` true elements of the 1-d `mask`, in order, with
/// `mask.size()` in the slots past the last one (each true element is scattered to its
/// rank among them).
fn ranks(mask: &Array, slots: usize) -> Result<Array> {
    let n = mask.size();
    let rank = super::subtract(super::cumsum(mask.astype(DType::Int32)?, None)?, 1)?;
    // Unmarked elements and ranks past the slots fall outside and drop.
    let to = super::r#where(mask, &rank, slots as i32)?;
    lax::scatter(
        &super::full(&[slots], n as i64, Some(DType::Int32))?,
        &to,
        &super::arange(0..n as i32)?,
        lax::ScatterMode::Set,
    )
}

/// Fails where `x` has more elements than the int32 positions and counts of the
/// compaction can number (as JAX's, with x64 off).
pub(super) fn check_positions(func: &str, x: &Array) -> Result<()> {
    if x.size() > i32::MAX as usize {
        return Err(Error::shape(
            func,
            &[x.shape()],
            format!(
                "has {} elements; positions are int32, so at most 2^31 - 1",
                x.size()
            ),
        ));
    }
    Ok(())
}

/// The number of true elements of `mask`: `size` when given, else read back.
fn count_or(func: &str, mask: &Array, size: Option<usize>) -> Result<usize> {
    check_positions(func, mask)?;
    match size {
        Some(s) => Ok(s),
        None => concrete(
            func,
            super::sum(mask, None, false).and_then(|c| c.item::<i32>()),
            SIZE_HINT,
        )
        .map(|c| c as usize),
    }
}

/// The elements of the 1-d `x` where `mask` holds, padded to `size` with `fill` (the
/// first such element, or 0 when there is none, by default).
pub(super) fn compact(
    func: &str,
    x: &Array,
    mask: &Array,
    size: Option<usize>,
    fill: Option<f64>,
) -> Result<Array> {
    compact_padded(func, x, mask, size, fill, false)
}

/// [`compact`] padded as JAX's `intersect1d` and `setxor1d` pad without `fill_value`: the
/// gather's 0, then the result's maximum, then the minimum of that (so the smallest value,
/// NaN where the result holds one, 0 where it is empty), with `max`'s and `min`'s
/// derivatives (shared among ties) where `unique` repeats its first value.
fn compact_by_extremes(
    func: &str,
    x: &Array,
    mask: &Array,
    size: Option<usize>,
    fill: Option<f64>,
) -> Result<Array> {
    compact_padded(func, x, mask, size, fill, true)
}

fn compact_padded(
    func: &str,
    x: &Array,
    mask: &Array,
    size: Option<usize>,
    fill: Option<f64>,
    extremes: bool,
) -> Result<Array> {
    let k = count_or(func, mask, size)?;
    if x.size() == 0 || k == 0 {
        return super::full(&[k], fill.unwrap_or(0.0), Some(x.dtype()));
    }
    let pos = ranks(mask, k)?;
    let found = super::less(&pos, x.size() as i32)?;
    let got = super::take(x, super::r#where(&found, &pos, 0)?, None)?;
    if size.is_none() {
        return Ok(got);
    }
    let fill = match fill {
        Some(f) => super::full(&[], f, Some(x.dtype()))?,
        None if extremes => {
            let vals = super::r#where(&found, &got, super::zeros(&[], x.dtype())?)?;
            let vals = super::r#where(&found, &vals, super::max(&vals, None, false)?)?;
            return super::r#where(&found, &vals, super::min(&vals, None, false)?);
        }
        None => {
            let f0 = lax::reshape(&slice_axis(&found, 0, 0, 1)?, &[])?;
            let g0 = lax::reshape(&slice_axis(&got, 0, 0, 1)?, &[])?;
            super::r#where(f0, g0, super::zeros(&[], x.dtype())?)?
        }
    };
    super::r#where(&found, &got, fill)
}

/// Indices of the non-zero (true) elements, one int32 array per axis (NumPy's `nonzero`;
/// NaN counts as non-zero). The count depends on the values: without `size` it is read
/// back (so under `jit` this is an [`Error::Tracing`](crate::Error) asking for `size`);
/// with `size` the indices are computed on the device, the first `size` of them, padded
/// with `fill_value` (0 by default, as an int32) in every array, as JAX's `nonzero(size=,
/// fill_value=)` (which pads an empty `x` with zeros whatever `fill_value`). A 0-d `x` is
/// an error, as in JAX.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[0, 3], [4, 0]])?;
/// let v = np::nonzero(&x, None, None)?;
/// assert_eq!((v[0].to_vec::<i32>()?, v[1].to_vec::<i32>()?), (vec![0, 1], vec![1, 0]));
/// let v = np::nonzero(&x, Some(3), Some(-1.0))?;
/// assert_eq!(v[1].to_vec::<i32>()?, vec![1, 0, -1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn nonzero(
    x: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Vec<Array>> {
    overridable!("nonzero"; [one x]; [size, fill_value]);
    let x = super::asarray(operand("nonzero", 0, x)?)?;
    if x.ndim() == 0 {
        return Err(Error::shape(
            "nonzero",
            &[x.shape()],
            "is not defined for 0-d arrays (as in JAX); use atleast_1d(x) first",
        ));
    }
    coordinates("nonzero", &x, size, fill_value)
}

/// Indices of the non-zero elements as one int32 array of shape `(count, ndim)` (`(size,
/// ndim)` with `size`, padded with `fill_value` as [`nonzero`]'s). A 0-d `x` gives
/// `(count, 0)`, as in JAX.
pub fn argwhere(x: impl ArrayLike, size: Option<usize>, fill_value: Option<f64>) -> Result<Array> {
    overridable!("argwhere"; [one x]; [size, fill_value]);
    let func = "argwhere";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() == 0 {
        let one = lax::reshape(&x, &[1])?;
        let c = coordinates(func, &one, size, fill_value)?;
        return super::zeros(&[c[0].size(), 0], DType::Int32);
    }
    let c = coordinates(func, &x, size, fill_value)?;
    super::stack(&c, 1)
}

/// The coordinates of `x`'s true elements, one int32 array per axis: their flat positions
/// compacted on the device ([`compact`]; -1 in padding), then unravelled.
fn coordinates(
    func: &str,
    x: &Array,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Vec<Array>> {
    check_positions(func, x)?;
    if x.size() == 0 {
        // JAX gives zeros here, whatever `fill_value`.
        let k = size.unwrap_or(0);
        return (0..x.ndim())
            .map(|_| super::zeros(&[k], DType::Int32))
            .collect();
    }
    let mask = super::ravel(x.astype(DType::Bool)?)?;
    let pos = super::arange(0..x.size() as i32)?;
    let flat = compact(func, &pos, &mask, size, Some(-1.0))?;
    let found = super::greater_equal(&flat, 0)?;
    let fill = fill_value.unwrap_or(0.0);
    let shape = x.shape();
    let mut stride = 1usize;
    let mut out = Vec::with_capacity(shape.len());
    for &d in shape.iter().rev() {
        let c = super::remainder(super::floor_divide(&flat, stride as i32)?, d.max(1) as i32)?;
        out.push(super::r#where(
            &found,
            &c,
            super::full(&[], fill, Some(DType::Int32))?,
        )?);
        stride *= d;
    }
    out.reverse();
    Ok(out)
}

/// The four results of [`unique_all`].
#[derive(Clone, Debug)]
pub struct UniqueAll {
    /// The sorted distinct values (with `axis`, the distinct slices along it).
    pub values: Array,
    /// The position in the flattened input of each value's first occurrence.
    pub indices: Array,
    /// For each input element (in the input's shape), the position of its value in `values`.
    pub inverse_indices: Array,
    /// How often each value occurs (0 in padding).
    pub counts: Array,
}

/// JAX's options of `jnp.unique` for [`unique_with`]: which results besides the values to
/// compute, whether NaNs count as one value, and `size`/`fill_value` for `jit`. The default
/// is [`unique`]'s (NaNs as one value, values only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UniqueOptions {
    /// Compute each value's first position in the flattened input (`return_index`).
    pub return_index: bool,
    /// Compute each input element's value's position in the values (`return_inverse`), in
    /// the input's shape.
    pub return_inverse: bool,
    /// Compute how often each value occurs (`return_counts`).
    pub return_counts: bool,
    /// Whether every NaN is one value (`equal_nan`, true by default as in JAX).
    pub equal_nan: bool,
    /// Exactly this many values: cut, or padded (required under `jit`).
    pub size: Option<usize>,
    /// The padding value (the smallest value by default).
    pub fill_value: Option<f64>,
    /// The distinct slices along this axis (`axis`), in lexicographic order of their
    /// elements, rather than the distinct elements of the flattened input. The inverse
    /// positions then number the slices (one per index along the axis); padding slices
    /// are all `fill_value`. Slices with no elements are all equal: one distinct slice,
    /// padded to `size` like any other (JAX 0.10.2 ignores `size` there, and gives one
    /// slice of an input with no slices).
    pub axis: Option<isize>,
}

impl Default for UniqueOptions {
    fn default() -> UniqueOptions {
        UniqueOptions {
            return_index: false,
            return_inverse: false,
            return_counts: false,
            equal_nan: true,
            size: None,
            fill_value: None,
            axis: None,
        }
    }
}

super::overrides::debug_param!(UniqueOptions);

/// The results of [`unique_with`]: the values, and each part its options asked for.
#[derive(Clone, Debug)]
pub struct Unique {
    /// The sorted distinct values (with `axis`, the distinct slices along it).
    pub values: Array,
    /// Each value's first position in the flattened input, or with `axis` each slice's
    /// index along it (padding: the smallest value's).
    pub indices: Option<Array>,
    /// Each input element's value's position in `values`, in the input's shape (with
    /// `axis`, each slice's, one per index along the axis).
    pub inverse: Option<Array>,
    /// How often each value occurs (0 in padding).
    pub counts: Option<Array>,
}

/// `jnp.unique` with its options ([`UniqueOptions`]): the distinct values and, as asked,
/// first positions, inverse positions and counts; `equal_nan = false` makes every NaN a
/// value of its own (as [`unique_all`] and the other Array API functions do). An empty
/// input with `size` gives positions and counts of `size` zeros (JAX's are empty).
///
/// ```
/// use olympus::numpy as np;
/// let opts = np::UniqueOptions { return_index: true, return_counts: true, ..Default::default() };
/// let u = np::unique_with([2, 1, 2, 5], opts)?;
/// assert_eq!(u.values.to_vec::<i32>()?, vec![1, 2, 5]);
/// assert_eq!(u.indices.unwrap().to_vec::<i32>()?, vec![1, 0, 3]);
/// assert_eq!(u.counts.unwrap().to_vec::<i32>()?, vec![1, 2, 1]);
/// assert!(u.inverse.is_none());
///
/// // The distinct rows (`axis=0`), in lexicographic order.
/// let opts = np::UniqueOptions { axis: Some(0), return_counts: true, ..Default::default() };
/// let u = np::unique_with(np::array([[1, 2], [0, 5], [1, 2]])?, opts)?;
/// assert_eq!(u.values.shape(), &[2, 2]);
/// assert_eq!(u.values.to_vec::<i32>()?, vec![0, 5, 1, 2]);
/// assert_eq!(u.counts.unwrap().to_vec::<i32>()?, vec![1, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unique_with(ar: impl ArrayLike, options: UniqueOptions) -> Result<Unique> {
    overridable!("unique_with"; [one ar]; [options]);
    let want = Want {
        indices: options.return_index,
        inverse: options.return_inverse,
        counts: options.return_counts,
    };
    let func = "unique_with";
    let u = match options.axis {
        None => unique_impl(
            func,
            ar,
            options.equal_nan,
            options.size,
            options.fill_value,
            want,
        )?,
        Some(axis) => unique_slices(func, ar, axis, &options)?,
    };
    Ok(Unique {
        values: u.values,
        indices: want.indices.then_some(u.indices),
        inverse: want.inverse.then_some(u.inverse_indices),
        counts: want.counts.then_some(u.counts),
    })
}

/// What [`unique_impl`] computes besides the values.
#[derive(Clone, Copy)]
struct Want {
    indices: bool,
    inverse: bool,
    counts: bool,
}

/// The number of values an empty input gives (`size`, else none): an error where `size`
/// asks for some and there is no `fill_value` to make them of, as JAX's.
fn empty_size(func: &str, size: Option<usize>, fill_value: Option<f64>) -> Result<usize> {
    if size.unwrap_or(0) > 0 && fill_value.is_none() {
        return Err(Error::arg(
            func,
            "an empty input with a non-zero `size` needs `fill_value`",
        ));
    }
    Ok(size.unwrap_or(0))
}

/// The first `k` runs of a sorted input of `n` elements (or rows) whose run starts are
/// marked: `k` is `size`, else their number (read back).
struct Compacted {
    k: usize,
    /// Each run's first position (0 in padding, as JAX's `nonzero(size=)` fills).
    at: Array,
    /// Whether each slot is a run (not padding).
    found: Array,
    /// Each run's first position, `n` in padding.
    pos: Array,
    /// Where each run ends.
    ends: Array,
}

impl Compacted {
    fn new(func: &str, starts: &Array, n: usize, size: Option<usize>) -> Result<Compacted> {
        let k = count_or(func, starts, size)?;
        // One slot more than the values: the end of the last run, for the counts.
        let pos = ranks(starts, k + 1)?;
        let ends = slice_axis(&pos, 0, 1, k + 1)?;
        let pos = slice_axis(&pos, 0, 0, k)?;
        let found = super::less(&pos, n as i32)?;
        let at = super::r#where(&found, &pos, 0)?;
        Ok(Compacted {
            k,
            at,
            found,
            pos,
            ends,
        })
    }

    /// How many elements each run has (0 in padding).
    fn counts(&self, n: usize) -> Result<Array> {
        super::subtract(
            &self.ends,
            super::r#where(&self.found, &self.pos, n as i32)?,
        )
    }
}

/// Each of the `n` sorted elements' (or rows') run, at its position before the sort: the
/// inverse of a compaction.
fn inverse_of(r: &Runs, n: usize) -> Result<Array> {
    let rank = super::subtract(super::cumsum(r.starts.astype(DType::Int32)?, None)?, 1)?;
    lax::scatter(
        &super::zeros(&[n], DType::Int32)?,
        r.perm(),
        &rank,
        lax::ScatterMode::Set,
    )
}

fn unique_impl(
    func: &str,
    x: impl ArrayLike,
    equal_nan: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
    want: Want,
) -> Result<UniqueAll> {
    let mut x = super::asarray(operand(func, 0, x)?)?;
    if size.is_none() {
        // JAX's values without `size` (`concrete_or_error`): constants under `grad`.
        x = crate::trace::known(&x)?;
    }
    let flat = super::ravel(&x)?;
    let n = flat.size();
    if n == 0 {
        let s = empty_size(func, size, fill_value)?;
        return Ok(UniqueAll {
            values: super::full(&[s], fill_value.unwrap_or(0.0), Some(x.dtype()))?,
            indices: super::zeros(&[s], DType::Int32)?,
            inverse_indices: super::zeros(x.shape(), DType::Int32)?,
            counts: super::zeros(&[s], DType::Int32)?,
        });
    }
    let r = runs(&flat, equal_nan, want.indices || want.inverse)?;
    let c = Compacted::new(func, &r.starts, n, size)?;
    let mut values = super::take(&r.sorted, &c.at, None)?;
    if let Some(f) = fill_value.filter(|_| size.is_some()) {
        values = super::r#where(&c.found, &values, super::full(&[], f, Some(x.dtype()))?)?;
    }
    let none = || super::zeros(&[0], DType::Int32);
    let indices = if want.indices {
        super::take(r.perm(), &c.at, None)?
    } else {
        none()?
    };
    let inverse_indices = if want.inverse {
        lax::reshape(&inverse_of(&r, n)?, x.shape())?
    } else {
        none()?
    };
    let counts = if want.counts { c.counts(n)? } else { none()? };
    Ok(UniqueAll {
        values,
        indices,
        inverse_indices,
        counts,
    })
}

/// [`unique_with`] along `axis`: the slices along it flattened to the rows of an
/// `[n, m]` array, the rows sorted in lexicographic order and compacted as the values of
/// [`unique_impl`] are, then shaped back into slices.
fn unique_slices(
    func: &str,
    ar: impl ArrayLike,
    axis: isize,
    options: &UniqueOptions,
) -> Result<UniqueAll> {
    let mut x = super::asarray(operand(func, 0, ar)?)?;
    if options.size.is_none() {
        // JAX's values without `size` (`concrete_or_error`): constants under `grad`.
        x = crate::trace::known(&x)?;
    }
    let a = crate::shape::normalize_axis(func, axis, x.ndim())?;
    let moved = super::moveaxis(&x, &[a as isize], &[0])?;
    let n = moved.shape()[0];
    let rest = moved.shape()[1..].to_vec();
    let rows = lax::reshape(&moved, &[n, rest.iter().product()])?;
    check_positions(func, &rows)?;
    // `k` slices of the input's shape along `a`.
    let slices = |values: &Array, k: usize| -> Result<Array> {
        let mut shape = vec![k];
        shape.extend_from_slice(&rest);
        super::moveaxis(lax::reshape(values, &shape)?, &[0], &[a as isize])
    };
    let (size, fill_value) = (options.size, options.fill_value);
    if n == 0 {
        let s = empty_size(func, size, fill_value)?;
        let fill = super::full(
            &[s, rows.shape()[1]],
            fill_value.unwrap_or(0.0),
            Some(x.dtype()),
        )?;
        return Ok(UniqueAll {
            values: slices(&fill, s)?,
            indices: super::zeros(&[s], DType::Int32)?,
            inverse_indices: super::zeros(&[0], DType::Int32)?,
            counts: super::zeros(&[s], DType::Int32)?,
        });
    }
    let r = row_runs(&rows, options.equal_nan)?;
    let c = Compacted::new(func, &r.starts, n, size)?;
    let mut values = super::take(&r.sorted, &c.at, Some(0))?;
    if let Some(f) = fill_value.filter(|_| size.is_some()) {
        let keep = super::expand_dims(&c.found, &[1])?;
        values = super::r#where(&keep, &values, super::full(&[], f, Some(x.dtype()))?)?;
    }
    Ok(UniqueAll {
        values: slices(&values, c.k)?,
        indices: super::take(r.perm(), &c.at, None)?,
        inverse_indices: inverse_of(&r, n)?,
        counts: c.counts(n)?,
    })
}

/// The rows of the 2-d `rows` in lexicographic order (a stable argsort per column, the
/// last column first, so earlier columns decide and equal rows keep their order), with
/// the mark of each run of equal rows (NaNs equal with `equal_nan`, -0.0 equal to 0.0)
/// and the sorting positions.
fn row_runs(rows: &Array, equal_nan: bool) -> Result<Runs> {
    let n = rows.shape()[0];
    let mut perm = super::arange(0..n as i32)?;
    for c in (0..rows.shape()[1]).rev() {
        let column = lax::reshape(&slice_axis(rows, 1, c, c + 1)?, &[n])?;
        let keys = super::take(&column, &perm, None)?;
        perm = super::take(&perm, super::argsort(&keys, None)?, None)?;
    }
    let sorted = super::take(rows, &perm, Some(0))?;
    let starts = first_of_runs(&sorted, equal_nan)?;
    Ok(Runs {
        sorted,
        starts,
        perm: Some(perm),
    })
}

const VALUES: Want = Want {
    indices: false,
    inverse: false,
    counts: false,
};

/// The sorted distinct values of the flattened `ar` (every NaN counts as one value, as
/// JAX's `equal_nan=True`). With `size` the result has exactly `size` values: cut, or padded
/// with `fill_value` (the smallest value by default); `size` is required under `jit`.
///
/// ```
/// use olympus::numpy as np;
/// let u = np::unique([3, 1, 3, 2, 1], None, None)?;
/// assert_eq!(u.to_vec::<i32>()?, vec![1, 2, 3]);
/// let p = np::unique([3, 1, 3], Some(4), Some(-1.0))?;
/// assert_eq!(p.to_vec::<i32>()?, vec![1, 3, -1, -1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unique(ar: impl ArrayLike, size: Option<usize>, fill_value: Option<f64>) -> Result<Array> {
    overridable!("unique"; [one ar]; [size, fill_value]);
    Ok(unique_impl("unique", ar, true, size, fill_value, VALUES)?.values)
}

/// The Array API's `unique_values`: as [`unique`], with each NaN a value of its own.
pub fn unique_values(
    x: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("unique_values"; [one x]; [size, fill_value]);
    Ok(unique_impl("unique_values", x, false, size, fill_value, VALUES)?.values)
}

/// The Array API's `unique_counts`: the values of [`unique_values`] and how often each occurs.
pub fn unique_counts(
    x: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<(Array, Array)> {
    overridable!("unique_counts"; [one x]; [size, fill_value]);
    let want = Want {
        counts: true,
        ..VALUES
    };
    let u = unique_impl("unique_counts", x, false, size, fill_value, want)?;
    Ok((u.values, u.counts))
}

/// The Array API's `unique_inverse`: the values of [`unique_values`] and, in `x`'s shape,
/// the position of each element's value among them (`values[inverse] == x`).
pub fn unique_inverse(
    x: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<(Array, Array)> {
    overridable!("unique_inverse"; [one x]; [size, fill_value]);
    let want = Want {
        inverse: true,
        ..VALUES
    };
    let u = unique_impl("unique_inverse", x, false, size, fill_value, want)?;
    Ok((u.values, u.inverse_indices))
}

/// The Array API's `unique_all`: values, first indices, inverse indices and counts, each
/// NaN a value of its own as in JAX's `unique_all` ([`unique_with`] has `jnp.unique`'s
/// options, where NaNs count as one value by default).
///
/// ```
/// use olympus::numpy as np;
/// let u = np::unique_all([3, 1, 1, 7], None, None)?;
/// assert_eq!(u.values.to_vec::<i32>()?, vec![1, 3, 7]);
/// assert_eq!(u.indices.to_vec::<i32>()?, vec![1, 0, 3]);
/// assert_eq!(u.inverse_indices.to_vec::<i32>()?, vec![1, 0, 0, 2]);
/// assert_eq!(u.counts.to_vec::<i32>()?, vec![2, 1, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unique_all(
    x: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<UniqueAll> {
    overridable!("unique_all"; [one x]; [size, fill_value]);
    let want = Want {
        indices: true,
        inverse: true,
        counts: true,
    };
    unique_impl("unique_all", x, false, size, fill_value, want)
}

/// Whether each element of `element` occurs in `test_elements` (bool, `element`'s shape;
/// negated with `invert`). NaN occurs nowhere, as NaN equals nothing.
///
/// ```
/// use olympus::numpy as np;
/// let r = np::isin([1, 2, 3, 4], [4, 2], false)?;
/// assert_eq!(r.to_vec::<bool>()?, vec![false, true, false, true]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn isin(element: impl ArrayLike, test_elements: impl ArrayLike, invert: bool) -> Result<Array> {
    overridable!("isin"; [one element, one test_elements]; [invert]);
    let func = "isin";
    let ops = vec![operand(func, 0, element)?, operand(func, 1, test_elements)?];
    let v = super::promote(func, ops, false)?;
    let (e, t) = (v[0].clone(), super::ravel(&v[1])?);
    let found = in_sorted(&e, &super::sort(&t, None)?)?;
    if invert {
        super::logical_not(found)
    } else {
        Ok(found)
    }
}

/// Whether each element of `e` equals an element of the sorted 1-d `t`: one binary search
/// per element.
fn in_sorted(e: &Array, t: &Array) -> Result<Array> {
    let m = t.size();
    if m == 0 {
        return super::zeros(e.shape(), DType::Bool);
    }
    let pos = super::clip(sorted_search(t, e, Side::Left)?, 0, m as i32 - 1)?;
    super::equal(super::take(t, pos, None)?, e)
}

/// Two array-likes flattened and promoted to one dtype.
fn flat_pair(func: &str, a: impl ArrayLike, b: impl ArrayLike) -> Result<(Array, Array)> {
    let v = super::promote_pair(func, a, b, false)?;
    Ok((super::ravel(&v.0)?, super::ravel(&v.1)?))
}

/// The sorted values of `x`, distinct unless `assume_unique` (NaNs as one value).
fn distinct(x: &Array, assume_unique: bool) -> Result<Array> {
    if assume_unique || x.size() == 0 {
        return super::sort(x, None);
    }
    // (`unique` without `size`: constants under `grad`, as JAX's.)
    let x = &crate::trace::known(x)?;
    let r = runs(x, true, false)?;
    compact("unique", &r.sorted, &r.starts, None, None)
}

/// The sorted values both arrays hold (flattened; NaN is in no intersection).
///
/// ```
/// use olympus::numpy as np;
/// let r = np::intersect1d([1, 3, 4, 3], [3, 1, 2, 1], false, None, None)?;
/// assert_eq!(r.to_vec::<i32>()?, vec![1, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn intersect1d(
    ar1: impl ArrayLike,
    ar2: impl ArrayLike,
    assume_unique: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("intersect1d"; [one ar1, one ar2]; [assume_unique, size, fill_value]);
    let func = "intersect1d";
    let (a, b) = flat_pair(func, ar1, ar2)?;
    let (a, b) = if size.is_some() && !assume_unique {
        (super::sort(&a, None)?, super::sort(&b, None)?)
    } else {
        (distinct(&a, assume_unique)?, distinct(&b, assume_unique)?)
    };
    let keep = in_sorted(&a, &super::sort(&b, None)?)?;
    let keep = match size {
        Some(_) if !assume_unique => super::logical_and(keep, first_of_runs(&a, true)?)?,
        _ => keep,
    };
    compact_by_extremes(func, &a, &keep, size, fill_value)
}

/// [`intersect1d`] with JAX's `return_indices=True`: the common values and, for each, the
/// flat position of its first occurrence in `ar1` and in `ar2`. With `size`, the padding
/// values are [`intersect1d`]'s and the padding positions are each array's length, as in
/// JAX. With `assume_unique` and repeated values anyway, each position is the value's first
/// (JAX leaves that case undefined).
///
/// ```
/// use olympus::numpy as np;
/// let (v, i1, i2) = np::intersect1d_indices([5, 1, 3, 3, 7, 1], [3, 1, 1, 9, 5], false, None, None)?;
/// assert_eq!(v.to_vec::<i32>()?, vec![1, 3, 5]);
/// assert_eq!(i1.to_vec::<i32>()?, vec![1, 2, 0]);
/// assert_eq!(i2.to_vec::<i32>()?, vec![1, 0, 4]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn intersect1d_indices(
    ar1: impl ArrayLike,
    ar2: impl ArrayLike,
    assume_unique: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<(Array, Array, Array)> {
    overridable!("intersect1d_indices"; [one ar1, one ar2]; [assume_unique, size, fill_value]);
    let func = "intersect1d_indices";
    let (a, b) = flat_pair(func, ar1, ar2)?;
    let values = intersect1d(&a, &b, assume_unique, size, fill_value)?;
    // A stable sort keeps equal values in their order, so the first of a value's run in
    // the sorted array is its first occurrence.
    let first = |x: &Array| -> Result<Array> {
        let n = x.size();
        if n == 0 || values.size() == 0 {
            return super::full(values.shape(), n as f64, Some(DType::Int32));
        }
        let perm = super::argsort(x, None)?;
        let sorted = super::take(x, &perm, None)?;
        let pos = super::clip(
            sorted_search(&sorted, &values, Side::Left)?,
            0,
            n as i32 - 1,
        )?;
        super::take(&perm, pos, None)
    };
    let (i1, i2) = (first(&a)?, first(&b)?);
    let Some(size) = size else {
        return Ok((values, i1, i2));
    };
    // Past the common values come the padding positions.
    let sa = super::sort(&a, None)?;
    let keep = in_sorted(&sa, &super::sort(&b, None)?)?;
    let keep = match assume_unique {
        true => keep,
        false => super::logical_and(keep, first_of_runs(&sa, true)?)?,
    };
    let count = super::sum(&keep, None, false)?;
    let valid = super::less(
        lax::iota(DType::Int32, &[size], 0, Some(a.device()))?,
        &count,
    )?;
    Ok((
        values,
        super::r#where(&valid, &i1, a.size() as i32)?,
        super::r#where(&valid, &i2, b.size() as i32)?,
    ))
}

/// Marks the first element of each run of equal values of the sorted 1-d `x`, or the
/// first row of each run of equal rows of the sorted 2-d `x` (with `equal_nan`, NaNs make
/// one run).
fn first_of_runs(x: &Array, equal_nan: bool) -> Result<Array> {
    let n = x.shape()[0];
    if n == 0 {
        return super::zeros(&[0], DType::Bool);
    }
    let (hi, lo) = (slice_axis(x, 0, 1, n)?, slice_axis(x, 0, 0, n - 1)?);
    let mut differ = super::not_equal(&hi, &lo)?;
    if equal_nan && x.dtype().is_floating() {
        let both = super::logical_and(super::isnan(&hi)?, super::isnan(&lo)?)?;
        differ = super::logical_and(differ, super::logical_not(both)?)?;
    }
    if differ.ndim() == 2 {
        // Rows differ where any of their elements do.
        differ = super::any(&differ, Some(&[1]), false)?;
    }
    super::concatenate([super::ones(&[1], DType::Bool)?, differ], 0)
}

/// The sorted distinct values either array holds (flattened; NaNs as one value).
pub fn union1d(
    ar1: impl ArrayLike,
    ar2: impl ArrayLike,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("union1d"; [one ar1, one ar2]; [size, fill_value]);
    let func = "union1d";
    let (a, b) = flat_pair(func, ar1, ar2)?;
    let mut all = super::concatenate([a, b], 0)?;
    if size.is_none() {
        // JAX's values without `size` (`concrete_or_error`): constants under `grad`.
        all = crate::trace::known(&all)?;
    }
    if all.size() == 0 {
        return compact(func, &all, &all.astype(DType::Bool)?, size, fill_value);
    }
    let r = runs(&all, true, false)?;
    compact(func, &r.sorted, &r.starts, size, fill_value)
}

/// The sorted distinct values of `ar1` that `ar2` does not hold (with `assume_unique`,
/// `ar1`'s values in their order, as JAX's; padding fills with 0 by default, as JAX's).
pub fn setdiff1d(
    ar1: impl ArrayLike,
    ar2: impl ArrayLike,
    assume_unique: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("setdiff1d"; [one ar1, one ar2]; [assume_unique, size, fill_value]);
    let func = "setdiff1d";
    // JAX keeps `ar1`'s dtype (its values are the answer); the comparison is promoted.
    let ar1 = super::asarray(operand(func, 0, ar1)?)?;
    let want = ar1.dtype();
    let (a, b) = flat_pair(func, ar1, ar2)?;
    let (a, first) = if assume_unique {
        // JAX keeps `ar1`'s order when told its values are unique.
        let all = super::ones(&[a.size()], DType::Bool)?;
        (a, all)
    } else if size.is_none() {
        let a = distinct(&a, false)?;
        let all = super::ones(&[a.size()], DType::Bool)?;
        (a, all)
    } else {
        let a = super::sort(&a, None)?;
        let f = first_of_runs(&a, true)?;
        (a, f)
    };
    let keep = super::logical_and(
        super::logical_not(in_sorted(&a, &super::sort(&b, None)?)?)?,
        first,
    )?;
    let out = compact(func, &a, &keep, size, Some(fill_value.unwrap_or(0.0)))?;
    if out.dtype() == want {
        Ok(out)
    } else {
        out.astype(want)
    }
}

/// The sorted values in exactly one of the arrays (each made distinct first unless
/// `assume_unique`).
pub fn setxor1d(
    ar1: impl ArrayLike,
    ar2: impl ArrayLike,
    assume_unique: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> Result<Array> {
    overridable!("setxor1d"; [one ar1, one ar2]; [assume_unique, size, fill_value]);
    let func = "setxor1d";
    let (a, b) = flat_pair(func, ar1, ar2)?;
    let (ua, ub) = if size.is_some() || assume_unique {
        (super::sort(&a, None)?, super::sort(&b, None)?)
    } else {
        (distinct(&a, false)?, distinct(&b, false)?)
    };
    // Without reading counts, each array's repeated values are marked and dropped below.
    let (fa, fb) = if size.is_some() && !assume_unique {
        (first_of_runs(&ua, true)?, first_of_runs(&ub, true)?)
    } else {
        (
            super::ones(&[ua.size()], DType::Bool)?,
            super::ones(&[ub.size()], DType::Bool)?,
        )
    };
    // A value of one array is kept where the other does not hold it.
    let ka = super::logical_and(&fa, super::logical_not(in_sorted(&ua, &ub)?)?)?;
    let kb = super::logical_and(&fb, super::logical_not(in_sorted(&ub, &ua)?)?)?;
    let vals = super::concatenate([ua, ub], 0)?;
    let keep = super::concatenate([ka, kb], 0)?;
    if vals.size() == 0 {
        return compact(func, &vals, &keep, size, fill_value);
    }
    // Sort the kept values to the front in order: dropped ones become the largest.
    let order = super::argsort(&vals, None)?;
    let vals = super::take(&vals, &order, None)?;
    let keep = super::take(&keep, &order, None)?;
    compact_by_extremes(func, &vals, &keep, size, fill_value)
}

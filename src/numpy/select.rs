//! Choosing among arrays (`select`, `choose`, `piecewise`), functional updates (`place`,
//! `put`, `put_along_axis`, `insert`, `delete`), lexicographic sorts and partitions, and
//! index arithmetic (`ravel_multi_index`, `trim_zeros`), as JAX computes them.

use super::overrides::overridable;
use super::stats::slice_axis;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

/// The element of the first of `choicelist` whose condition holds, or `default` where none
/// does (all broadcast together; the choices and default promote to one dtype).
///
/// ```
/// use olympus::numpy as np;
/// let x = np::arange(6)?;
/// let r = np::select([np::less(&x, 2)?, np::greater(&x, 3)?], [x.clone(), np::multiply(&x, 10)?], -1)?;
/// assert_eq!(r.to_vec::<i32>()?, vec![0, 1, -1, -1, 40, 50]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn select<C: ArrayLike, A: ArrayLike>(
    condlist: impl IntoIterator<Item = C>,
    choicelist: impl IntoIterator<Item = A>,
    default: impl ArrayLike,
) -> Result<Array> {
    overridable!("select"; [list condlist, list choicelist, one default]; []);
    let func = "select";
    let conds: Vec<Array> = condlist
        .into_iter()
        .enumerate()
        .map(|(i, c)| super::asarray(operand(func, i, c)?)?.astype(DType::Bool))
        .collect::<Result<_>>()?;
    let mut ops: Vec<Operand> = vec![operand(func, 0, default)?];
    for (i, c) in choicelist.into_iter().enumerate() {
        ops.push(operand(func, i + 1, c)?);
    }
    if conds.len() != ops.len() - 1 {
        return Err(Error::arg(
            func,
            format!(
                "condlist has {} conditions for {} choices",
                conds.len(),
                ops.len() - 1
            ),
        ));
    }
    if conds.is_empty() {
        return Err(Error::arg(func, "condlist must be non-empty"));
    }
    let v = super::promote(func, ops, false)?;
    // The first true condition wins: apply them from the last.
    let mut r = v[0].clone();
    for (c, x) in conds.iter().zip(&v[1..]).rev() {
        r = super::r#where(c, x, &r)?;
    }
    let shapes: Vec<&[usize]> = conds.iter().chain(&v).map(Array::shape).collect();
    let shape = crate::shape::broadcast_shapes_for(func, &shapes)?;
    super::broadcast_to(&r, &shape)
}

/// `choices[a[i]][i]` for each position of the integer array `a` (all broadcast together):
/// indices out of range are an error (`IndexMode::Raise`, eager only), wrap or clip.
pub fn choose<C: ArrayLike>(
    a: impl ArrayLike,
    choices: impl IntoIterator<Item = C>,
    mode: super::IndexMode,
) -> Result<Array> {
    overridable!("choose"; [one a, list choices]; [mode]);
    let func = "choose";
    let a = super::asarray(operand(func, 0, a)?)?;
    if !a.dtype().is_integer() {
        return Err(Error::dtype(func, &[a.dtype()], "a must be integer"));
    }
    let ops: Vec<Operand> = choices
        .into_iter()
        .enumerate()
        .map(|(i, c)| operand(func, i + 1, c))
        .collect::<Result<_>>()?;
    let n = ops.len();
    if n == 0 {
        return Err(Error::arg(func, "needs at least one choice"));
    }
    let choices = super::promote(func, ops, false)?;
    let idx = index_mode(func, &a, n, mode)?;
    let mut all: Vec<Array> = vec![idx];
    all.extend(choices);
    let b = super::broadcast_arrays(all)?;
    let stacked = super::stack(&b[1..], 0)?;
    let pick = super::expand_dims(b[0].astype(DType::Int32)?, &[0])?;
    let r = super::take_along_axis(&stacked, pick, 0)?;
    super::squeeze(r, Some(&[0]))
}

/// A function of an array, as a [`Piece`] holds it.
pub type PieceFn = Box<dyn Fn(&Array) -> Result<Array>>;

/// Integer indices `x` into a length `n`: checked (`Raise`, eager only), wrapped or
/// clipped, as `choose` and `ravel_multi_index` take them.
fn index_mode(func: &str, x: &Array, n: usize, mode: super::IndexMode) -> Result<Array> {
    match mode {
        super::IndexMode::Raise => {
            let bad = super::logical_or(super::less(x, 0)?, super::greater_equal(x, n as i64)?)?;
            let any = super::stats::concrete(
                func,
                super::any(bad, None, false).and_then(|b| b.item::<bool>()),
                "IndexMode::Raise needs the values; use Wrap or Clip under jit",
            )?;
            if any {
                return Err(Error::arg(func, format!("an index is outside 0..{n}")));
            }
            Ok(x.clone())
        }
        super::IndexMode::Wrap => super::r#mod(x, n as i64),
        super::IndexMode::Clip => super::clip(x, 0, n as i64 - 1),
        m => Err(Error::arg(
            func,
            format!("mode {m:?} is not one of Raise, Wrap or Clip"),
        )),
    }
}

/// One piece of [`piecewise`]: a constant, or a function of the whole input.
pub enum Piece {
    /// A constant value.
    Value(f64),
    /// A function applied to the whole input (its values are kept where its condition holds).
    Func(PieceFn),
}

impl From<f64> for Piece {
    fn from(v: f64) -> Piece {
        Piece::Value(v)
    }
}

impl Piece {
    /// A function piece.
    pub fn func(f: impl Fn(&Array) -> Result<Array> + 'static) -> Piece {
        Piece::Func(Box::new(f))
    }
}

/// Piecewise-defined values: where condition `i` holds, piece `i` (the last true condition
/// wins, as in JAX); where none holds, the extra last piece when there is one, else 0. Each
/// function piece is evaluated on all of `x`; results take `x`'s dtype.
///
/// ```
/// use olympus::numpy::{self as np, Piece};
/// let x = np::array([-2.0f32, -0.5, 0.5, 2.0])?;
/// let y = np::piecewise(&x, [np::less(&x, 0.0)?], vec![Piece::func(|v| np::negative(v)), Piece::Value(1.0)])?;
/// assert_eq!(y.to_vec::<f32>()?, vec![2.0, 0.5, 1.0, 1.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn piecewise<C: ArrayLike>(
    x: impl ArrayLike,
    condlist: impl IntoIterator<Item = C>,
    funclist: Vec<Piece>,
) -> Result<Array> {
    overridable!("piecewise"; [one x, list condlist]; []);
    let func = "piecewise";
    let x = super::asarray(operand(func, 0, x)?)?;
    let conds: Vec<Array> = condlist
        .into_iter()
        .enumerate()
        .map(|(i, c)| super::asarray(operand(func, i + 1, c)?)?.astype(DType::Bool))
        .collect::<Result<_>>()?;
    let nc = conds.len();
    let nf = funclist.len();
    if nf != nc && nf != nc + 1 {
        return Err(Error::arg(
            func,
            format!(
                "{nf} pieces for {nc} conditions (give {nc}, or {} with an otherwise)",
                nc + 1
            ),
        ));
    }
    let eval = |p: &Piece| -> Result<Array> {
        let v = match p {
            Piece::Value(v) => super::full(x.shape(), *v, Some(x.dtype()))?,
            Piece::Func(f) => f(&x)?,
        };
        super::broadcast_to(v.astype(x.dtype())?, x.shape())
    };
    let mut r = if nf == nc + 1 {
        eval(&funclist[nc])?
    } else {
        super::zeros(x.shape(), x.dtype())?
    };
    for (c, p) in conds.iter().zip(&funclist) {
        r = super::r#where(c, eval(p)?, &r)?;
    }
    Ok(r)
}

/// `arr` with the positions where `mask` holds (in C order) set to `vals` in turn, repeated
/// as needed (JAX's `place(..., inplace=False)`).
pub fn place(arr: impl ArrayLike, mask: impl ArrayLike, vals: impl ArrayLike) -> Result<Array> {
    overridable!("place"; [one arr, one mask, one vals]; []);
    let func = "place";
    let a = super::asarray(operand(func, 0, arr)?)?;
    let m = super::asarray(operand(func, 1, mask)?)?.astype(DType::Bool)?;
    let v = super::ravel(super::asarray(operand(func, 2, vals)?)?)?;
    if a.size() != m.size() {
        return Err(Error::shape(
            func,
            &[a.shape(), m.shape()],
            "arr and mask must have one size",
        ));
    }
    if v.size() == 0 {
        return Err(Error::arg(func, "cannot place values from an empty array"));
    }
    if a.size() == 0 {
        return Ok(a);
    }
    let m = super::ravel(&m)?;
    let rank = super::subtract(super::cumsum(m.astype(DType::Int32)?, None)?, 1)?;
    let pick = super::take(
        &v,
        super::r#mod(super::maximum(rank, 0)?, v.size() as i64)?,
        None,
    )?;
    let r = super::r#where(&m, pick.astype(a.dtype())?, super::ravel(&a)?)?;
    lax::reshape(&r, a.shape())
}

/// `a` with the flat positions `ind` set to `v` (repeated to `ind`'s length): positions out
/// of range are dropped (`IndexMode::Fill`, the default), clipped or wrapped; negative ones
/// count from the end (JAX's `put(..., inplace=False)`).
pub fn put(
    a: impl ArrayLike,
    ind: impl ArrayLike,
    v: impl ArrayLike,
    mode: super::IndexMode,
) -> Result<Array> {
    overridable!("put"; [one a, one ind, one v]; [mode]);
    let func = "put";
    let a = super::asarray(operand(func, 0, a)?)?;
    let ind = super::ravel(super::asarray(operand(func, 1, ind)?)?)?;
    let v = super::ravel(super::asarray(operand(func, 2, v)?)?)?;
    if !ind.dtype().is_integer() {
        return Err(Error::dtype(func, &[ind.dtype()], "ind must be integer"));
    }
    if a.size() == 0 || ind.size() == 0 || v.size() == 0 {
        return Ok(a);
    }
    if matches!(mode, super::IndexMode::Raise) {
        return Err(Error::arg(
            func,
            "IndexMode::Raise is not supported, as in JAX",
        ));
    }
    let v = super::resize(&v, &[ind.size()])?;
    let flat = super::ravel(&a)?.at(ind).mode(mode).set(v)?;
    lax::reshape(&flat, a.shape())
}

/// `arr` with `values` written at `indices` along `axis` (the partner of
/// [`take_along_axis`](super::take_along_axis); flattened when `axis` is `None`), out of
/// range positions treated by `mode`.
pub fn put_along_axis(
    arr: impl ArrayLike,
    indices: impl ArrayLike,
    values: impl ArrayLike,
    axis: Option<isize>,
    mode: super::IndexMode,
) -> Result<Array> {
    overridable!("put_along_axis"; [one arr, one indices, one values]; [axis, mode]);
    let func = "put_along_axis";
    let a = super::asarray(operand(func, 0, arr)?)?;
    let idx = super::asarray(operand(func, 1, indices)?)?;
    let vals = super::asarray(operand(func, 2, values)?)?;
    let out_shape = a.shape().to_vec();
    let (a, ax) = flat_or_axis(func, a, axis)?;
    let idx = if axis.is_none() {
        super::ravel(&idx)?
    } else {
        idx
    };
    if idx.ndim() != a.ndim() || !idx.dtype().is_integer() {
        return Err(Error::shape(
            func,
            &[a.shape(), idx.shape()],
            "indices must be integers with one axis per axis of arr",
        ));
    }
    // Broadcast the indices against arr (except along axis) and form flat positions.
    let mut want = a.shape().to_vec();
    want[ax] = idx.shape()[ax];
    let shape = crate::shape::broadcast_shapes_for(func, &[idx.shape(), &want])?;
    let n = a.shape()[ax] as i64;
    let idx = super::broadcast_to(&idx, &shape)?.astype(DType::Int32)?;
    // Negative positions count from the end; others out of range follow `mode`.
    let along = super::r#where(super::less(&idx, 0)?, super::add(&idx, n)?, &idx)?;
    let along = match mode {
        super::IndexMode::Clip | super::IndexMode::PromiseInBounds => {
            super::clip(&along, 0, n - 1)?
        }
        super::IndexMode::Wrap => super::r#mod(&along, n)?,
        super::IndexMode::Fill => along,
        super::IndexMode::Raise => {
            return Err(Error::arg(
                func,
                "IndexMode::Raise is not supported, as in JAX",
            ))
        }
    };
    let valid = super::logical_and(super::greater_equal(&along, 0)?, super::less(&along, n)?)?;
    let mut flat = super::zeros(&shape, DType::Int32)?;
    let strides: Vec<usize> = (0..a.ndim())
        .map(|d| a.shape()[d + 1..].iter().product())
        .collect();
    for d in 0..a.ndim() {
        let coord = if d == ax {
            along.clone()
        } else {
            let mut s = vec![1; shape.len()];
            s[d] = shape[d];
            lax::reshape(&super::arange(0..shape[d] as i32)?, &s)?
        };
        flat = super::add(&flat, super::multiply(coord, strides[d] as i64)?)?;
    }
    // Invalid positions go past the end, where the scatter drops them.
    let flat = super::r#where(&valid, &flat, a.size() as i64)?;
    let vals = super::broadcast_to(vals.astype(a.dtype())?, &shape)?;
    let out = super::ravel(&a)?
        .at(super::ravel(&flat)?)
        .mode(super::IndexMode::Fill)
        .set(super::ravel(&vals)?)?;
    lax::reshape(&out, &out_shape)
}

/// `a` flattened with axis 0 when `axis` is `None`, else `a` and the normalised axis.
fn flat_or_axis(func: &str, a: Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((super::ravel(&a)?, 0)),
        Some(x) => {
            let ax = normalize_axis(func, x, a.ndim())?;
            Ok((a, ax))
        }
    }
}

/// `arr` without the entries at positions `obj` along `axis` (flattened when `axis` is
/// `None`); negative positions count from the end, repeats are removed once, and positions
/// out of range are an error.
pub fn delete(arr: impl ArrayLike, obj: &[isize], axis: Option<isize>) -> Result<Array> {
    overridable!("delete"; [one arr]; [obj, axis]);
    let func = "delete";
    let a = super::asarray(operand(func, 0, arr)?)?;
    let (a, ax) = flat_or_axis(func, a, axis)?;
    let n = a.shape()[ax];
    let mut drop = vec![false; n];
    for &i in obj {
        let j = if i < 0 { i + n as isize } else { i };
        if j < 0 || j >= n as isize {
            return Err(Error::arg(
                func,
                format!("index {i} is out of range for axis {ax} of length {n}"),
            ));
        }
        drop[j as usize] = true;
    }
    let keep: Vec<i32> = (0..n as i32).filter(|&i| !drop[i as usize]).collect();
    super::take(
        &a,
        Array::from_slice(&keep, &[keep.len()])?,
        Some(ax as isize),
    )
}

/// `arr` with `values` inserted before positions `obj` along `axis` (flattened when `axis`
/// is `None`), as JAX's: one position inserts all of `values`' slices along the axis,
/// several insert one slice each (values broadcast); negative positions count from the end
/// and all are clipped into range.
pub fn insert(
    arr: impl ArrayLike,
    obj: &[isize],
    values: impl ArrayLike,
    axis: Option<isize>,
) -> Result<Array> {
    overridable!("insert"; [one arr, one values]; [obj, axis]);
    let func = "insert";
    let a = super::asarray(operand(func, 0, arr)?)?;
    let vals = super::asarray(operand(func, 1, values)?)?.astype(a.dtype())?;
    let (a, ax) = flat_or_axis(func, a, axis)?;
    let n = a.shape()[ax];
    // As JAX: values gain leading axes up to arr's rank; one position inserts as many slices
    // as the values have along the axis, several insert one each (values broadcast).
    let mut vals = vals;
    while vals.ndim() < a.ndim() {
        vals = super::expand_dims(&vals, &[0])?;
    }
    let positions: Vec<isize> = match obj {
        [one] => vec![*one; vals.shape()[ax]],
        many => many.to_vec(),
    };
    let k = positions.len();
    let mut vshape = a.shape().to_vec();
    vshape[ax] = k;
    let vals = super::broadcast_to(&vals, &vshape).map_err(|_| {
        Error::shape(
            func,
            &[vals.shape(), &vshape],
            "values do not broadcast to the inserted slices",
        )
    })?;
    // Negative positions count from the end; all are clipped into 0..=n.
    let idx: Vec<usize> = positions
        .iter()
        .map(|&i| (if i < 0 { i + n as isize } else { i }).clamp(0, n as isize) as usize)
        .collect();
    // Value j lands at idx[j] plus its rank among the inserted (a stable sort of idx).
    let mut by: Vec<usize> = (0..k).collect();
    by.sort_by_key(|&j| idx[j]);
    let mut slot = vec![usize::MAX; n + k];
    for (rank, &j) in by.iter().enumerate() {
        slot[idx[j] + rank] = n + j;
    }
    let mut next = 0i32;
    let order: Vec<i32> = slot
        .iter()
        .map(|&s| {
            if s == usize::MAX {
                next += 1;
                next - 1
            } else {
                s as i32
            }
        })
        .collect();
    let joined = super::concatenate([a, vals], ax as isize)?;
    super::take(
        &joined,
        Array::from_slice(&order, &[order.len()])?,
        Some(ax as isize),
    )
}

/// `filt` without its leading (`trim` has `f`) and trailing (`b`) zeros along each axis
/// (slices all zero over the other axes); reads the values, so not under `jit`.
pub fn trim_zeros(filt: impl ArrayLike, trim: &str) -> Result<Array> {
    overridable!("trim_zeros"; [one filt]; [trim]);
    let func = "trim_zeros";
    let x = super::asarray(operand(func, 0, filt)?)?;
    let (front, back) = (trim.contains(['f', 'F']), trim.contains(['b', 'B']));
    if x.ndim() == 0 {
        return Err(Error::shape(func, &[x.shape()], "needs at least one axis"));
    }
    let mut out = x.clone();
    for ax in 0..x.ndim() {
        let others: Vec<isize> = (0..x.ndim() as isize)
            .filter(|&d| d != ax as isize)
            .collect();
        let nz = super::any(&x, Some(&others), false)?;
        let nz: Vec<bool> = super::stats::concrete(
            func,
            nz.to_vec::<bool>(),
            "trim_zeros reads the values; it cannot run under jit",
        )?;
        let (start, stop) = match nz.iter().position(|&b| b) {
            None => (0, 0),
            Some(first) => {
                let last = nz.iter().rposition(|&b| b).unwrap_or(first);
                (
                    if front { first } else { 0 },
                    if back { last + 1 } else { nz.len() },
                )
            }
        };
        out = slice_axis(&out, ax, start, stop)?;
    }
    Ok(out)
}

/// Flat positions in an array of shape `dims` of the multi-indices `multi_index` (one
/// integer array per axis, broadcast together), in the indices' promoted dtype (int32
/// when there are none), as in JAX: out of range entries are an error
/// (`IndexMode::Raise`, eager only), wrap or clip. An error when the dtype cannot hold
/// the largest flat position.
pub fn ravel_multi_index<A: ArrayLike>(
    multi_index: impl IntoIterator<Item = A>,
    dims: &[usize],
    mode: super::IndexMode,
) -> Result<Array> {
    overridable!("ravel_multi_index"; [list multi_index]; [dims, mode]);
    ravel_impl(
        "ravel_multi_index",
        multi_index,
        dims,
        mode,
        super::Order::C,
        None,
    )
}

/// [`ravel_multi_index`] with NumPy's `order=` and JAX's `dtype=`: [`Order::F`](super::Order::F)
/// numbers the positions column-major (the first dimension varying fastest); `dtype`
/// (an integer dtype) replaces the indices' promoted dtype.
///
/// ```
/// use olympus::numpy as np;
/// let (rows, cols) = (np::array([1, 2, 0])?, np::array([3, 0, 1])?);
/// let f = np::ravel_multi_index_with([rows, cols], &[3, 4], np::IndexMode::Raise, np::Order::F, None)?;
/// assert_eq!(f.to_vec::<i32>()?, vec![10, 2, 3]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn ravel_multi_index_with<A: ArrayLike>(
    multi_index: impl IntoIterator<Item = A>,
    dims: &[usize],
    mode: super::IndexMode,
    order: super::Order,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("ravel_multi_index_with"; [list multi_index]; [dims, mode, order, dtype]);
    ravel_impl(
        "ravel_multi_index_with",
        multi_index,
        dims,
        mode,
        order,
        dtype,
    )
}

fn ravel_impl<A: ArrayLike>(
    func: &str,
    multi_index: impl IntoIterator<Item = A>,
    dims: &[usize],
    mode: super::IndexMode,
    order: super::Order,
    dtype: Option<DType>,
) -> Result<Array> {
    let idx: Vec<Array> = multi_index
        .into_iter()
        .enumerate()
        .map(|(i, x)| super::asarray(operand(func, i, x)?))
        .collect::<Result<_>>()?;
    if idx.len() != dims.len() {
        return Err(Error::arg(
            func,
            format!("{} index arrays for {} dimensions", idx.len(), dims.len()),
        ));
    }
    if let Some(x) = idx.iter().find(|x| !x.dtype().is_integer()) {
        return Err(Error::dtype(func, &[x.dtype()], "indices must be integers"));
    }
    // JAX's `result_type(int, *multi_index)`: weak scalars defer to the arrays.
    let dtype = match dtype {
        Some(d) => d,
        None => {
            use crate::dtype::TypeSpec;
            let specs: Vec<TypeSpec> = std::iter::once(TypeSpec::weak(DType::Int32))
                .chain(idx.iter().map(|x| match x.weak_type() {
                    true => TypeSpec::weak(x.dtype()),
                    false => TypeSpec::strong(x.dtype()),
                }))
                .collect();
            crate::dtype::result_type(&specs).dtype
        }
    };
    if !dtype.is_integer() {
        return Err(Error::dtype(
            func,
            &[dtype],
            "dtype must be an integer dtype",
        ));
    }
    // The positions are computed in int32 (values past it would not index a buffer).
    let total = dims
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
    let max = dtype
        .integer_range()
        .map_or(0, |(_, hi)| hi.min(i32::MAX as i64)) as u64;
    if total.is_none_or(|t| t > max + 1) {
        return Err(Error::arg(
            func,
            format!("the flat indices of dims {dims:?} do not fit {dtype}"),
        ));
    }
    let idx = super::broadcast_arrays(idx)?;
    let mut flat: Option<Array> = None;
    let mut stride: i64 = 1;
    // The dimension varying fastest comes first.
    let mut pairs: Vec<(&Array, &usize)> = idx.iter().zip(dims).collect();
    if order == super::Order::C {
        pairs.reverse();
    }
    for (x, &d) in pairs {
        let x = x.astype(DType::Int32)?;
        let x = index_mode(func, &x, d, mode)?;
        let term = super::multiply(&x, stride)?;
        flat = Some(match flat {
            None => term,
            Some(f) => super::add(f, term)?,
        });
        stride *= d as i64;
    }
    match flat {
        Some(f) => f.astype(dtype),
        None => super::zeros(&[], dtype),
    }
}

/// Positions that sort by several keys along `axis`: the last key first, earlier keys
/// breaking its ties (stable; NaN last).
///
/// ```
/// use olympus::numpy as np;
/// let i = np::lexsort([np::array([1, 2, 3, 4])?, np::array([2, 1, 2, 1])?], -1)?;
/// assert_eq!(i.to_vec::<i32>()?, vec![1, 3, 0, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn lexsort<A: ArrayLike>(keys: impl IntoIterator<Item = A>, axis: isize) -> Result<Array> {
    overridable!("lexsort"; [list keys]; [axis]);
    let func = "lexsort";
    let keys: Vec<Array> = keys
        .into_iter()
        .enumerate()
        .map(|(i, x)| super::asarray(operand(func, i, x)?))
        .collect::<Result<_>>()?;
    let Some(first) = keys.first() else {
        return Err(Error::arg(func, "needs at least one key"));
    };
    if first.ndim() == 0 {
        return Err(Error::shape(
            func,
            &[first.shape()],
            "keys need at least one axis",
        ));
    }
    let keys = super::broadcast_arrays(keys)?;
    let ax = normalize_axis(func, axis, keys[0].ndim())? as isize;
    // Least significant key first; each stable sort keeps the order of the previous keys.
    let mut perm = super::argsort(&keys[0], Some(ax))?;
    for k in &keys[1..] {
        let ordered = super::take_along_axis(k, &perm, ax)?;
        let p = super::argsort(&ordered, Some(ax))?;
        perm = super::take_along_axis(&perm, &p, ax)?;
    }
    Ok(perm)
}

/// `a` rearranged along `axis` so that position `kth` holds the value a sort would put
/// there, with the smaller values before it (ascending) and the others after it (in
/// descending order, NaN first), as JAX's partition: the negated `top_k` of the negated
/// values, then the `top_k` of the values (so +0 ranks above -0).
pub fn partition(a: impl ArrayLike, kth: isize, axis: isize) -> Result<Array> {
    overridable!("partition"; [one a]; [kth, axis]);
    let func = "partition";
    let (x, ax, k) = part_args(func, a, kth, axis)?;
    let n = x.shape()[x.ndim() - 1];
    let low = match x.dtype() {
        // JAX's trick for unsigned values: `-top_k(-(x + 1)) - 1`, wrapping.
        d if d.is_unsigned_integer() => super::subtract(
            super::negative(lax::top_k(&super::negative(super::add(&x, 1)?)?, k + 1)?.0)?,
            1,
        )?,
        _ => super::negative(lax::top_k(&super::negative(&x)?, k + 1)?.0)?,
    };
    let high = lax::top_k(&x, n - k - 1)?.0;
    super::swapaxes(super::concatenate([low, high], -1)?, -1, ax)
}

/// The positions [`partition`] takes from, as JAX's argpartition: those of the `kth + 1`
/// smallest (`top_k` of the negated values), then the other positions in increasing order.
pub fn argpartition(a: impl ArrayLike, kth: isize, axis: isize) -> Result<Array> {
    overridable!("argpartition"; [one a]; [kth, axis]);
    let func = "argpartition";
    let (x, ax, k) = part_args(func, a, kth, axis)?;
    let last = x.ndim() - 1;
    let n = x.shape()[last];
    let low = match x.dtype() {
        d if d.is_unsigned_integer() => lax::top_k(&super::negative(super::add(&x, 1)?)?, k + 1)?.1,
        _ => lax::top_k(&super::negative(&x)?, k + 1)?.1,
    };
    // The rest in increasing position order: mark the low ones and sort the marks stably.
    let marks = super::ones(x.shape(), DType::Int32)?;
    let marked = super::put_along_axis(&marks, &low, 0, Some(-1), super::IndexMode::Fill)?;
    let high = slice_axis(
        &super::argsort_with(&marked, Some(-1), true, true)?,
        last,
        0,
        n - k - 1,
    )?;
    super::swapaxes(super::concatenate([low, high], -1)?, -1, ax)
}

fn part_args(
    func: &str,
    a: impl ArrayLike,
    kth: isize,
    axis: isize,
) -> Result<(Array, isize, usize)> {
    let x = super::asarray(operand(func, 0, a)?)?;
    if x.ndim() == 0 {
        return Err(Error::shape(func, &[x.shape()], "needs at least one axis"));
    }
    let ax = normalize_axis(func, axis, x.ndim())?;
    let k = normalize_axis(func, kth, x.shape()[ax].max(1)).map_err(|_| {
        Error::arg(
            func,
            format!("kth {kth} is out of range for length {}", x.shape()[ax]),
        )
    })?;
    if x.shape()[ax] == 0 {
        return Err(Error::shape(func, &[x.shape()], "the axis is empty"));
    }
    Ok((super::swapaxes(&x, ax as isize, -1)?, ax as isize, k))
}

/// A nested list of arrays for [`block`].
#[derive(Clone, Debug)]
pub enum Block {
    /// One array (or array-like converted with `Block::from`).
    Leaf(Array),
    /// A list of blocks, joined along one axis.
    List(Vec<Block>),
}

impl From<Array> for Block {
    fn from(a: Array) -> Block {
        Block::Leaf(a)
    }
}

impl From<&Array> for Block {
    fn from(a: &Array) -> Block {
        Block::Leaf(a.clone())
    }
}

impl<T: Into<Block>> From<Vec<T>> for Block {
    fn from(v: Vec<T>) -> Block {
        Block::List(v.into_iter().map(Into::into).collect())
    }
}

/// An array assembled from nested lists of blocks: the innermost lists join along the last
/// axis, the next ones along the axis before it, and so on; arrays of fewer dimensions than
/// the nesting depth gain leading axes of length 1.
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let a = np::ones(&[2, 2], DType::Int32)?;
/// let b = np::block(vec![
///     vec![a.clone(), np::zeros(&[2, 1], DType::Int32)?],
///     vec![np::zeros(&[1, 2], DType::Int32)?, np::full(&[1, 1], 5, None)?],
/// ])?;
/// assert_eq!(b.to_vec::<i32>()?, vec![1, 1, 0, 1, 1, 0, 0, 0, 5]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn block(arrays: impl Into<Block>) -> Result<Array> {
    let func = "block";
    let b = arrays.into();
    fn depth(b: &Block) -> Result<usize> {
        match b {
            Block::Leaf(_) => Ok(0),
            Block::List(v) => {
                let ds: Vec<usize> = v.iter().map(depth).collect::<Result<_>>()?;
                match ds.first() {
                    None => Err(Error::arg("block", "lists must not be empty")),
                    Some(&d) if ds.iter().all(|&e| e == d) => Ok(d + 1),
                    Some(_) => Err(Error::arg("block", "lists must be nested to one depth")),
                }
            }
        }
    }
    fn max_ndim(b: &Block) -> usize {
        match b {
            Block::Leaf(a) => a.ndim(),
            Block::List(v) => v.iter().map(max_ndim).max().unwrap_or(0),
        }
    }
    let d = depth(&b)?;
    let ndim = d.max(max_ndim(&b));
    fn join(b: &Block, level: usize, d: usize, ndim: usize) -> Result<Array> {
        match b {
            Block::Leaf(a) => {
                let mut s = vec![1; ndim - a.ndim()];
                s.extend(a.shape());
                lax::reshape(a, &s)
            }
            Block::List(v) => {
                let parts: Vec<Array> = v
                    .iter()
                    .map(|x| join(x, level + 1, d, ndim))
                    .collect::<Result<_>>()?;
                // The outermost list joins along axis -d, the innermost along -1.
                super::concatenate(parts, level as isize - d as isize)
            }
        }
    }
    join(&b, 0, d, ndim).map_err(|e| match e {
        Error::ShapeMismatch { shapes, reason, .. } => Error::ShapeMismatch {
            func: func.to_string(),
            shapes,
            reason,
        },
        e => e,
    })
}

//! Gathers, searches and concatenations whose operands are read in ranges that fit one
//! kernel's bindings.

use super::cache::out_bytes;
use super::program::run;
use super::windows::{max_bindings, place, placeable, region_windows, target, Region};
use crate::array::Array;
use crate::codegen::{Node, Program};
use crate::dtype::DType;
use crate::error::Result;
use crate::primitive::Primitive;
use crate::runtime::{BufferKind, Device};
use crate::shape::{Aval, Layout};

/// A gather from an array too large to bind in one kernel beside its indices and output
/// (wgpu's GL backend binds 16 windows of 128 MiB): ranges along the gathered axis, each
/// gathered for every index and kept where the index falls in it. `None` where the whole
/// array takes at most half the bindings (boxes of the output then fit, see
/// [`run_in_blocks`]) or no range fits.
pub(crate) fn gather_in_ranges(
    dev: &Device,
    axis: usize,
    x: &Array,
    idx: &Array,
    out: &Aval,
) -> Result<Option<Array>> {
    use crate::lax;
    use crate::primitive::{BinaryOp, CompareOp, Literal};
    let len = x.shape()[axis];
    let Some(run) = axis_ranges(dev, x, axis, out)? else {
        return Ok(None);
    };
    let at = |v: usize| {
        lax::full(
            idx.shape(),
            Literal::U32(v as u32).cast(idx.dtype()),
            Some(dev),
        )
    };
    // Indices clamped into range, as the gather clamps them.
    let mut clamped = lax::binary(BinaryOp::Min, idx, &at(len - 1)?)?;
    if idx.dtype() == DType::Int32 {
        clamped = lax::binary(BinaryOp::Max, &clamped, &at(0)?)?;
    }
    let mut acc: Option<Array> = None;
    for t0 in (0..len).step_by(run) {
        let t1 = (t0 + run).min(len);
        let part_x = axis_range(x, axis, t0, t1)?;
        let local = lax::binary(BinaryOp::Sub, &clamped, &at(t0)?)?;
        let part = lax::gather(&part_x, &local, axis)?;
        acc = Some(match acc {
            None => part,
            Some(a) => {
                let inside = lax::binary(
                    BinaryOp::And,
                    &lax::compare(CompareOp::Ge, &clamped, &at(t0)?)?,
                    &lax::compare(CompareOp::Lt, &clamped, &at(t1)?)?,
                )?;
                lax::select(&inside, &part, &a)?
            }
        });
    }
    Ok(acc.map(|a| a.with_weak(out.weak)))
}

/// The length of the ranges along `axis` an operation reads `x` in where all of `x` takes
/// more than half of a kernel's bindings (each range then takes at most half, the other
/// operands and the output the rest); `None` where it does not, or no range fits.
pub(super) fn axis_ranges(
    dev: &Device,
    x: &Array,
    axis: usize,
    out: &Aval,
) -> Result<Option<usize>> {
    let t = target(dev);
    let half = max_bindings(dev) / 2;
    let len = x.shape()[axis];
    let range = |t0: usize, t1: usize| -> Region {
        let (mut s, mut l) = (vec![0; x.ndim()], x.shape().to_vec());
        (s[axis], l[axis]) = (t0, t1);
        (s, l)
    };
    if len < 2 || out.size() == 0 || region_windows(dev, x, &range(0, len), &t)? <= half {
        return Ok(None);
    }
    // Ranges of one length span as many windows, give or take the one an unaligned
    // start adds.
    let mut run = len / 2;
    while run > 1 && region_windows(dev, x, &range(0, run), &t)? + 1 > half {
        run /= 2;
    }
    if region_windows(dev, x, &range(0, run), &t)? + 1 > half {
        return Ok(None);
    }
    Ok(Some(run))
}

/// Elements `t0..t1` along `axis` of `x` (a view).
pub(super) fn axis_range(x: &Array, axis: usize, t0: usize, t1: usize) -> Result<Array> {
    let (mut s, mut l) = (vec![0; x.ndim()], x.shape().to_vec());
    (s[axis], l[axis]) = (t0, t1);
    crate::lax::slice(x, &s, &l, None)
}

/// A sorted search in rows too large to bind beside the queries and the output (see
/// [`axis_ranges`]): each range of the rows searched by itself, the counts added (the
/// elements before a query in a sorted row are those before it in each of its ranges).
pub(crate) fn search_in_ranges(
    dev: &Device,
    (axis, right): (usize, bool),
    x: &Array,
    queries: &Array,
    out: &Aval,
) -> Result<Option<Array>> {
    let Some(run) = axis_ranges(dev, x, axis, out)? else {
        return Ok(None);
    };
    let len = x.shape()[axis];
    let mut acc: Option<Array> = None;
    for t0 in (0..len).step_by(run) {
        let part = axis_range(x, axis, t0, (t0 + run).min(len))?;
        let count = crate::lax::search_sorted(&part, queries, axis, right)?;
        acc = Some(match acc {
            None => count,
            Some(a) => crate::lax::binary(crate::primitive::BinaryOp::Add, &a, &count)?,
        });
    }
    Ok(acc)
}

/// Operands past which a concatenation whose parts interleave in the result is done by
/// moving the joined dimension first (see [`concatenate`]) rather than by one kernel that
/// reads every operand for each element.
const INTERLEAVED_PARTS: usize = 4;

/// Concatenation: empty operands are dropped. Where every dimension before the joined one
/// has size 1 (a `stack` or `concatenate` along the first axis), each operand is one run
/// of the result: it is copied in as it is, or made contiguous first. Otherwise two to
/// [`INTERLEAVED_PARTS`] operands go into one kernel, which reads each of them (clamped)
/// for every element and keeps the one in range; more are joined along the first axis of
/// views with the joined dimension moved first, then moved back and made contiguous, so
/// each element is read three times whatever the number of operands (one kernel reading
/// them all costs a load per operand per element). Runs that do not start and end on
/// whole words (packed dtypes) go into kernels of up to 8 operands.
pub(crate) fn concatenate(
    dev: &Device,
    dimension: usize,
    inputs: &[&Array],
    out: Aval,
) -> Result<Array> {
    let parts: Vec<&Array> = inputs
        .iter()
        .copied()
        .filter(|a| a.shape()[dimension] > 0)
        .collect();
    if parts.is_empty() {
        // Every operand is empty along the axis: any of them gives the (empty) result.
        let mut shape = inputs[0].shape().to_vec();
        shape[dimension] = 0;
        return crate::lax::full(
            &shape,
            crate::primitive::Literal::I32(0).cast(out.dtype),
            Some(dev),
        )
        .map(|a| a.with_weak(out.weak));
    }
    if parts.len() == 1 {
        return Ok(parts[0].with_weak(out.weak));
    }
    if let Some(joined) = copied_in(dev, dimension, &parts, &out)? {
        return Ok(joined);
    }
    if parts.len() > INTERLEAVED_PARTS && dimension > 0 {
        let mut perm: Vec<usize> = (0..out.shape.len()).collect();
        perm.remove(dimension);
        perm.insert(0, dimension);
        let moved = parts
            .iter()
            .map(|p| crate::lax::transpose(p, &perm))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Array> = moved.iter().collect();
        let shape: Vec<usize> = perm.iter().map(|&d| out.shape[d]).collect();
        let first = concatenate(dev, 0, &refs, Aval::new(shape, out.dtype, out.weak))?;
        let mut back: Vec<usize> = (1..out.shape.len()).collect();
        back.insert(dimension, 0);
        return crate::lax::copy(&crate::lax::transpose(&first, &back)?);
    }
    if parts.len() > 8 {
        // A kernel binds at most 8 operands (storage bindings are limited).
        let groups: Vec<Array> = parts
            .chunks(8)
            .map(|c| crate::lax::bind(Primitive::Concatenate { dimension }, c, Some(dev)))
            .collect::<Result<_>>()?;
        let refs: Vec<&Array> = groups.iter().collect();
        return concatenate(dev, dimension, &refs, out);
    }
    let program = Program::new(
        parts.iter().map(|a| a.dtype()).collect(),
        vec![Node {
            args: (0..parts.len()).collect(),
            dtype: out.dtype,
            prim: Primitive::Concatenate { dimension },
        }],
    );
    run(dev, &program, &parts, out)
}

/// The concatenation made by copying each operand into its run of the result, where every
/// dimension before `dimension` has size 1 and each run starts and ends on a whole word
/// (see [`placeable`]); `None` otherwise.
fn copied_in(
    dev: &Device,
    dimension: usize,
    parts: &[&Array],
    out: &Aval,
) -> Result<Option<Array>> {
    if out.shape[..dimension].iter().any(|&d| d != 1) {
        return Ok(None);
    }
    let total = out.size();
    let mut first = 0;
    for p in parts {
        if !placeable(out.dtype, first, p.size(), total) {
            return Ok(None);
        }
        first += p.size();
    }
    let storage = dev.alloc(
        BufferKind::Storage,
        out_bytes(out),
        "concatenate",
        &out.shape,
        out.dtype,
    )?;
    let eb = out.dtype.storage_bytes() as u64;
    let mut first = 0;
    for p in parts {
        // Copies start on a word: a view starting inside one (a packed dtype's slice) is
        // copied to a buffer of its own first.
        let aligned =
            p.layout().is_contiguous() && (p.layout().offset as u64 * eb).is_multiple_of(4);
        let p = if aligned {
            (*p).clone()
        } else {
            crate::lax::copy(p)?
        };
        place(dev, &p, &storage, first as u64 * eb)?;
        first += p.size();
    }
    Ok(Some(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&out.shape),
        out.clone(),
    )))
}

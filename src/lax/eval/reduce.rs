//! Reductions (one pass per level of the tree), fused reductions of `jit` chains, and
//! `argmax`/`argmin`.

use std::sync::Arc;

use super::cache::{cached_kernel, memo, operands_of, out_bytes, with_inputs, KernelCache};
use super::windows::{
    as_out, bind_windows_from, check_bindings, check_metadata, input_windows, max_bindings, target,
    Operand, Rebased,
};
use crate::array::Array;
use crate::codegen::reduce::Epilogue;
use crate::codegen::{self, widened, Node, Program};
use crate::dtype::DType;
use crate::error::Result;
use crate::primitive::Primitive;
use crate::runtime::{BufferKind, Device};
use crate::shape::{Aval, Layout};

/// [`Primitive::ArgReduce`]: a tree of passes over (value, position) pairs
/// ([`codegen::reduce::arg_reduction`]), which reads `x` once. Along a leading axis of an
/// array whose innermost axis is kept, column passes (neighbouring threads read
/// neighbouring elements); otherwise the axis is moved last and rows are reduced. Where
/// the first pass would bind more buffers than a kernel may (wgpu's GL backend on arrays
/// past 1.75 GiB), the two-tree form ([`arg_reduce_in_two_trees`]) splits as reductions do.
pub(crate) fn arg_reduce(
    dev: &Device,
    max: bool,
    axis: usize,
    x: &Array,
    out: Aval,
) -> Result<Array> {
    use crate::codegen::reduce::{arg_accumulator, arg_reduction, pass_chunk, Source};
    use crate::primitive::ReduceOp;
    let name = if max { "argmax" } else { "argmin" };
    let op = if max { ReduceOp::Max } else { ReduceOp::Min };
    // 8- and 16-bit integers and bfloat16 in their 32-bit compute dtype (exact, so the
    // order is kept); float16 is read as it is stored.
    let x = match widened(x.dtype()) {
        Some(wide) => crate::lax::convert_element_type(x, wide)?,
        None => x.clone(),
    };
    let shape = x.shape().to_vec();
    let ndim = shape.len();
    let keep: Vec<usize> = (0..ndim).filter(|&d| d != axis).collect();
    let columns = axis + 1 < ndim && x.layout().strides.last() == Some(&1);
    let perm: Vec<usize> = if columns {
        std::iter::once(axis).chain(keep.iter().copied()).collect()
    } else {
        keep.iter().copied().chain(std::iter::once(axis)).collect()
    };
    let outer: u64 = keep.iter().map(|&d| shape[d] as u64).product();
    let mut k = shape[axis] as u64;
    let target = target(dev);
    // (CPU adapters take short reductions in one pass: [`pass_chunk`].)
    let cpu = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    let inner = &dev.0;
    let mut values = crate::lax::transpose(&x, &perm)?;
    let mut positions: Option<Array> = None;
    loop {
        let chunk = pass_chunk(columns, (outer, k), cpu);
        let parts = k.div_ceil(chunk).max(1);
        let n = outer * parts;
        let acc = arg_accumulator(values.dtype());
        let alloc = |d: DType| {
            dev.alloc(
                BufferKind::Storage,
                n * d.storage_bytes() as u64,
                name,
                &out.shape,
                out.dtype,
            )
        };
        let (best, at) = (alloc(acc)?, alloc(DType::Int32)?);
        if n > 0 {
            let out_windows = codegen::windows_for(best.bytes.max(at.bytes), &target);
            let st = values.storage()?;
            let windows = input_windows(dev, st, 0, &target);
            let index = match &positions {
                Some(p) => Some((
                    p.storage()?,
                    codegen::windows_for(p.storage()?.bytes, &target),
                )),
                None => None,
            };
            // (A texture is no storage buffer: `TEXTURE` counts none.)
            let total = windows + index.map_or(0, |(_, w)| w) + 2 * out_windows;
            if total > max_bindings(dev) && positions.is_none() {
                return arg_reduce_in_two_trees(dev, max, axis, &x, out);
            }
            check_bindings(dev, name, total, best.bytes, &out)?;
            // The length of the contiguous runs a first pass reads (rows: the reduced
            // length; columns: the kept one), for `vec4` loads. Later passes read the
            // partials one element at a time (a 16th of the data at most).
            let run = match (&positions, columns) {
                (None, false) => k,
                (None, true) => outer,
                _ => 1,
            };
            let index_windows = index.map(|(_, w)| w);
            let key = (
                "arg_reduce",
                (max, values.dtype(), values.layout().clone(), windows, run),
                (
                    index_windows,
                    columns,
                    (outer, k, parts, chunk),
                    out_windows,
                ),
            );
            let (kernel, meta, threads) = memo(dev, key, || {
                let source =
                    Source::buffer(op, values.dtype(), values.layout(), windows, run, &target);
                let (g, threads) = arg_reduction(
                    max,
                    &source,
                    index_windows,
                    columns,
                    (outer, k, parts, chunk),
                    out_windows,
                    &target,
                );
                let kernel = inner.kernel(&g.body, || g.source())?;
                Ok((kernel, Arc::<[u32]>::from(g.meta), threads))
            })?;
            check_metadata(name, &meta, &[&values], values.shape())?;
            let bindings = bind_windows_from(
                [(st, windows, 0)]
                    .into_iter()
                    .chain(index.map(|(p, w)| (p, w, 0)))
                    .chain([(&best, out_windows, 0), (&at, out_windows, 0)]),
                target.window_bytes,
            );
            inner.dispatch(
                &kernel,
                &bindings,
                &meta,
                threads.div_ceil(codegen::WORKGROUP),
            )?;
        }
        let shape = if columns {
            [parts as usize, outer as usize]
        } else {
            [outer as usize, parts as usize]
        };
        let partial = |storage, dtype| {
            Array::from_storage(
                dev.clone(),
                storage,
                Layout::contiguous(&shape),
                Aval::new(shape.to_vec(), dtype, false),
            )
        };
        let found = partial(at, DType::Int32);
        if parts == 1 {
            return as_out(crate::lax::reshape(&found, &out.shape)?, &out);
        }
        values = partial(best, acc);
        positions = Some(found);
        k = parts;
    }
}

/// [`Primitive::ArgReduce`] as two reduction trees: the extreme `m` of each row, then the
/// least position of `x == m` (or of a NaN, which the extreme then is) as one fused
/// program reduced by its minimum. It reads `x` twice, but each tree splits past a
/// kernel's bindings as reductions do.
fn arg_reduce_in_two_trees(
    dev: &Device,
    max: bool,
    axis: usize,
    x: &Array,
    out: Aval,
) -> Result<Array> {
    use crate::primitive::{CompareOp, Literal, ReduceOp, UnaryOp};
    let op = if max { ReduceOp::Max } else { ReduceOp::Min };
    let shape = x.shape().to_vec();
    let m = crate::lax::reduce(op, x, &[axis])?;
    let kept: Vec<usize> = (0..shape.len()).filter(|&d| d != axis).collect();
    let m = crate::lax::broadcast_in_dim(&m, &shape, &kept)?;
    let d = x.dtype();
    let node = |prim, args: Vec<usize>, dtype| Node { prim, args, dtype };
    let mut nodes = vec![node(
        Primitive::Compare(CompareOp::Eq),
        vec![0, 1],
        DType::Bool,
    )];
    if d.is_floating() {
        nodes.push(node(Primitive::Unary(UnaryOp::IsNan), vec![0], DType::Bool));
        nodes.push(node(
            Primitive::Binary(crate::primitive::BinaryOp::Or),
            vec![2, 3],
            DType::Bool,
        ));
    }
    let hit = 1 + nodes.len();
    nodes.push(node(
        Primitive::Iota {
            dtype: DType::Int32,
            shape: shape.clone(),
            dimension: axis,
        },
        vec![],
        DType::Int32,
    ));
    nodes.push(node(
        Primitive::Full {
            shape: shape.clone(),
            value: Literal::I32(shape[axis] as i32),
        },
        vec![],
        DType::Int32,
    ));
    nodes.push(node(
        Primitive::Select,
        vec![hit, hit + 1, hit + 2],
        DType::Int32,
    ));
    let program = Program::new(vec![d, d], nodes);
    fused_reduce(
        dev,
        ReduceOp::Min,
        &[axis],
        &program,
        &[x, &m],
        &shape,
        out,
        None,
    )
}

/// The binary operation that combines two partial results of a reduction or scan `op`.
pub(super) fn combining(op: crate::primitive::ReduceOp) -> crate::primitive::BinaryOp {
    use crate::primitive::{BinaryOp, ReduceOp};
    match op {
        ReduceOp::Sum => BinaryOp::Add,
        ReduceOp::Prod => BinaryOp::Mul,
        ReduceOp::Max => BinaryOp::Max,
        ReduceOp::Min => BinaryOp::Min,
        ReduceOp::And => BinaryOp::And,
        ReduceOp::Or => BinaryOp::Or,
    }
}

/// Runs a reduction: the reduced axes are moved last (a view), each pass reduces chunks of
/// every row to partials, until one value per row is left.
pub(crate) fn reduce(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    x: &Array,
    axes: &[usize],
    out: Aval,
) -> Result<Array> {
    if axes.iter().map(|&a| x.shape()[a]).product::<usize>() == 1 {
        // One element per result is the result, as XLA (which drops unit reduced axes)
        // gives it: a sum of one -0.0 is -0.0, where adding it to the init value is not.
        return as_out(crate::lax::reshape(x, &out.shape)?, &out);
    }
    if let Some(r) = reduce_in_slabs(dev, op, x, axes, &out)? {
        return Ok(r);
    }
    reduce_from(dev, op, First::Array(x), x.shape(), axes, out, None)
}

/// [`reduce`] followed by `epilogue`'s consumers of the result: the result and the
/// epilogue's outputs, which the reduction's last pass computes where it can.
pub(crate) fn reduce_with(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    x: &Array,
    axes: &[usize],
    out: Aval,
    epilogue: &EpilogueCall<'_>,
) -> Result<(Array, Vec<Array>)> {
    let one = axes.iter().map(|&a| x.shape()[a]).product::<usize>() == 1;
    // (An operand of one window never splits into slabs.)
    let small = input_windows(dev, x.storage()?, 0, &target(dev)) <= 1;
    if !one && small && widened(x.dtype()).is_none() {
        let first = First::Array(x);
        let outs = [out];
        let (mut r, more) =
            reduce_from_all(dev, op, first, x.shape(), axes, &outs, None, Some(epilogue))?;
        let r = r.remove(0);
        let more = match more {
            Some(m) => m,
            None => epilogue.run_after(dev, std::slice::from_ref(&r))?,
        };
        return Ok((r, more));
    }
    let reduce = crate::primitive::Primitive::Reduce {
        op,
        axes: axes.to_vec(),
    };
    let r = crate::lax::eval_primitive(reduce, &[x], vec![out], Some(dev))?.remove(0);
    let more = epilogue.run_after(dev, std::slice::from_ref(&r))?;
    Ok((r, more))
}

/// A reduction of an array whose buffer needs more storage bindings than a kernel may have
/// (wgpu's GL backend: 16 of 128 MiB): the leading axis in slabs, each reduced by itself
/// binding only its part of the buffer ([`Rebased`]). Where the leading axis is reduced the
/// slabs' results are combined in the accumulator's type; where it is kept each slab's
/// rows are copied into their place in the result. `None` where no split is needed or
/// none fits (then the reduction reports the bindings it needs).
pub(super) fn reduce_in_slabs(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    x: &Array,
    axes: &[usize],
    out: &Aval,
) -> Result<Option<Array>> {
    let t = target(dev);
    let st = x.storage()?;
    let acc = crate::codegen::reduce::accumulator(op, x.dtype());
    let acc_bytes = acc.storage_bytes() as u64;
    let max = max_bindings(dev);
    let rows = x.shape().first().copied().unwrap_or(0);
    let reduced = axes.contains(&0);
    // A slab's output: the whole result's shape where the leading axis is reduced, else
    // the slab's rows of it.
    let out_shape = |r: usize| -> Vec<usize> {
        let mut s = out.shape.clone();
        if !reduced {
            s[0] = r;
        }
        s
    };
    // The partials a pass writes are at most its output's size in the accumulator's type,
    // and one more window for their chunks.
    let out_windows = |r: usize| {
        codegen::windows_for(crate::shape::size_of(&out_shape(r)) as u64 * acc_bytes, &t) + 1
    };
    // Kept, the leading axis must lead the result too (callers may ask for any shape of
    // the reduced values).
    if rows < 2 || !reduced && out.shape.first() != Some(&rows) {
        return Ok(None);
    }
    let windows = input_windows(dev, st, 0, &t);
    if windows == codegen::TEXTURE || windows + out_windows(rows) <= max {
        return Ok(None);
    }
    let slab = |r0: usize, r1: usize| -> Result<Array> {
        let mut start = vec![0; x.ndim()];
        start[0] = r0;
        let mut limit = x.shape().to_vec();
        limit[0] = r1;
        crate::lax::slice(x, &start, &limit, None)
    };
    let fits = |r: usize| -> Result<bool> {
        let a = slab(0, r)?;
        let w = Rebased::new(dev, a.layout().clone(), a.dtype(), st.bytes, &t).windows;
        Ok(w + out_windows(r) <= max)
    };
    let mut per = rows;
    while per > 1 && !fits(per)? {
        per /= 2;
    }
    if !fits(per)? {
        return Ok(None);
    }
    let combine = combining(op);
    let whole = Aval::new(out.shape.clone(), acc, false);
    let kept = if reduced {
        None
    } else {
        let bytes = crate::shape::size_of(&out.shape) as u64 * acc_bytes;
        Some(dev.alloc(BufferKind::Storage, bytes, op.name(), &out.shape, out.dtype)?)
    };
    let mut total: Option<Array> = None;
    for r0 in (0..rows).step_by(per) {
        let r1 = (r0 + per).min(rows);
        let part = slab(r0, r1)?;
        let aval = Aval::new(out_shape(r1 - r0), acc, false);
        let r = reduce_from(dev, op, First::Array(&part), part.shape(), axes, aval, None)?;
        match &kept {
            // Each slab's rows are contiguous in the result (the leading axis is its first).
            Some(dst) => {
                let row = crate::shape::size_of(&out.shape[1..]) as u64 * acc_bytes;
                let src = r.storage()?;
                dev.0.copy_buffer(
                    src,
                    r.layout().offset as u64 * acc_bytes,
                    dst,
                    r0 as u64 * row,
                    (r1 - r0) as u64 * row,
                )?;
            }
            None => {
                total = Some(match total {
                    None => r,
                    Some(t) => crate::lax::binary(combine, &t, &r)?,
                })
            }
        }
    }
    let result = match kept {
        Some(storage) => {
            Array::from_storage(dev.clone(), storage, Layout::contiguous(&out.shape), whole)
        }
        None => total.expect("at least two slabs"),
    };
    as_out(result, out).map(Some)
}

/// Runs a reduction of the values of an elementwise `program` over `inputs` (each of the
/// program's output `shape`) without storing them: the first pass computes each value where
/// it reads it (jit's fusion of a producer chain into its trailing reduction), with the
/// kernel `cache` holds for the operands' layouts when it has one. The result has the
/// bits of [`super::program::run`] followed by the reduction.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fused_reduce(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    axes: &[usize],
    program: &Program,
    inputs: &[&Array],
    shape: &[usize],
    out: Aval,
    cache: Option<&KernelCache>,
) -> Result<Array> {
    let mut r = fused_reduce_all(dev, op, axes, program, inputs, shape, &[out], cache)?;
    Ok(r.remove(0))
}

/// [`fused_reduce`] of each output of `program` (all of one dtype, one aval per output in
/// `outs`) in one first pass: sibling reductions that share operands read them once (one
/// kernel instead of one each), and each result has the bits of its reduction alone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fused_reduce_all(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    axes: &[usize],
    program: &Program,
    inputs: &[&Array],
    shape: &[usize],
    outs: &[Aval],
    cache: Option<&KernelCache>,
) -> Result<Vec<Array>> {
    let first = (program, inputs, shape);
    Ok(fused_reduce_with(dev, op, axes, first, outs, cache, None)?.0)
}

/// Elementwise consumers of a reduction's results (jit's fusion of what a reduction
/// feeds): `program` over `inputs`, one per program input, where `None` marks an input
/// that is a result (`given[k]`: which one, reshaped to the program's shape), writing
/// `outs` (all of the program's shape, of as many elements as each result). A reduction
/// that ends in its first pass computes them in that pass
/// ([`crate::codegen::reduce::Epilogue`]); any other runs them as a kernel of their own
/// after it (with `cache`'s kernels), with the same bits either way.
pub(crate) struct EpilogueCall<'a> {
    pub(crate) program: &'a Program,
    pub(crate) inputs: &'a [Option<&'a Array>],
    pub(crate) given: &'a [Option<usize>],
    pub(crate) outs: &'a [Aval],
    pub(crate) cache: Option<&'a KernelCache>,
}

impl EpilogueCall<'_> {
    /// The epilogue as a kernel of its own over the reduction's `results`.
    pub(crate) fn run_after(&self, dev: &Device, results: &[Array]) -> Result<Vec<Array>> {
        let shape = &self.outs[0].shape;
        let arrays = self
            .inputs
            .iter()
            .zip(self.given)
            .map(|(a, g)| match (a, g) {
                (Some(a), _) => Ok((*a).clone()),
                (None, Some(j)) => crate::lax::reshape(&results[*j], shape),
                (None, None) => unreachable!("an epilogue input is an array or a result"),
            })
            .collect::<Result<Vec<Array>>>()?;
        let arrays: Vec<&Array> = arrays.iter().collect();
        super::program::run_cached(dev, self.program, &arrays, self.outs, self.cache)
    }
}

/// [`fused_reduce_all`] of `first` (a program, its operands and its shape), followed by
/// `epilogue`'s consumers of the results: the results and the epilogue's outputs.
pub(crate) fn fused_reduce_with(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    axes: &[usize],
    (program, inputs, shape): (&Program, &[&Array], &[usize]),
    outs: &[Aval],
    cache: Option<&KernelCache>,
    epilogue: Option<&EpilogueCall<'_>>,
) -> Result<(Vec<Array>, Vec<Array>)> {
    // Every way but the one pass over a program: the results, then the epilogue's kernel.
    let after = |results: Vec<Array>| -> Result<(Vec<Array>, Vec<Array>)> {
        let more = match epilogue {
            Some(e) => e.run_after(dev, &results)?,
            None => Vec::new(),
        };
        Ok((results, more))
    };
    use crate::codegen::reduce::{COLUMN_CHUNK, ROW_CHUNK};
    let value = program.dtype_of(program.outputs[0]);
    let out_dtype = outs[0].dtype;
    if widened(value).is_some() || widened(out_dtype).is_some() {
        // The values converted to their compute dtype in the same program, reduced in
        // that dtype ([`widening`]).
        let wide = widened(value).unwrap_or(value);
        let mut p = program.clone();
        if wide != value {
            for &o in &program.outputs {
                p.nodes.push(Node {
                    args: vec![o],
                    dtype: wide,
                    prim: Primitive::ConvertElementType {
                        dtype: wide,
                        weak: false,
                    },
                });
            }
            let end = p.inputs.len() + p.nodes.len();
            p.outputs = (end - program.outputs.len()..end).collect();
        }
        let wide_outs: Vec<Aval> = outs
            .iter()
            .map(|o| Aval::new(o.shape.clone(), widened(o.dtype).unwrap_or(o.dtype), o.weak))
            .collect();
        let r = fused_reduce_all(dev, op, axes, &p, inputs, shape, &wide_outs, None)?;
        let r = r.into_iter().zip(outs).map(|(r, o)| as_out(r, o));
        return after(r.collect::<Result<_>>()?);
    }
    // Operands past what one kernel binds (wgpu's GL backend: 16 windows of 128 MiB): the
    // values are stored first, as unfused, since storing and reducing them each split.
    let t = target(dev);
    let elements = crate::shape::size_of(shape) as u64;
    let read: u64 = inputs
        .iter()
        .map(|a| Ok(input_windows(dev, a.storage()?, elements, &t)))
        .sum::<Result<u64>>()?;
    let partials = elements * 4 / ROW_CHUNK.min(COLUMN_CHUNK) + outs[0].size() as u64 * 4;
    let written = outs.len() as u64 * codegen::windows_for(partials, &t);
    if read + written > max_bindings(dev) && outs.len() > 1 {
        // Each value's reduction on its own, which may still fit.
        let r = program.outputs.iter().zip(outs).map(|(&o, out)| {
            let mut p = program.clone();
            p.outputs = vec![o];
            fused_reduce(dev, op, axes, &p, inputs, shape, out.clone(), None)
        });
        return after(r.collect::<Result<_>>()?);
    }
    // One value per result (each result is that value, as [`reduce`] gives it), or operands
    // past the bindings: the values are stored, then reduced.
    let one = axes.iter().map(|&a| shape[a]).product::<usize>() == 1;
    if one || read + written > max_bindings(dev) {
        let values: Vec<Aval> = outs
            .iter()
            .map(|_| Aval::new(shape.to_vec(), value, false))
            .collect();
        let values = super::program::run_program(dev, program, inputs, &values, None, true)?;
        let r = values
            .iter()
            .zip(outs)
            .map(|(v, o)| reduce(dev, op, v, axes, o.clone()));
        return after(r.collect::<Result<_>>()?);
    }
    let first = First::Program(program, inputs);
    let (results, fused) = reduce_from_all(dev, op, first, shape, axes, outs, cache, epilogue)?;
    match fused {
        Some(more) => Ok((results, more)),
        None => after(results),
    }
}

/// What the first pass of a reduction reads.
pub(super) enum First<'a> {
    Array(&'a Array),
    /// An elementwise program's values over its operands.
    Program(&'a Program, &'a [&'a Array]),
}

/// The passes of a reduction over `axes` of an array of `shape` read from `first`; a
/// program's first pass reuses the kernel `cache` holds for its operands' layouts.
pub(super) fn reduce_from(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    first: First<'_>,
    shape: &[usize],
    axes: &[usize],
    out: Aval,
    cache: Option<&KernelCache>,
) -> Result<Array> {
    let mut r = reduce_from_all(dev, op, first, shape, axes, &[out], cache, None)?.0;
    Ok(r.remove(0))
}

/// [`reduce_from`] of every output of a program (`outs`, one per output, all of one
/// dtype): its first pass reads the operands once and reduces each value on its own
/// accumulator into its own partials, which later passes reduce one by one (so each
/// result has the bits of its reduction alone).
///
/// With an `epilogue`, a program's reduction that ends in its first pass computes it there
/// and gives its outputs too (`Some`); otherwise the caller runs it (`None`).
#[allow(clippy::too_many_arguments)]
fn reduce_from_all(
    dev: &Device,
    op: crate::primitive::ReduceOp,
    first: First<'_>,
    shape: &[usize],
    axes: &[usize],
    outs: &[Aval],
    cache: Option<&KernelCache>,
    epilogue: Option<&EpilogueCall<'_>>,
) -> Result<(Vec<Array>, Option<Vec<Array>>)> {
    let out = outs[0].clone();
    use crate::codegen::reduce::{
        accumulator, column_reduction, pass_chunk, row_reduction, Source,
    };
    let ndim = shape.len();
    let keep: Vec<usize> = (0..ndim).filter(|i| !axes.contains(i)).collect();
    // Reducing leading axes of an array whose innermost axis is kept and contiguous: the
    // column kernel (neighbouring threads read neighbouring elements). Otherwise the
    // reduced axes are moved last and each row is reduced by workgroups. A program's
    // values are contiguous.
    let inner_contiguous = match &first {
        First::Array(x) => x.layout().strides.last() == Some(&1),
        First::Program(..) => true,
    };
    let columns = !axes.is_empty()
        && !keep.is_empty()
        && keep.last() == Some(&(ndim - 1))
        && inner_contiguous;
    let perm: Vec<usize> = if columns {
        axes.iter().chain(keep.iter()).copied().collect()
    } else {
        keep.iter().chain(axes.iter()).copied().collect()
    };
    let identity = perm.iter().enumerate().all(|(i, &p)| i == p);
    let permute = |x: &Array| -> Result<Array> {
        if identity {
            Ok(x.clone())
        } else {
            crate::lax::transpose(x, &perm)
        }
    };
    // The first pass's operands, moved as the values are: an array, or a program (whose
    // iotas count along their dimension's new place) over permuted operands.
    let (mut cur, fused): (Option<Array>, Option<(Program, Vec<Array>)>) = match first {
        First::Array(x) => (Some(permute(x)?), None),
        First::Program(p, inputs) => {
            let mut p = p.clone();
            for node in &mut p.nodes {
                match &mut node.prim {
                    Primitive::Iota {
                        shape, dimension, ..
                    } => {
                        *shape = perm.iter().map(|&d| shape[d]).collect();
                        *dimension = perm.iter().position(|&d| d == *dimension).unwrap_or(0);
                    }
                    Primitive::Full { shape, .. } => {
                        *shape = perm.iter().map(|&d| shape[d]).collect();
                    }
                    Primitive::Pad { low, high, .. } => {
                        *low = perm.iter().map(|&d| low[d]).collect();
                        *high = perm.iter().map(|&d| high[d]).collect();
                    }
                    _ => {}
                }
            }
            let inputs = inputs.iter().map(|a| permute(a)).collect::<Result<_>>()?;
            (None, Some((p, inputs)))
        }
    };
    let permuted: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
    let rows: u64 = keep.iter().map(|&i| shape[i] as u64).product();
    let mut k: u64 = axes.iter().map(|&i| shape[i] as u64).product();
    let in_dtype = match (&cur, &fused) {
        (Some(x), _) => x.dtype(),
        // (A program of constants alone has no inputs.)
        (None, Some((p, _))) => p.dtype_of(p.outputs[0]),
        (None, None) => unreachable!("a reduction reads an array or a program"),
    };
    let acc = accumulator(op, in_dtype);
    let inner = &dev.0;
    let target = target(dev);
    // (CPU adapters take short reductions in one pass: [`pass_chunk`].)
    let cpu = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    let name = op.name();
    loop {
        // The length of the contiguous runs this pass reads: a row pass reads rows of the
        // current `k` (the partials of the previous pass), so whether they are whole `vec4`s
        // is decided again for every pass.
        let run = if columns { rows } else { k };
        let chunk = pass_chunk(columns, (rows, k), cpu);
        let parts = k.div_ceil(chunk).max(1);
        let n = rows * parts;
        let bytes = n * acc.storage_bytes() as u64;
        let storages = outs
            .iter()
            .map(|o| dev.alloc(BufferKind::Storage, bytes, name, &o.shape, o.dtype))
            .collect::<Result<Vec<_>>>()?;
        // The epilogue goes into the last pass where the results are its accumulators and
        // everything the epilogue binds is one window.
        let ep = epilogue.filter(|e| {
            let one = |bytes: u64| codegen::windows_for(bytes, &target) == 1;
            parts == 1
                && n > 0
                && outs.iter().all(|o| o.dtype == acc)
                && one(bytes)
                && e.outs.iter().all(|o| {
                    o.size() as u64 == rows
                        && codegen::reduce::epilogue_stores(o.dtype)
                        && one(out_bytes(o))
                })
                && e.inputs.iter().flatten().all(|a| {
                    a.storage().is_ok_and(|st| one(st.bytes)) && a.shape() == e.outs[0].shape
                })
        });
        let mut ep_outs = Vec::new();
        if n > 0 {
            let out_windows = codegen::windows_for(storages[0].bytes, &target);
            // The pass's kernel, metadata and workgroups, and the operands' buffers.
            let threads = |vector: bool| {
                if !columns {
                    n
                } else if vector {
                    rows / 4 * parts
                } else {
                    rows * parts
                }
            };
            let generate = |source: &Source, e: Option<&Epilogue>| {
                let split = (k, parts, chunk);
                if columns {
                    column_reduction(op, source, rows, split, out_windows, e, &target).0
                } else {
                    row_reduction(op, source, rows, split, out_windows, e, &target)
                }
            };
            // The epilogue's operands (a given input's description is not read).
            let ep_shape = ep.map(|e| e.outs[0].shape.clone()).unwrap_or_default();
            let given_layout = Layout::contiguous(&ep_shape);
            let ep_operands: Vec<Operand<'_>> = match ep {
                Some(e) => e
                    .inputs
                    .iter()
                    .zip(e.program.inputs.iter())
                    .map(|(a, &d)| match a {
                        Some(a) => Ok(Operand::new(a.layout(), d, a.storage()?.bytes, &target)),
                        None => Ok(Operand {
                            layout: &given_layout,
                            windows: 0,
                            padded: true,
                        }),
                    })
                    .collect::<Result<_>>()?,
                None => Vec::new(),
            };
            let ep_given: Vec<Option<usize>> = ep.map(|e| e.given.to_vec()).unwrap_or_default();
            // Bindings the epilogue adds; its part of a kernel's key; its code after `source`.
            let ep_bindings = ep.map_or(0, |e| {
                e.outs.len() as u64 + ep_operands.iter().map(|o| o.windows).sum::<u64>()
            });
            let ep_key = |e: &EpilogueCall<'_>| {
                let read: Vec<_> = ep_operands
                    .iter()
                    .map(|o| (o.layout.clone(), o.windows, o.padded))
                    .collect();
                (e.program.clone(), ep_given.clone(), read, ep_shape.clone())
            };
            let epilogue_for = |source: &Source, e: Option<&EpilogueCall<'_>>| match e {
                Some(e) => with_inputs(e.program, &ep_operands, &ep_shape, |descs| {
                    let io = (descs, e.given);
                    Epilogue::new(source, out_windows, e.program, io, &ep_shape, &target)
                })
                .map(Some),
                None => Ok(None),
            };
            let ep_used: Option<&EpilogueCall<'_>>;
            let (kernel, meta, threads, stores) = match (&cur, &fused) {
                (Some(x), _) => {
                    let st = x.storage()?;
                    let mut windows = input_windows(dev, st, 0, &target);
                    // A slab of a larger buffer binds only the windows it reads.
                    let rebased = (windows != codegen::TEXTURE
                        && windows + out_windows > max_bindings(dev))
                    .then(|| Rebased::new(dev, x.layout().clone(), x.dtype(), st.bytes, &target));
                    let (layout, base) = match &rebased {
                        Some(r) => {
                            windows = r.windows;
                            (&r.layout, r.base)
                        }
                        None => (x.layout(), 0),
                    };
                    check_bindings(dev, name, windows + out_windows, st.bytes, &out)?;
                    ep_used = ep.filter(|_| {
                        rebased.is_none()
                            && windows + out_windows + ep_bindings <= max_bindings(dev)
                    });
                    let ep = ep_used;
                    let key = (
                        "reduce",
                        (op, x.dtype(), layout.clone(), windows, run),
                        (columns, rows, (k, parts, chunk), out_windows),
                        ep.map(ep_key),
                    );
                    let (kernel, meta, vector) = memo(dev, key, || {
                        let source = Source::buffer(op, x.dtype(), layout, windows, run, &target);
                        let g = generate(&source, epilogue_for(&source, ep)?.as_ref());
                        let kernel = inner.kernel(&g.body, || g.source())?;
                        Ok((kernel, Arc::<[u32]>::from(g.meta), source.vector))
                    })?;
                    (kernel, meta, threads(vector), vec![(st, windows, base)])
                }
                (None, Some((p, inputs))) => {
                    let inputs: Vec<&Array> = inputs.iter().collect();
                    let elements = crate::shape::size_of(shape) as u64;
                    let (stores, operands) = operands_of(dev, &inputs, elements, &target)?;
                    let total: u64 = outs.len() as u64 * out_windows
                        + operands.iter().map(|o| o.windows).sum::<u64>();
                    check_bindings(dev, name, total, bytes, &out)?;
                    // (An epilogue that does not fit the bindings runs after.)
                    ep_used = ep.filter(|_| total + ep_bindings <= max_bindings(dev));
                    let ep = ep_used;
                    // The layout the values would have had stored, then moved.
                    let strides = Layout::contiguous(shape).strides;
                    let stored = Layout {
                        shape: permuted.clone(),
                        strides: perm.iter().map(|&d| strides[d]).collect(),
                        offset: 0,
                    };
                    let vector = Source::program_reads_vectors(in_dtype, &stored, run, &target);
                    let all_windows = vec![out_windows; outs.len()];
                    let generate = || {
                        let source = with_inputs(p, &operands, &permuted, |descs| {
                            let walk = match columns {
                                true => codegen::Walk::Columns(rows),
                                false => codegen::Walk::Rows(k),
                            };
                            Source::program(p, descs, &permuted, &stored, (run, walk), &target)
                        })?;
                        Ok(generate(&source, epilogue_for(&source, ep)?.as_ref()))
                    };
                    // A jitted step's cache tells kernels with an epilogue by their longer
                    // lists of operands (one per epilogue input, given ones too).
                    let mut keyed: Vec<Operand<'_>> = operands.clone();
                    if ep.is_some() {
                        keyed.extend(ep_operands.iter().cloned());
                    }
                    // A jitted step keeps its kernels; other calls find theirs by every
                    // argument of the generator.
                    let (kernel, meta) = match cache {
                        Some(_) => {
                            cached_kernel(dev, cache, &keyed, &permuted, &all_windows, generate)?
                        }
                        None => {
                            let read: Vec<_> = operands
                                .iter()
                                .map(|o| (o.layout.clone(), o.windows, o.padded))
                                .collect();
                            let key = (
                                "reduce_program",
                                (p.clone(), permuted.clone(), stored.clone(), run, op),
                                (read, ep.map(ep_key)),
                                (columns, rows, (k, parts, chunk), out_windows),
                            );
                            memo(dev, key, || {
                                let g = generate()?;
                                let kernel = inner.kernel(&g.body, || g.source())?;
                                Ok((kernel, Arc::<[u32]>::from(g.meta)))
                            })?
                        }
                    };
                    let windows = operands.iter().map(|o| o.windows).collect::<Vec<_>>();
                    (
                        kernel,
                        meta,
                        threads(vector),
                        stores
                            .into_iter()
                            .zip(windows)
                            .map(|(st, w)| (st, w, 0))
                            .collect(),
                    )
                }
                (None, None) => unreachable!("a reduction reads an array or a program"),
            };
            let groups = threads.div_ceil(codegen::WORKGROUP);
            let operands: Vec<&Array> = match (&cur, &fused) {
                (Some(x), _) => vec![x],
                (None, Some((_, inputs))) => inputs.iter().collect(),
                (None, None) => Vec::new(),
            };
            check_metadata(name, &meta, &operands, shape)?;
            // The epilogue's operands and outputs bind after the reduction's own.
            let mut ep_stores = Vec::new();
            if let Some(e) = ep_used {
                for a in e.inputs.iter().flatten() {
                    ep_stores.push(a.storage()?.clone());
                }
                for o in e.outs {
                    let st =
                        dev.alloc(BufferKind::Storage, out_bytes(o), name, &o.shape, o.dtype)?;
                    ep_outs.push((st, o));
                }
            }
            let bindings = bind_windows_from(
                stores
                    .into_iter()
                    .chain(storages.iter().map(|st| (st, out_windows, 0)))
                    .chain(ep_stores.iter().map(|st| (st, 1, 0)))
                    .chain(ep_outs.iter().map(|(st, _)| (st, 1, 0))),
                target.window_bytes,
            );
            inner.dispatch(&kernel, &bindings, &meta, groups)?;
        }
        let shape = if columns {
            [parts as usize, rows as usize]
        } else {
            [rows as usize, parts as usize]
        };
        let mut partials = storages.into_iter().map(|st| {
            Array::from_storage(
                dev.clone(),
                st,
                Layout::contiguous(&shape),
                Aval::new(shape.to_vec(), acc, false),
            )
        });
        if parts == 1 {
            let results = partials
                .zip(outs)
                .map(|(p, o)| as_out(crate::lax::reshape(&p, &o.shape)?, o))
                .collect::<Result<Vec<_>>>()?;
            let more = (!ep_outs.is_empty()).then(|| {
                ep_outs
                    .into_iter()
                    .map(|(st, o)| {
                        let layout = Layout::contiguous(&o.shape);
                        Array::from_storage(dev.clone(), st, layout, o.clone())
                    })
                    .collect()
            });
            return Ok((results, more));
        }
        if outs.len() > 1 {
            // Each value's partials on their own, as the passes below would take them.
            let axis = [usize::from(!columns)];
            let results = partials
                .zip(outs)
                .map(|(p, o)| {
                    reduce_from(dev, op, First::Array(&p), &shape, &axis, o.clone(), None)
                })
                .collect::<Result<_>>()?;
            return Ok((results, None));
        }
        cur = partials.next();
        k = parts;
    }
}

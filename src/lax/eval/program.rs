//! Running a generated elementwise program: one dispatch, or planned in slabs, rebased
//! windows and boxes where its buffers need more storage bindings than a kernel may have.

use std::sync::Arc;

use super::cache::{
    cached_kernel, eager_cache, elementwise_kernel, gcd, operands_of, out_bytes, pointwise,
    program_name, KernelCache,
};
use super::windows::{
    bind_windows, bind_windows_from, check_bindings, check_metadata, max_bindings, place,
    placeable, region_windows, target, Operand, Rebased, Region,
};
use crate::array::Array;
use crate::codegen::rules::{elementwise, Elementwise};
use crate::codegen::{self, Node, Program, Target};
use crate::dtype::DType;
use crate::error::Result;
use crate::primitive::Primitive;
use crate::runtime::{BufferKind, Device};
use crate::shape::{Aval, Layout};

/// Runs an elementwise program over `inputs`, producing a new contiguous array.
pub(crate) fn run(dev: &Device, program: &Program, inputs: &[&Array], out: Aval) -> Result<Array> {
    let mut outs = run_cached(dev, program, inputs, &[out], None)?;
    Ok(outs.remove(0))
}

/// [`run`] for a program with several outputs (all of one shape), reusing the kernels
/// (pipeline and metadata) `cache` holds for `program`: a jit step runs the same program
/// every call, usually over operands laid out as before, so a hit skips generating,
/// hashing and looking up the WGSL source.
pub(crate) fn run_cached(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    outs: &[Aval],
    cache: Option<&KernelCache>,
) -> Result<Vec<Array>> {
    run_program(dev, program, inputs, outs, cache, true)
}

/// [`run_cached`], splitting the output into boxes ([`run_in_blocks`]) where `blocks` says
/// so and nothing else fits the kernel's bindings.
pub(super) fn run_program(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    outs: &[Aval],
    cache: Option<&KernelCache>,
    blocks: bool,
) -> Result<Vec<Array>> {
    let shape = &outs[0].shape;
    debug_assert!(outs.iter().all(|o| &o.shape == shape));
    let n = crate::shape::size_of(shape) as u64;
    let storages = outs
        .iter()
        .map(|out| {
            let name = program_name(program);
            dev.alloc(BufferKind::Storage, out_bytes(out), name, shape, out.dtype)
        })
        .collect::<Result<Vec<_>>>()?;
    if n > 0 {
        let mut target = target(dev);
        target.written_out = codegen::written_out(program, n, &target);
        let (stores, operands) = operands_of(dev, inputs, n, &target)?;
        let out_windows = vec![1; outs.len()];
        let total: u64 = outs.len() as u64 + operands.iter().map(|o| o.windows).sum::<u64>();
        let bytes = out_bytes(&outs[0]);
        // Past the device's bindings: the parts of the buffers views read, else slabs
        // along the leading axis, else boxes of the output.
        if total > max_bindings(dev)
            && (run_rebased(dev, program, inputs, &storages, outs)?
                || run_in_slabs(dev, program, inputs, &storages, outs)?
                || blocks && run_in_blocks(dev, program, inputs, &storages, outs)?)
        {
            return Ok(finish(dev, storages, outs));
        }
        check_bindings(dev, program_name(program), total, bytes, &outs[0])?;
        let eager;
        let cache = match cache {
            Some(c) => c,
            None => {
                eager = eager_cache(dev, program);
                &*eager
            }
        };
        let (kernel, meta) =
            cached_kernel(dev, Some(cache), &operands, shape, &out_windows, || {
                elementwise_kernel(program, &operands, shape, &target)
            })?;
        let buffers = stores
            .iter()
            .copied()
            .zip(operands.iter().map(|o| o.windows));
        let bindings = bind_windows(buffers, target.window_bytes);
        check_metadata(program_name(program), &meta, inputs, shape)?;
        let outputs: Vec<_> = storages
            .iter()
            .zip(outs)
            .map(|(st, o)| (st, 0, o))
            .collect();
        dispatch_spans(dev, &kernel, &meta, bindings, &outputs, n, &target)?;
    }
    Ok(finish(dev, storages, outs))
}

/// Dispatches an elementwise kernel over `n` output elements with its operands'
/// `bindings`, each output (its buffer, the byte offset it starts at, its aval) bound as
/// one binding: one dispatch per part of the output that fits a window of every output,
/// its span in the metadata ([`codegen::ELEMENTWISE_SPAN`]).
pub(super) fn dispatch_spans(
    dev: &Device,
    kernel: &crate::runtime::Kernel,
    meta: &[u32],
    bindings: Vec<crate::runtime::Binding<'_>>,
    outputs: &[(&Arc<crate::runtime::Storage>, u64, &Aval)],
    n: u64,
    t: &Target,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    // Bytes of one vector index of each output (four elements).
    let unit = |o: &Aval| codegen::PER_THREAD * o.dtype.storage_bytes() as u64;
    // Vector indices per dispatch: a window of the widest output, and a multiple of what
    // keeps every output's next span at an offset a binding may start at (with windows
    // far larger than the alignment, as on every real device, nothing is lost).
    let align = u64::from(dev.0.info.limits.min_storage_buffer_offset_alignment).max(4);
    let step = outputs
        .iter()
        .map(|(_, _, o)| align / unit(o).min(align))
        .max()
        .unwrap_or(1)
        .max(t.vectors);
    let per = outputs
        .iter()
        .map(|(_, _, o)| t.window_bytes / unit(o))
        .min()
        .unwrap_or(u64::MAX);
    let per = (per / step * step).max(step);
    let last = (n - 1) / codegen::PER_THREAD;
    let mut meta = meta.to_vec();
    let mut first = 0;
    while first <= last {
        let end = last.min(first + per - 1);
        let mut all = bindings.clone();
        for (st, base, o) in outputs {
            let offset = base + first * unit(o);
            all.push(crate::runtime::Binding::Buffer {
                buffer: st.buffer(),
                offset,
                size: (st.bytes - offset).min((end - first + 1) * unit(o)),
            });
        }
        (meta[0], meta[1]) = (first as u32, end as u32);
        let groups = (end - first + 1)
            .div_ceil(t.vectors)
            .div_ceil(codegen::WORKGROUP);
        dev.0.dispatch(kernel, &all, &meta, groups)?;
        first = end + 1;
    }
    Ok(())
}

/// The arrays of a kernel's contiguous outputs.
pub(super) fn finish(
    dev: &Device,
    storages: Vec<Arc<crate::runtime::Storage>>,
    outs: &[Aval],
) -> Vec<Array> {
    storages
        .into_iter()
        .zip(outs)
        .map(|(storage, out)| {
            Array::from_storage(
                dev.clone(),
                storage,
                Layout::contiguous(&out.shape),
                out.clone(),
            )
        })
        .collect()
}

/// Runs an elementwise `program` whose operands and outputs need more storage bindings
/// than one kernel may have, in slabs along the output's leading axis: each kernel binds
/// only the part of each buffer its slab reads or writes ([`Rebased`]). Only programs whose
/// every value depends on its operands' elements at the same index split so; returns
/// `false` (nothing run) for others, and for slabs that still need too many bindings.
pub(super) fn run_in_slabs(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    storages: &[Arc<crate::runtime::Storage>],
    outs: &[Aval],
) -> Result<bool> {
    let shape = &outs[0].shape;
    let pointwise = program.nodes.iter().all(|n| pointwise(&n.prim));
    if !pointwise || shape.is_empty() || inputs.iter().any(|a| a.ndim() != shape.len()) {
        return Ok(false);
    }
    let rows = shape[0] as u64;
    let row = crate::shape::size_of(&shape[1..]) as u64;
    let mut t = target(dev);
    // Each slab's outputs start where a binding may (the device's offset alignment, a
    // power of two) and its threads store whole vectors; the slab is a number of rows.
    let align = u64::from(dev.0.info.limits.min_storage_buffer_offset_alignment).max(16);
    let quantum = outs
        .iter()
        .map(|o| align / o.dtype.storage_bytes() as u64)
        .fold(codegen::PER_THREAD * t.vectors, u64::max);
    let step = quantum / gcd(row.max(1), quantum);
    let stores = inputs
        .iter()
        .map(|a| a.storage())
        .collect::<Result<Vec<_>>>()?;
    let slab = |r0: u64, r1: u64| -> (Vec<usize>, Vec<Rebased>, Vec<u64>) {
        let mut sub = shape.clone();
        sub[0] = (r1 - r0) as usize;
        let ins = inputs
            .iter()
            .zip(&stores)
            .map(|(a, st)| {
                let l = a.layout();
                let layout = Layout {
                    shape: sub.clone(),
                    strides: l.strides.clone(),
                    offset: (l.offset as isize + r0 as isize * l.strides[0]) as usize,
                };
                Rebased::new(dev, layout, a.dtype(), st.bytes, &t)
            })
            .collect();
        // Each output from the slab's first element on, one binding (see `dispatch_spans`).
        let bases = outs
            .iter()
            .map(|o| r0 * row * o.dtype.storage_bytes() as u64)
            .collect();
        (sub, ins, bases)
    };
    let windows = |(_, ins, _): &(Vec<usize>, Vec<Rebased>, Vec<u64>)| {
        ins.iter().map(|r| r.windows).sum::<u64>() + outs.len() as u64
    };
    let mut per = rows;
    while per > 0 && windows(&slab(0, per)) > max_bindings(dev) {
        per = (per / 2) / step * step;
    }
    if per == 0 {
        return Ok(false);
    }
    let slabs: Vec<_> = (0..rows)
        .step_by(per as usize)
        .map(|r0| slab(r0, (r0 + per).min(rows)))
        .collect();
    if slabs.iter().any(|s| windows(s) > max_bindings(dev)) {
        return Ok(false);
    }
    // A program's constants have the output's shape: each slab's, here.
    let mut program = program.clone();
    for (sub, ins, outs_at) in &slabs {
        for node in &mut program.nodes {
            if let Primitive::Full { shape, .. } = &mut node.prim {
                *shape = sub.clone();
            }
        }
        let n = crate::shape::size_of(sub) as u64;
        t.written_out = codegen::written_out(&program, n, &t);
        let operands: Vec<Operand<'_>> = ins.iter().map(Rebased::operand).collect();
        let buffers = stores
            .iter()
            .copied()
            .zip(ins)
            .map(|(st, r)| (st, r.windows, r.base));
        let outputs: Vec<_> = storages
            .iter()
            .zip(outs_at)
            .zip(outs)
            .map(|((st, &base), o)| (st, base, o))
            .collect();
        dispatch_program(dev, &program, inputs, &operands, buffers, &outputs, sub, &t)?;
    }
    Ok(true)
}

/// Generates `program`'s kernel over `operands` and an output of `shape` and dispatches it
/// with the operands' `buffers` bound (each buffer, its windows and the byte offset they
/// start at) and `outputs` (as [`dispatch_spans`] takes them).
#[allow(clippy::too_many_arguments)]
pub(super) fn dispatch_program<'a>(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    operands: &[Operand<'_>],
    buffers: impl IntoIterator<Item = (&'a Arc<crate::runtime::Storage>, u64, u64)>,
    outputs: &[(&Arc<crate::runtime::Storage>, u64, &Aval)],
    shape: &[usize],
    t: &Target,
) -> Result<()> {
    let g = elementwise_kernel(program, operands, shape, t)?;
    let kernel = dev.0.kernel(&g.body, || g.source())?;
    check_metadata(program_name(program), &g.meta, inputs, shape)?;
    let bindings = bind_windows_from(buffers, t.window_bytes);
    let n = crate::shape::size_of(shape) as u64;
    dispatch_spans(dev, &kernel, &g.meta, bindings, outputs, n, t)
}

/// Runs `program` binding only the part of each operand's buffer its layout reads
/// ([`Rebased`]): views (a slab, a slice) of a buffer larger than a kernel may bind. Returns
/// `false` (nothing run) where that still needs too many bindings.
pub(super) fn run_rebased(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    storages: &[Arc<crate::runtime::Storage>],
    outs: &[Aval],
) -> Result<bool> {
    let shape = &outs[0].shape;
    let n = crate::shape::size_of(shape) as u64;
    let mut t = target(dev);
    t.written_out = codegen::written_out(program, n, &t);
    let (stores, whole) = operands_of(dev, inputs, n, &t)?;
    let rebased: Vec<Option<Rebased>> = inputs
        .iter()
        .zip(&stores)
        .zip(&whole)
        .map(|((a, st), o)| {
            (o.windows != codegen::TEXTURE)
                .then(|| Rebased::new(dev, a.layout().clone(), a.dtype(), st.bytes, &t))
        })
        .collect();
    let operands: Vec<Operand<'_>> = whole
        .iter()
        .zip(&rebased)
        .map(|(o, r)| r.as_ref().map_or_else(|| o.clone(), Rebased::operand))
        .collect();
    let total = outs.len() as u64
        + operands
            .iter()
            .map(|o| {
                if o.windows == codegen::TEXTURE {
                    0
                } else {
                    o.windows
                }
            })
            .sum::<u64>();
    if total > max_bindings(dev) {
        return Ok(false);
    }
    let buffers = stores
        .iter()
        .copied()
        .zip(&operands)
        .zip(&rebased)
        .map(|((st, o), r)| (st, o.windows, r.as_ref().map_or(0, |r| r.base)));
    let outputs: Vec<_> = storages
        .iter()
        .zip(outs)
        .map(|(st, o)| (st, 0, o))
        .collect();
    dispatch_program(
        dev, program, inputs, &operands, buffers, &outputs, shape, &t,
    )?;
    Ok(true)
}

/// The part of `program` that computes the output's box `at`: the program over the
/// operands' boxes it reads (each an operand's position and box). `None` for programs that
/// cannot be split so.
pub(super) fn block_plan(
    program: &Program,
    inputs: &[&Array],
    rank: usize,
    at: &Region,
) -> Option<(Program, Vec<(usize, Region)>)> {
    let (start, limit) = at;
    let sub: Vec<usize> = start.iter().zip(limit).map(|(s, l)| l - s).collect();
    let node = |prim: Primitive, n: usize, dtype: DType| Node {
        prim,
        args: (0..n).collect(),
        dtype,
    };
    if let [only] = &program.nodes[..] {
        let dtype = only.dtype;
        match &only.prim {
            Primitive::Concatenate { dimension } => {
                let d = *dimension;
                let mut lo = 0;
                let mut parts = Vec::new();
                for (i, a) in inputs.iter().enumerate() {
                    let len = a.shape()[d];
                    let (s, l) = (start[d].max(lo), limit[d].min(lo + len));
                    if s < l {
                        let (mut s0, mut l0) = at.clone();
                        (s0[d], l0[d]) = (s - lo, l - lo);
                        parts.push((i, (s0, l0)));
                    }
                    lo += len;
                }
                let prim = if parts.len() == 1 {
                    Primitive::Copy
                } else {
                    Primitive::Concatenate { dimension: d }
                };
                let dtypes = parts.iter().map(|(i, _)| inputs[*i].dtype()).collect();
                let p = Program::new(dtypes, vec![node(prim, parts.len(), dtype)]);
                return Some((p, parts));
            }
            Primitive::Pad { low, value, .. } => {
                let x = inputs[0].shape();
                // An empty operand has no element to pad with (nor to box).
                if x.contains(&0) {
                    return None;
                }
                let (mut s0, mut l0) = (vec![0; rank], vec![0; rank]);
                let (mut new_low, mut new_high) = (vec![0; rank], vec![0; rank]);
                for d in 0..rank {
                    let (s, l, len) = (start[d] as isize, limit[d] as isize, x[d] as isize);
                    let low = low[d] as isize;
                    // Edge padding reads at least the nearest element.
                    let (a, b) = match value {
                        Some(_) => ((s - low).clamp(0, len), (l - low).clamp(0, len)),
                        None => (
                            (s - low).clamp(0, len - 1),
                            (l - 1 - low).clamp(0, len - 1) + 1,
                        ),
                    };
                    if a >= b {
                        // Only padding: the fill value.
                        let full = Primitive::Full {
                            shape: sub.clone(),
                            value: value.expect("edge padding reads an element"),
                        };
                        return Some((Program::new(vec![], vec![node(full, 0, dtype)]), vec![]));
                    }
                    (s0[d], l0[d]) = (a as usize, b as usize);
                    let before = (a + low - s).clamp(0, sub[d] as isize - (b - a));
                    new_low[d] = before as usize;
                    new_high[d] = (sub[d] as isize - before - (b - a)).max(0) as usize;
                }
                let prim = Primitive::Pad {
                    low: new_low,
                    high: new_high,
                    value: *value,
                };
                let p = Program::new(vec![inputs[0].dtype()], vec![node(prim, 1, dtype)]);
                return Some((p, vec![(0, (s0, l0))]));
            }
            Primitive::Gather { axis } | Primitive::SearchSorted { axis, .. } => {
                let (mut s0, mut l0) = at.clone();
                (s0[*axis], l0[*axis]) = (0, inputs[0].shape()[*axis]);
                return Some((program.clone(), vec![(0, (s0, l0)), (1, at.clone())]));
            }
            // Another indexed primitive has no plan: run it whole.
            prim if elementwise(prim) == Some(Elementwise::Indexed) => return None,
            _ => {}
        }
    }
    let pointwise = program
        .nodes
        .iter()
        .all(|n| pointwise(&n.prim) || elementwise(&n.prim) == Some(Elementwise::Positional));
    if !pointwise || inputs.iter().any(|a| a.ndim() != rank) {
        return None;
    }
    // Constants take the box's shape; an iota counts from the box's start along its
    // dimension (in 32-bit integers, converted after, so the values are the whole one's).
    let k = program.inputs.len();
    let mut ids: Vec<usize> = (0..k).collect();
    let mut nodes: Vec<Node> = Vec::new();
    for n in &program.nodes {
        let args: Vec<usize> = n.args.iter().map(|&a| ids[a]).collect();
        match &n.prim {
            Primitive::Full { value, .. } => nodes.push(Node {
                prim: Primitive::Full {
                    shape: sub.clone(),
                    value: *value,
                },
                args,
                dtype: n.dtype,
            }),
            Primitive::Iota {
                dtype, dimension, ..
            } => {
                let int = if *dtype == DType::Int32 {
                    DType::Int32
                } else {
                    DType::UInt32
                };
                let iota = Primitive::Iota {
                    dtype: int,
                    shape: sub.clone(),
                    dimension: *dimension,
                };
                nodes.push(node(iota, 0, int));
                let from = start[*dimension];
                if from > 0 {
                    let value = crate::primitive::Literal::U32(from as u32).cast(int);
                    let shape = sub.clone();
                    nodes.push(node(Primitive::Full { shape, value }, 0, int));
                    let (a, b) = (k + nodes.len() - 2, k + nodes.len() - 1);
                    nodes.push(Node {
                        prim: Primitive::Binary(crate::primitive::BinaryOp::Add),
                        args: vec![a, b],
                        dtype: int,
                    });
                }
                if int != *dtype {
                    nodes.push(Node {
                        prim: Primitive::ConvertElementType {
                            dtype: *dtype,
                            weak: false,
                        },
                        args: vec![k + nodes.len() - 1],
                        dtype: *dtype,
                    });
                }
            }
            // A value of its position other than an iota would need its box's offset.
            prim if elementwise(prim) == Some(Elementwise::Positional) => return None,
            prim => nodes.push(Node {
                prim: prim.clone(),
                args,
                dtype: n.dtype,
            }),
        }
        ids.push(k + nodes.len() - 1);
    }
    let p = Program {
        inputs: program.inputs.clone(),
        nodes,
        outputs: program.outputs.iter().map(|&o| ids[o]).collect(),
    };
    let boxes = (0..inputs.len()).map(|i| (i, at.clone())).collect();
    Some((p, boxes))
}

/// The boxes of an output of `shape` that each leave the indices before `depth` single
/// and split dimension `depth` in runs of `run`: contiguous ranges of the output, in order.
pub(super) fn blocks(
    shape: &[usize],
    depth: usize,
    run: usize,
) -> impl Iterator<Item = Region> + '_ {
    let outer: usize = shape[..depth].iter().product();
    (0..outer).flat_map(move |o| {
        let mut prefix = vec![0; depth];
        let mut rest = o;
        for d in (0..depth).rev() {
            prefix[d] = rest % shape[d];
            rest /= shape[d];
        }
        (0..shape[depth]).step_by(run).map(move |c0| {
            let c1 = (c0 + run).min(shape[depth]);
            let mut start = prefix.clone();
            let mut limit: Vec<usize> = prefix.iter().map(|p| p + 1).collect();
            start.push(c0);
            limit.push(c1);
            start.extend(std::iter::repeat_n(0, shape.len() - depth - 1));
            limit.extend_from_slice(&shape[depth + 1..]);
            (start, limit)
        })
    })
}

/// Runs `program` box by box where no slab along the leading axis fits the kernel's
/// bindings (a transposed operand reads across its whole buffer for any run of rows;
/// concatenation, padding and gathers read other boxes than they write): each box of the
/// output is computed into a buffer of its own, from views of the operands' boxes it
/// reads, and copied into place. Boxes fix the leading indices and split the next
/// dimension, so each is a contiguous range of the output. Returns `false` (nothing run)
/// where no split fits.
pub(super) fn run_in_blocks(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    storages: &[Arc<crate::runtime::Storage>],
    outs: &[Aval],
) -> Result<bool> {
    // At most this many kernels: past it the error names the bindings it needs.
    const MAX_BLOCKS: usize = 1 << 18;
    let shape = &outs[0].shape;
    let rank = shape.len();
    if rank == 0 || block_plan(program, inputs, rank, &(vec![0; rank], shape.clone())).is_none() {
        return Ok(false);
    }
    let t = target(dev);
    let strides = crate::shape::contiguous_strides(shape);
    // Where a box starts in the output, and its elements.
    let range = |(start, limit): &Region| -> (u64, u64) {
        let first = start
            .iter()
            .zip(&strides)
            .map(|(s, st)| s * *st as usize)
            .sum::<usize>();
        let len = start
            .iter()
            .zip(limit)
            .map(|(s, l)| l - s)
            .product::<usize>();
        (first as u64, len as u64)
    };
    let n = crate::shape::size_of(shape) as u64;
    let fits = |b: &Region| -> bool {
        let (first, len) = range(b);
        if !outs
            .iter()
            .all(|o| placeable(o.dtype, first as usize, len as usize, n as usize))
        {
            return false;
        }
        let Some((_, reads)) = block_plan(program, inputs, rank, b) else {
            return false;
        };
        let read: u64 = reads
            .iter()
            .map(|(i, at)| region_windows(dev, inputs[*i], at, &t).unwrap_or(u64::MAX / 4))
            .sum();
        let written: u64 = outs
            .iter()
            .map(|o| {
                codegen::windows_for(
                    out_bytes(&Aval::new(vec![len as usize], o.dtype, false)),
                    &t,
                )
            })
            .sum();
        read + written <= max_bindings(dev)
    };
    let mut plan = None;
    'search: for depth in 0..rank {
        let outer: usize = shape[..depth].iter().product();
        let mut run = shape[depth];
        while run > 0 {
            let count = outer.saturating_mul(shape[depth].div_ceil(run));
            if count > MAX_BLOCKS {
                break 'search;
            }
            if blocks(shape, depth, run).all(|b| fits(&b)) {
                plan = Some((depth, run));
                break 'search;
            }
            run /= 2;
        }
    }
    let Some((depth, run)) = plan else {
        return Ok(false);
    };
    for b in blocks(shape, depth, run) {
        let (p, reads) = block_plan(program, inputs, rank, &b).expect("planned");
        let views = reads
            .iter()
            .map(|(i, (s, l))| crate::lax::slice(inputs[*i], s, l, None))
            .collect::<Result<Vec<_>>>()?;
        let views: Vec<&Array> = views.iter().collect();
        let sub: Vec<usize> = b.0.iter().zip(&b.1).map(|(s, l)| l - s).collect();
        let block_outs: Vec<Aval> = outs
            .iter()
            .map(|o| Aval::new(sub.clone(), o.dtype, o.weak))
            .collect();
        let parts = run_program(dev, &p, &views, &block_outs, None, false)?;
        let (first, _) = range(&b);
        for ((part, st), o) in parts.iter().zip(storages).zip(outs) {
            place(dev, part, st, first * o.dtype.storage_bytes() as u64)?;
        }
    }
    Ok(true)
}

//! Eager evaluation: a view, or a one-node program through the kernel generator.

use std::sync::Arc;

use super::EvalKind;
use crate::array::{Array, Aval};
use crate::codegen::{self, InputDesc, InputMap, Node, Program, Target};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::Primitive;
use crate::runtime::{Binding, BufferKind, Device, Kernel};
use crate::shape::Layout;

/// The device all operands live on (or `device`, or the current default for primitives
/// without operands); an error naming the primitive when they differ.
pub(crate) fn common_device(
    func: &str,
    inputs: &[&Array],
    device: Option<&Device>,
) -> Result<Device> {
    let mut found: Option<&Device> = device;
    for a in inputs {
        match found {
            None => found = Some(a.device()),
            Some(d) if d != a.device() => {
                return Err(Error::DeviceMismatch {
                    func: func.to_string(),
                    devices: vec![format!("{d:?}"), format!("{:?}", a.device())],
                })
            }
            _ => {}
        }
    }
    match found {
        Some(d) => Ok(d.clone()),
        None => crate::array::current_device(),
    }
}

/// Evaluates a primitive of any number of outputs on concrete operands.
pub(crate) fn eval_all(
    prim: Primitive,
    inputs: &[&Array],
    mut outs: Vec<Aval>,
    device: Option<&Device>,
) -> Result<Vec<Array>> {
    match prim {
        Primitive::TopK { k, axis } => {
            let dev = common_device(prim.name(), inputs, device)?;
            top_k(&dev, inputs[0], k, axis, &outs)
        }
        // Outside every transformation a function with custom rules is its graph.
        Primitive::CustomJvpCall { call } | Primitive::CustomVjpCall { call } => {
            let dev = common_device(&call.name, inputs, device)?;
            let args: Vec<Array> = inputs.iter().map(|&a| a.clone()).collect();
            let env = crate::lax::eval_graph(&call.fun, &[], &args, &dev)?;
            call.fun
                .outvars
                .iter()
                .map(|&o| env[o].clone().ok_or_else(|| crate::lax::missing(o)))
                .collect()
        }
        _ => {
            let out = outs
                .pop()
                .filter(|_| outs.is_empty())
                .ok_or_else(|| Error::arg(prim.name(), "has one output"))?;
            Ok(vec![eval(prim, inputs, out, device)?])
        }
    }
}

use crate::lax::Fusion;

/// `top_k` as a stable ascending argsort of a key that orders the values descending, then
/// the first `k` positions of each row and a gather of their values. Rows along another
/// axis than the last are read through a transposed view and given back transposed.
fn top_k(dev: &Device, x: &Array, k: usize, axis: usize, outs: &[Aval]) -> Result<Vec<Array>> {
    let r = x.ndim();
    let last = r - 1;
    if axis != last {
        let mut perm: Vec<usize> = (0..r).filter(|&d| d != axis).collect();
        perm.push(axis);
        let mut inverse = vec![0; r];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i;
        }
        let rows = crate::lax::transpose(x, &perm)?;
        return top_k(dev, &rows, k, last, outs)?
            .iter()
            .map(|a| crate::lax::transpose(a, &inverse))
            .collect();
    }
    // Floats are read as the unsigned integers of their storage (a view of the same
    // buffer): a kernel that loads a float16 natively converts it, and a conversion quiets
    // signalling NaNs, which JAX returns as they are.
    let raw = match x.dtype() {
        DType::Float32 => Some(DType::UInt32),
        DType::Float16 | DType::BFloat16 => Some(DType::UInt16),
        _ => None,
    }
    .map(|u| reinterpret(x, u));
    let key = top_k_key(dev, x.dtype(), raw.as_ref().unwrap_or(x))?;
    let perm = crate::lax::sort(&key, true)?;
    let mut limit = x.shape().to_vec();
    limit[last] = k;
    let indices = crate::lax::slice(&perm, &vec![0; r], &limit, None)?;
    let mut values = crate::lax::gather(raw.as_ref().unwrap_or(x), &indices, last)?;
    if x.dtype() == DType::BFloat16 && values.size() > 0 {
        // XLA's CPU comparator converts bfloat16 through float32 and back, so the NaNs it
        // returns are quiet NaNs of their sign; JAX's answers carry that.
        let mut f = Fusion::new(values.shape());
        let v = f.input(&values);
        let bits = f.push(to_u32(), &[v])?;
        let canonical = quiet_bf16_nan(&mut f, bits)?;
        f.push(
            Primitive::ConvertElementType {
                dtype: DType::UInt16,
                weak: false,
            },
            &[canonical],
        )?;
        values = f.run(dev)?;
    }
    if raw.is_some() {
        values = reinterpret(&values, x.dtype());
    }
    Ok(vec![values.with_weak(outs[0].weak), indices])
}

/// `x`'s storage read as `dtype`, of the same width (a view of the same buffer).
fn reinterpret(x: &Array, dtype: DType) -> Array {
    x.with_layout(
        x.layout().clone(),
        Aval::new(x.shape().to_vec(), dtype, false),
    )
}

/// The conversion of unsigned integers to uint32.
fn to_u32() -> Primitive {
    Primitive::ConvertElementType {
        dtype: DType::UInt32,
        weak: false,
    }
}

/// bfloat16 bits (in a uint32) with every NaN made the quiet NaN of its sign.
fn quiet_bf16_nan(f: &mut crate::lax::Fusion, bits: usize) -> Result<usize> {
    use crate::lax::{BinaryOp, CompareOp, Literal};
    let sign = f.constant(Literal::U32(0x8000))?;
    let magnitude = f.constant(Literal::U32(0x7fff))?;
    let inf = f.constant(Literal::U32(0x7f80))?;
    let quiet = f.constant(Literal::U32(0x7fc0))?;
    let s = f.push(Primitive::Binary(BinaryOp::And), &[bits, sign])?;
    let m = f.push(Primitive::Binary(BinaryOp::And), &[bits, magnitude])?;
    let nan = f.push(Primitive::Compare(CompareOp::Gt), &[m, inf])?;
    let canonical = f.push(Primitive::Binary(BinaryOp::Or), &[s, quiet])?;
    f.push(Primitive::Select, &[nan, canonical, bits])
}

/// A key whose stable ascending sort orders values of dtype `d` descending, as XLA's
/// `top_k` does, from `x`: the values, or for floats their storage bits as unsigned
/// integers. Floats order by IEEE's total order (NaN above +inf, -NaN below -inf, -0.0
/// below 0.0, NaNs by payload): a negative float's bits as they are (larger bits are
/// smaller values), a positive one's with every bit below the sign flipped. Integers are
/// complemented, which reverses their order; bool counts as 0 and 1. One fused kernel.
fn top_k_key(dev: &Device, d: DType, x: &Array) -> Result<Array> {
    use crate::lax::{BinaryOp, CompareOp, Literal, UnaryOp};
    let mut f = Fusion::new(x.shape());
    let v = f.input(x);
    if d.is_floating() {
        let mut bits = f.push(to_u32(), &[v])?;
        if d == DType::BFloat16 {
            // NaNs of one sign are equal there (see `top_k`).
            bits = quiet_bf16_nan(&mut f, bits)?;
        }
        let sign_bit = if d == DType::Float32 {
            1u32 << 31
        } else {
            1 << 15
        };
        let sign = f.constant(Literal::U32(sign_bit))?;
        let negative = f.push(Primitive::Compare(CompareOp::Ge), &[bits, sign])?;
        let mask = f.constant(Literal::U32(sign_bit - 1))?;
        let flipped = f.push(Primitive::Binary(BinaryOp::Xor), &[bits, mask])?;
        f.push(Primitive::Select, &[negative, bits, flipped])?;
    } else {
        let v = if d == DType::Bool {
            f.push(
                Primitive::ConvertElementType {
                    dtype: DType::Int32,
                    weak: false,
                },
                &[v],
            )?
        } else {
            v
        };
        f.push(Primitive::Unary(UnaryOp::Not), &[v])?;
    }
    f.run(dev)
}

pub(crate) fn eval(
    prim: Primitive,
    inputs: &[&Array],
    out: Aval,
    device: Option<&Device>,
) -> Result<Array> {
    let dev = common_device(prim.name(), inputs, device)?;
    match prim.eval_kind() {
        EvalKind::View => view(&prim, inputs[0], out),
        // bfloat16 scans round after every operation, as float16's do ([`cumulative`]).
        EvalKind::Matmul | EvalKind::Sort | EvalKind::Cumulative | EvalKind::Reduce
            if needs_widening(inputs, &out)
                && !(matches!(prim, Primitive::Cumulative { .. })
                    && inputs[0].dtype() == DType::BFloat16) =>
        {
            widening(inputs, &out, |wide, out| eval(prim, wide, out, Some(&dev)))
        }
        EvalKind::Matmul => dot(&dev, inputs[0], inputs[1], out),
        EvalKind::TopK | EvalKind::Call => {
            Err(Error::arg(prim.name(), "has several outputs (bind_all)"))
        }
        EvalKind::Scatter => match prim {
            Primitive::Scatter { mode } => scatter(&dev, inputs, mode, out),
            _ => Err(Error::arg(prim.name(), "is not a scatter")),
        },
        EvalKind::Sort => match prim {
            Primitive::Sort { indices } => sort(&dev, inputs[0], indices, out),
            _ => Err(Error::arg(prim.name(), "is not a sort")),
        },
        EvalKind::Cumulative => match prim {
            Primitive::Cumulative { op, axis, reverse } => {
                cumulative(&dev, op, axis, reverse, inputs[0], out)
            }
            _ => Err(Error::arg(prim.name(), "is not a scan")),
        },
        EvalKind::Reduce => match prim {
            Primitive::Reduce { op, axes } => reduce(&dev, op, inputs[0], &axes, out),
            Primitive::ArgReduce { max, axis } => arg_reduce(&dev, max, axis, inputs[0], out),
            _ => Err(Error::arg(prim.name(), "is not a reduction")),
        },
        EvalKind::Elementwise => {
            if let Primitive::Concatenate { dimension } = prim {
                return concatenate(&dev, dimension, inputs, out);
            }
            if let Primitive::Gather { axis } = prim {
                if let Some(r) = gather_in_ranges(&dev, axis, inputs[0], inputs[1], &out)? {
                    return Ok(r);
                }
            }
            if let Primitive::SearchSorted { axis, right } = prim {
                let found = search_in_ranges(&dev, (axis, right), inputs[0], inputs[1], &out)?;
                if let Some(r) = found {
                    return Ok(r);
                }
            }
            if let Primitive::Pad { value: Some(v), .. } = prim {
                if inputs[0].size() == 0 {
                    // Nothing to copy: the result is all padding.
                    let full = crate::lax::full(&out.shape, v, Some(&dev))?;
                    return Ok(full.with_weak(out.weak));
                }
            }
            let program = Program::new(
                inputs.iter().map(|a| a.dtype()).collect(),
                vec![Node {
                    args: (0..inputs.len()).collect(),
                    dtype: out.dtype,
                    prim,
                }],
            );
            run(&dev, &program, inputs, out)
        }
    }
}

use codegen::widened;

fn needs_widening(inputs: &[&Array], out: &Aval) -> bool {
    widened(out.dtype).is_some() || inputs.iter().any(|a| widened(a.dtype()).is_some())
}

/// Runs `f` on `inputs` and `out` with their 8- and 16-bit dtypes widened ([`widened`]),
/// then brings the result back to `out`'s dtype: integer sums and products wrap and
/// bfloat16 rounds once at the end, as XLA computes them (its reductions and dots of
/// narrow floats accumulate in float32), and sorts and integer scans of the widened values
/// are the same values. (bfloat16 scans round after every operation: [`cumulative`].)
fn widening(
    inputs: &[&Array],
    out: &Aval,
    f: impl FnOnce(&[&Array], Aval) -> Result<Array>,
) -> Result<Array> {
    let wide: Vec<Array> = inputs
        .iter()
        .map(|a| match widened(a.dtype()) {
            Some(w) => crate::lax::convert_element_type(a, w),
            None => Ok((*a).clone()),
        })
        .collect::<Result<_>>()?;
    let refs: Vec<&Array> = wide.iter().collect();
    let dtype = widened(out.dtype).unwrap_or(out.dtype);
    let r = f(&refs, Aval::new(out.shape.clone(), dtype, out.weak))?;
    as_out(r, out)
}

fn view(prim: &Primitive, x: &Array, out: Aval) -> Result<Array> {
    match prim {
        Primitive::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let l = x.layout();
            let mut strides = vec![0isize; shape.len()];
            for (i, &d) in broadcast_dimensions.iter().enumerate() {
                strides[d] = if l.shape[i] == 1 { 0 } else { l.strides[i] };
            }
            let layout = Layout {
                shape: shape.clone(),
                strides,
                offset: l.offset,
            };
            Ok(x.with_layout(layout, out))
        }
        Primitive::Transpose { permutation } => {
            let l = x.layout();
            let layout = Layout {
                shape: permutation.iter().map(|&p| l.shape[p]).collect(),
                strides: permutation.iter().map(|&p| l.strides[p]).collect(),
                offset: l.offset,
            };
            Ok(x.with_layout(layout, out))
        }
        Primitive::Reshape { new_sizes } => {
            if let Some(layout) = x.layout().reshaped(new_sizes) {
                return Ok(x.with_layout(layout, out));
            }
            let base = x.contiguous()?;
            let layout = Layout {
                shape: new_sizes.clone(),
                strides: crate::shape::contiguous_strides(new_sizes),
                offset: base.layout().offset,
            };
            Ok(base.with_layout(layout, out))
        }
        Primitive::Slice {
            start_indices,
            strides,
            ..
        } => {
            let l = x.layout();
            let offset = l.offset as isize
                + start_indices
                    .iter()
                    .zip(&l.strides)
                    .map(|(&s, &st)| s as isize * st)
                    .sum::<isize>();
            let layout = Layout {
                shape: out.shape.clone(),
                // A step only matters where the window holds two elements or more (then
                // the product stays inside the buffer); a huge step past the end of a
                // shorter window leaves the stride as it was.
                strides: (0..l.shape.len())
                    .map(|d| {
                        if out.shape[d] > 1 {
                            l.strides[d] * strides[d] as isize
                        } else {
                            l.strides[d]
                        }
                    })
                    .collect(),
                offset: if out.size() == 0 {
                    l.offset
                } else {
                    offset as usize
                },
            };
            Ok(x.with_layout(layout, out))
        }
        Primitive::Rev { dimensions } => {
            let l = x.layout();
            let mut layout = l.clone();
            for &d in dimensions {
                if l.shape[d] > 1 {
                    let shift = (l.shape[d] as isize - 1) * l.strides[d];
                    layout.offset = (layout.offset as isize + shift) as usize;
                    layout.strides[d] = -l.strides[d];
                }
            }
            Ok(x.with_layout(layout, out))
        }
        _ => Err(Error::arg(prim.name(), "is not a view")),
    }
}

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
fn run_program(
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
        let inner = &dev.0;
        let mut target = target(dev);
        target.written_out = target.vectors > 1 && n >= codegen::CPU_VECTORS_FROM;
        let (stores, operands) = operands_of(dev, inputs, n, &target)?;
        let out_windows = written_windows(&storages, outs, &target);
        let total: u64 =
            out_windows.iter().sum::<u64>() + operands.iter().map(|o| o.windows).sum::<u64>();
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
        let (kernel, meta) = cached_kernel(dev, cache, &operands, shape, &out_windows, || {
            elementwise_kernel(program, &operands, shape, &out_windows, &target)
        })?;
        let buffers = stores
            .iter()
            .copied()
            .zip(operands.iter().map(|o| o.windows))
            .chain(storages.iter().zip(out_windows.iter().copied()));
        let bindings = bind_windows(buffers, target.window_bytes);
        let groups = n
            .div_ceil(codegen::PER_THREAD * target.vectors)
            .div_ceil(codegen::WORKGROUP);
        check_metadata(program_name(program), &meta, inputs, shape)?;
        inner.dispatch(&kernel, &bindings, &meta, groups)?;
    }
    Ok(finish(dev, storages, outs))
}

/// The windows each output buffer is bound as: those its elements fill (a pooled buffer
/// may be larger).
fn written_windows(
    storages: &[Arc<crate::runtime::Storage>],
    outs: &[Aval],
    t: &Target,
) -> Vec<u64> {
    storages
        .iter()
        .zip(outs)
        .map(|(st, o)| codegen::windows_for(out_bytes(o).min(st.bytes), t))
        .collect()
}

/// The arrays of a kernel's contiguous outputs.
fn finish(dev: &Device, storages: Vec<Arc<crate::runtime::Storage>>, outs: &[Aval]) -> Vec<Array> {
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
fn run_in_slabs(
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
    let slab = |r0: u64, r1: u64| -> (Vec<usize>, Vec<Rebased>, Vec<(u64, u64)>) {
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
        let outs = storages
            .iter()
            .zip(outs)
            .map(|(st, o)| {
                let eb = o.dtype.storage_bytes() as u64;
                let base = r0 * row * eb;
                // The last slab writes up to the whole vector the output ends in.
                let end = if r1 == rows {
                    out_bytes(o).min(st.bytes)
                } else {
                    r1 * row * eb
                };
                (base, codegen::windows_for(end - base, &t))
            })
            .collect();
        (sub, ins, outs)
    };
    let windows = |(_, ins, outs): &(Vec<usize>, Vec<Rebased>, Vec<(u64, u64)>)| {
        ins.iter().map(|r| r.windows).sum::<u64>() + outs.iter().map(|o| o.1).sum::<u64>()
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
        t.written_out = t.vectors > 1 && n >= codegen::CPU_VECTORS_FROM;
        let operands: Vec<Operand<'_>> = ins.iter().map(Rebased::operand).collect();
        let buffers = stores
            .iter()
            .copied()
            .zip(ins)
            .map(|(st, r)| (st, r.windows, r.base))
            .chain(storages.iter().zip(outs_at).map(|(st, o)| (st, o.1, o.0)));
        let out_windows: Vec<u64> = outs_at.iter().map(|o| o.1).collect();
        dispatch_program(
            dev,
            &program,
            inputs,
            &operands,
            buffers,
            &out_windows,
            sub,
            &t,
        )?;
    }
    Ok(true)
}

/// Generates `program`'s kernel over `operands` and an output of `shape` and dispatches it
/// with `buffers` bound (each buffer, its windows and the byte offset they start at: the
/// operands', then the outputs' in `out_windows` windows).
#[allow(clippy::too_many_arguments)]
fn dispatch_program<'a>(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    operands: &[Operand<'_>],
    buffers: impl IntoIterator<Item = (&'a Arc<crate::runtime::Storage>, u64, u64)>,
    out_windows: &[u64],
    shape: &[usize],
    t: &Target,
) -> Result<()> {
    let g = elementwise_kernel(program, operands, shape, out_windows, t)?;
    let kernel = dev.0.kernel(&g.body, || g.source())?;
    check_metadata(program_name(program), &g.meta, inputs, shape)?;
    let bindings = bind_windows_from(buffers, t.window_bytes);
    let groups = (crate::shape::size_of(shape) as u64)
        .div_ceil(codegen::PER_THREAD * t.vectors)
        .div_ceil(codegen::WORKGROUP);
    dev.0.dispatch(&kernel, &bindings, &g.meta, groups)
}

/// Runs `program` binding only the part of each operand's buffer its layout reads
/// ([`Rebased`]): views (a slab, a slice) of a buffer larger than a kernel may bind. Returns
/// `false` (nothing run) where that still needs too many bindings.
fn run_rebased(
    dev: &Device,
    program: &Program,
    inputs: &[&Array],
    storages: &[Arc<crate::runtime::Storage>],
    outs: &[Aval],
) -> Result<bool> {
    let shape = &outs[0].shape;
    let n = crate::shape::size_of(shape) as u64;
    let mut t = target(dev);
    t.written_out = t.vectors > 1 && n >= codegen::CPU_VECTORS_FROM;
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
    let out_windows = written_windows(storages, outs, &t);
    let total = out_windows.iter().sum::<u64>()
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
        .map(|((st, o), r)| (st, o.windows, r.as_ref().map_or(0, |r| r.base)))
        .chain(storages.iter().zip(&out_windows).map(|(st, &w)| (st, w, 0)));
    dispatch_program(
        dev,
        program,
        inputs,
        &operands,
        buffers,
        &out_windows,
        shape,
        &t,
    )?;
    Ok(true)
}

/// A box of an array: its first index and one past its last along each dimension.
type Region = (Vec<usize>, Vec<usize>);

/// The part of `program` that computes the output's box `at`: the program over the
/// operands' boxes it reads (each an operand's position and box). `None` for programs that
/// cannot be split so.
fn block_plan(
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
            _ => {}
        }
    }
    let pointwise = program
        .nodes
        .iter()
        .all(|n| pointwise(&n.prim) || matches!(n.prim, Primitive::Iota { .. }));
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
                        prim: Primitive::Binary(crate::lax::BinaryOp::Add),
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

/// `layout`'s box `at` as a layout of its own (a view's).
fn box_layout(layout: &Layout, at: &Region) -> Layout {
    let (start, limit) = at;
    Layout {
        shape: start.iter().zip(limit).map(|(s, l)| l - s).collect(),
        strides: layout.strides.clone(),
        offset: (layout.offset as isize
            + start
                .iter()
                .zip(&layout.strides)
                .map(|(&s, &st)| s as isize * st)
                .sum::<isize>()) as usize,
    }
}

/// The boxes of an output of `shape` that each leave the indices before `depth` single
/// and split dimension `depth` in runs of `run`: contiguous ranges of the output, in order.
fn blocks(shape: &[usize], depth: usize, run: usize) -> impl Iterator<Item = Region> + '_ {
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
fn run_in_blocks(
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

/// Whether every value of `prim` depends only on its operands' elements at its own index
/// (constants included), so that any part of its output is computed from the same part of
/// its operands.
fn pointwise(prim: &Primitive) -> bool {
    matches!(
        prim,
        Primitive::Unary(_)
            | Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::Select
            | Primitive::ConvertElementType { .. }
            | Primitive::Copy
            | Primitive::Full { .. }
            | Primitive::Fma
            | Primitive::BitcastConvertType { .. }
            | Primitive::Threefry { .. }
    )
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The buffers of `inputs` and the operands they are as far as a generated kernel cares,
/// for a kernel over `elements` elements.
fn operands_of<'a>(
    dev: &Device,
    inputs: &[&'a Array],
    elements: u64,
    target: &Target,
) -> Result<(Vec<&'a Arc<crate::runtime::Storage>>, Vec<Operand<'a>>)> {
    let stores = inputs
        .iter()
        .map(|a| a.storage())
        .collect::<Result<Vec<_>>>()?;
    let max_textures = dev.0.info.limits.max_storage_textures_per_shader_stage as usize;
    let mut textures = 0;
    let operands = inputs
        .iter()
        .zip(&stores)
        .map(|(a, st)| {
            let mut o = Operand::new(a.layout(), a.dtype(), st.bytes, target);
            if textures < max_textures
                && input_windows(dev, st, elements, target) == codegen::TEXTURE
            {
                o.windows = codegen::TEXTURE;
                textures += 1;
            }
            o
        })
        .collect();
    Ok((stores, operands))
}

/// The kernel and metadata for `operands` and an output of `shape` in `out_windows`
/// windows: from `cache` when it holds them, else made by `generate` (and kept).
fn cached_kernel(
    dev: &Device,
    cache: Option<&KernelCache>,
    operands: &[Operand<'_>],
    shape: &[usize],
    out_windows: &[u64],
    generate: impl FnOnce() -> Result<codegen::Generated>,
) -> Result<(Arc<Kernel>, Arc<[u32]>)> {
    let inner = &dev.0;
    if let Some(hit) = cache.and_then(|c| c.get(inner.id, operands, shape, out_windows)) {
        return Ok(hit);
    }
    let g = generate()?;
    let kernel = inner.kernel(&g.body, || g.source())?;
    let meta: Arc<[u32]> = g.meta.into();
    if let Some(c) = cache {
        c.insert(
            inner.id,
            operands,
            shape,
            out_windows,
            kernel.clone(),
            meta.clone(),
        );
    }
    Ok((kernel, meta))
}

/// What kernels are generated for on `dev`.
fn target(dev: &Device) -> Target {
    let cpu = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    Target {
        f16_native: dev.0.info.f16_native,
        window_bytes: dev.0.window_bytes,
        vectors: if cpu { codegen::CPU_VECTORS } else { 1 },
        written_out: false,
    }
}

/// Bytes [`run`] asks for to hold the contiguous output `out` (whole vector stores).
pub(crate) fn out_bytes(out: &Aval) -> u64 {
    // Saturating: a size past any buffer is refused by the allocation, never wrapped.
    (out.size() as u64)
        .checked_next_multiple_of(codegen::PER_THREAD)
        .and_then(|n| n.checked_mul(out.dtype.storage_bytes() as u64))
        .unwrap_or(u64::MAX)
}

/// An operand of an elementwise kernel as far as the generated code and its metadata
/// depend on it: its layout and how its buffer is bound.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Operand<'a> {
    pub(crate) layout: &'a Layout,
    /// Windows the buffer is bound as.
    pub(crate) windows: u64,
    /// Whether the buffer extends to the next multiple of four elements past the data.
    pub(crate) padded: bool,
}

impl<'a> Operand<'a> {
    /// An operand of `dtype` read through `layout` from a buffer of `buffer_bytes` bytes.
    pub(crate) fn new(
        layout: &'a Layout,
        dtype: DType,
        buffer_bytes: u64,
        target: &Target,
    ) -> Operand<'a> {
        let end = layout.offset + crate::shape::size_of(&layout.shape);
        Operand {
            layout,
            windows: codegen::windows_for(buffer_bytes, target),
            padded: buffer_bytes >= (end.next_multiple_of(4) * dtype.storage_bytes()) as u64,
        }
    }
}

/// The kernel [`run`] launches for `program` over `operands`, writing a contiguous output
/// of `out_shape` bound as `out_windows` windows: source and this call's metadata.
pub(crate) fn elementwise_kernel(
    program: &Program,
    operands: &[Operand<'_>],
    out_shape: &[usize],
    out_windows: &[u64],
    target: &Target,
) -> Result<codegen::Generated> {
    with_inputs(program, operands, out_shape, |descs| {
        codegen::elementwise(program, descs, out_shape, out_windows, target)
    })
}

/// Calls `f` with the generator's view of `program`'s `operands`: each one's layout over
/// `out_shape` and how its elements are found.
fn with_inputs<R>(
    program: &Program,
    operands: &[Operand<'_>],
    out_shape: &[usize],
    f: impl FnOnce(&[InputDesc<'_>]) -> R,
) -> R {
    let prim = &program.nodes.last().expect("a program has a node").prim;
    let layouts: Vec<&Layout> = operands.iter().map(|o| o.layout).collect();
    let mapped = input_maps(prim, &layouts, out_shape);
    let descs: Vec<InputDesc<'_>> = operands
        .iter()
        .zip(&mapped)
        .map(|(o, (layout, map))| InputDesc {
            layout,
            map,
            windows: o.windows,
            padded: o.padded,
        })
        .collect();
    f(&descs)
}

/// Kernels [`run_cached`] made for one program, each with the metadata of its call, keyed
/// by everything else the source and the metadata depend on: the device (its float16 mode
/// and window size), the output's shape and windows, and each operand's layout, windows
/// and padding. A call over the same layouts reuses both; a new layout generates once more
/// (the device's pipeline cache still finds a kernel of the same structure).
#[derive(Default)]
pub(crate) struct KernelCache(std::sync::Mutex<Vec<CachedKernel>>);

struct CachedKernel {
    device: u64,
    out_shape: Vec<usize>,
    out_windows: Vec<u64>,
    operands: Vec<(Layout, u64, bool)>,
    kernel: Arc<Kernel>,
    meta: Arc<[u32]>,
}

impl KernelCache {
    /// Layout combinations kept per program (a function called on ever new views, such as
    /// slices at moving offsets, would otherwise grow it without bound).
    const ENTRIES: usize = 8;

    fn get(
        &self,
        device: u64,
        operands: &[Operand<'_>],
        out_shape: &[usize],
        out_windows: &[u64],
    ) -> Option<(Arc<Kernel>, Arc<[u32]>)> {
        let entries = crate::runtime::lock(&self.0);
        entries
            .iter()
            .find(|e| {
                e.device == device
                    && e.out_windows == out_windows
                    && e.out_shape == out_shape
                    && e.operands.len() == operands.len()
                    && e.operands
                        .iter()
                        .zip(operands)
                        .all(|((l, w, p), o)| l == o.layout && *w == o.windows && *p == o.padded)
            })
            .map(|e| (e.kernel.clone(), e.meta.clone()))
    }

    fn insert(
        &self,
        device: u64,
        operands: &[Operand<'_>],
        out_shape: &[usize],
        out_windows: &[u64],
        kernel: Arc<Kernel>,
        meta: Arc<[u32]>,
    ) {
        let mut entries = crate::runtime::lock(&self.0);
        if entries.len() >= Self::ENTRIES {
            entries.remove(0);
        }
        entries.push(CachedKernel {
            device,
            out_shape: out_shape.to_vec(),
            out_windows: out_windows.to_vec(),
            operands: operands
                .iter()
                .map(|o| (o.layout.clone(), o.windows, o.padded))
                .collect(),
            kernel,
            meta,
        });
    }
}

impl Clone for KernelCache {
    /// An empty cache: a copy generates its kernels again on first use.
    fn clone(&self) -> Self {
        KernelCache::default()
    }
}

impl std::fmt::Debug for KernelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = crate::runtime::lock(&self.0).len();
        write!(f, "KernelCache({n} kernels)")
    }
}

/// How the generator finds each operand's element for an output index: the operand's
/// layout re-expressed over the output's shape and an [`InputMap`]. Plain for every
/// primitive that reads its operands at the output index; concatenation and padding clamp
/// coordinates, gathers read along an axis at a loaded index.
pub(crate) fn input_maps(
    prim: &Primitive,
    layouts: &[&Layout],
    out_shape: &[usize],
) -> Vec<(Layout, InputMap)> {
    let over_out = |l: &Layout| Layout {
        shape: out_shape.to_vec(),
        strides: l.strides.clone(),
        offset: l.offset,
    };
    let full = |d: usize| (0isize, out_shape[d]);
    match prim {
        Primitive::Concatenate { dimension } => {
            let mut lo = 0usize;
            layouts
                .iter()
                .map(|l| {
                    let map = (0..out_shape.len())
                        .map(|d| {
                            if d == *dimension {
                                (lo as isize, l.shape[d])
                            } else {
                                full(d)
                            }
                        })
                        .collect();
                    lo += l.shape[*dimension];
                    (over_out(l), InputMap::Clamp(map))
                })
                .collect()
        }
        Primitive::Pad { low, .. } => {
            let l = layouts[0];
            let map = (0..out_shape.len())
                .map(|d| (low[d] as isize, l.shape[d]))
                .collect();
            vec![(over_out(l), InputMap::Clamp(map))]
        }
        Primitive::Gather { axis } | Primitive::SearchSorted { axis, .. } => {
            let (x, idx) = (layouts[0], layouts[1]);
            let mut v = over_out(x);
            v.strides[*axis] = 0;
            vec![
                (
                    v,
                    InputMap::Gather {
                        stride: x.strides[*axis],
                        len: x.shape[*axis],
                    },
                ),
                (idx.clone(), InputMap::Plain),
            ]
        }
        _ => layouts
            .iter()
            .map(|l| ((*l).clone(), InputMap::Plain))
            .collect(),
    }
}

/// A gather from an array too large to bind in one kernel beside its indices and output
/// (wgpu's GL backend binds 16 windows of 128 MiB): ranges along the gathered axis, each
/// gathered for every index and kept where the index falls in it. `None` where the whole
/// array takes at most half the bindings (boxes of the output then fit, see
/// [`run_in_blocks`]) or no range fits.
fn gather_in_ranges(
    dev: &Device,
    axis: usize,
    x: &Array,
    idx: &Array,
    out: &Aval,
) -> Result<Option<Array>> {
    use crate::lax::{self as lax, BinaryOp, CompareOp, Literal};
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
fn axis_ranges(dev: &Device, x: &Array, axis: usize, out: &Aval) -> Result<Option<usize>> {
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
fn axis_range(x: &Array, axis: usize, t0: usize, t1: usize) -> Result<Array> {
    let (mut s, mut l) = (vec![0; x.ndim()], x.shape().to_vec());
    (s[axis], l[axis]) = (t0, t1);
    crate::lax::slice(x, &s, &l, None)
}

/// A sorted search in rows too large to bind beside the queries and the output (see
/// [`axis_ranges`]): each range of the rows searched by itself, the counts added (the
/// elements before a query in a sorted row are those before it in each of its ranges).
fn search_in_ranges(
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
            Some(a) => crate::lax::binary(crate::lax::BinaryOp::Add, &a, &count)?,
        });
    }
    Ok(acc)
}

/// Concatenation: empty operands are dropped; at most 8 operands go into one kernel
/// (storage bindings are limited), more are joined in groups first.
fn concatenate(dev: &Device, dimension: usize, inputs: &[&Array], out: Aval) -> Result<Array> {
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
            crate::lax::Literal::I32(0).cast(out.dtype),
            Some(dev),
        )
        .map(|a| a.with_weak(out.weak));
    }
    if parts.len() == 1 {
        return Ok(parts[0].with_weak(out.weak));
    }
    if parts.len() > 8 {
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

fn program_name(p: &Program) -> &'static str {
    p.nodes.last().map(|n| n.prim.name()).unwrap_or("copy")
}

/// Runs the tiled matmul kernel on `[b, m, k] x [b, k, n]` operands (read through their
/// layouts), then rounds float16 results from the float32 accumulator.
/// For a product with few output tiles and a long `k` (matrix-vector products, the weight
/// gradients of a training step), the number of `k` slices to compute in parallel: the
/// kernel gives each output tile to one workgroup, so `[32, 512] x [512, 1]` would run
/// 512 steps on one workgroup. Measured on lavapipe: 9.0 ms as one tile, far less split
/// into 16 slices whose partial products are summed by the reduction kernels.
fn k_splits(batch: usize, m: usize, n: usize, k: usize, dtype: DType) -> usize {
    use crate::codegen::matmul::TILE;
    let tiles = batch * m.div_ceil(TILE as usize) * n.div_ceil(TILE as usize);
    // Float32 and integer sums only: float16 would round each partial product.
    if batch != 1
        || tiles >= 8
        || k < 256
        || !matches!(dtype, DType::Float32 | DType::Int32 | DType::UInt32)
    {
        return 1;
    }
    // The most slices (at most 32, each at least 32 long) that divide k.
    (2..=32.min(k / 32))
        .rev()
        .find(|&s| k.is_multiple_of(s))
        .unwrap_or(1)
}

/// A product of at most [`LONG_DOT_OUTPUTS`] outputs over a `k` of at least
/// [`LONG_DOT_K`] as one fused reduction: `a` and `b` broadcast to `[batch, m, n, k]`
/// views, multiplied where the row reduction reads them and summed along `k` (a tree of
/// 64-way sums, every output's row split among many threads). The tiled kernel would
/// give each output tile's whole `k` to one workgroup (32 at most with its `k` split),
/// leaving nearly all of a GPU idle.
/// Float32 and integers only (float16 products would round before the sum).
fn long_dot(dev: &Device, a: &Array, b: &Array, out: &Aval) -> Result<Option<Array>> {
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let exact = matches!(out.dtype, DType::Float32 | DType::Int32 | DType::UInt32);
    let outputs = batch * m * n;
    // CPU adapters run the tiled kernel's serial form, which steps through `k` faster
    // than the reduction's strided reads.
    let cpu = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    // The reduction numbers its `outputs * k` elements in 32 bits.
    let indexed = (outputs as u64).saturating_mul(k as u64) <= u64::from(u32::MAX);
    if cpu || !exact || !indexed || outputs == 0 || outputs > LONG_DOT_OUTPUTS || k < LONG_DOT_K {
        return Ok(None);
    }
    let shape = [batch, m, n, k];
    let av = crate::lax::broadcast_in_dim(a, &shape, &[0, 1, 3])?;
    let bt = crate::lax::transpose(b, &[0, 2, 1])?;
    let bv = crate::lax::broadcast_in_dim(&bt, &shape, &[0, 2, 3])?;
    let d = out.dtype;
    let program = Program::new(
        vec![d, d],
        vec![Node {
            prim: Primitive::Binary(crate::lax::BinaryOp::Mul),
            args: vec![0, 1],
            dtype: d,
        }],
    );
    let sum = crate::lax::ReduceOp::Sum;
    fused_reduce(
        dev,
        sum,
        &[3],
        &program,
        &[&av, &bv],
        &shape,
        out.clone(),
        None,
    )
    .map(Some)
}

/// The most outputs [`long_dot`] computes as a reduction: each output's `k` elements are
/// read from both operands without reuse, which the tiled kernel's tiles would share.
const LONG_DOT_OUTPUTS: usize = 64;
/// The shortest `k` [`long_dot`] takes.
const LONG_DOT_K: usize = 4096;

/// Matrix-vector products (`n == 1` or `m == 1`) as a broadcast multiply and a row or
/// column reduction: the tile kernel would give each 64x64 output tile (here one column of
/// it) to a workgroup of 256 threads, of which 16 do useful work. Measured on lavapipe:
/// `[32, 512] x [512, 1]` took 4.4 ms as tiles, against two small kernels this way. A long
/// `k` is taken in slices whose products hold at most 16M elements, so the temporaries stay
/// small however long the contraction (a `(1, 2^26) @ (2^26, 1)` product on the
/// workgroup-tiled kernel is one workgroup stepping through all of `k`).
/// Float32 and integers only (float16 products would round before the sum).
fn skinny_dot(a: &Array, b: &Array, out: &Aval) -> Result<Option<Array>> {
    use crate::lax::{self as lax, BinaryOp, ReduceOp};
    const MAX_PRODUCT: usize = 16 << 20;
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let exact = matches!(out.dtype, DType::Float32 | DType::Int32 | DType::UInt32);
    let outputs = batch * m * n;
    if !exact || (n != 1 && m != 1) || outputs == 0 || k == 0 || outputs > MAX_PRODUCT {
        return Ok(None);
    }
    let slice = (MAX_PRODUCT / outputs).max(1);
    let mut total: Option<Array> = None;
    for k0 in (0..k).step_by(slice) {
        let k1 = (k0 + slice).min(k);
        let kc = k1 - k0;
        let (a, b) = if kc == k {
            (a.clone(), b.clone())
        } else {
            (
                lax::slice(a, &[0, 0, k0], &[batch, m, k1], None)?,
                lax::slice(b, &[0, k0, 0], &[batch, k1, n], None)?,
            )
        };
        let part = if n == 1 {
            // b: [batch, k, 1] -> [batch, 1, k] -> [batch, m, k]; sum over k.
            let row = lax::reshape(&b, &[batch, 1, kc])?;
            let bb = lax::broadcast_in_dim(&row, &[batch, m, kc], &[0, 1, 2])?;
            let p = lax::binary(BinaryOp::Mul, &a, &bb)?;
            lax::reshape(&lax::reduce(ReduceOp::Sum, &p, &[2])?, &[batch, m, 1])?
        } else {
            // a: [batch, 1, k] -> [batch, k, 1] -> [batch, k, n]; sum over k.
            let col = lax::reshape(&a, &[batch, kc, 1])?;
            let ab = lax::broadcast_in_dim(&col, &[batch, kc, n], &[0, 1, 2])?;
            let p = lax::binary(BinaryOp::Mul, &ab, &b)?;
            lax::reshape(&lax::reduce(ReduceOp::Sum, &p, &[1])?, &[batch, 1, n])?
        };
        total = Some(match total {
            None => part,
            Some(t) => lax::binary(BinaryOp::Add, &t, &part)?,
        });
    }
    Ok(total.map(|r| r.with_weak(out.weak)))
}

fn dot(dev: &Device, a: &Array, b: &Array, out: Aval) -> Result<Array> {
    use crate::codegen::matmul::accumulator;
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    if let Some(r) = dot_in_blocks(dev, a, b, &out)? {
        return Ok(r);
    }
    if let Some(r) = skinny_dot(a, b, &out)? {
        return Ok(r);
    }
    if let Some(r) = long_dot(dev, a, b, &out)? {
        return Ok(r);
    }
    let s = k_splits(batch, m, n, k, out.dtype);
    if s > 1 {
        // [1, m, k] -> [s, m, k/s] and [1, k, n] -> [s, k/s, n]: one batch entry per slice,
        // then the partial products are summed.
        let kk = k / s;
        let a3 = crate::lax::transpose(&crate::lax::reshape(a, &[m, s, kk])?, &[1, 0, 2])?;
        let b3 = crate::lax::reshape(b, &[s, kk, n])?;
        let parts = crate::lax::batch_matmul(&a3, &b3)?;
        let sum = crate::lax::reduce(crate::lax::ReduceOp::Sum, &parts, &[0])?;
        return crate::lax::reshape(&sum, &[1, m, n]).map(|r| r.with_weak(out.weak));
    }
    let acc = accumulator(out.dtype);
    // Slices of `k` one dispatch covers, summed in the accumulator's dtype.
    let max_k = crate::codegen::matmul::max_k(dev.0.matmul) as usize;
    let mut total: Option<Array> = None;
    for k0 in (0..k.max(1)).step_by(max_k) {
        let k1 = (k0 + max_k).min(k);
        let (sa, sb) = if k0 == 0 && k1 == k {
            (a.clone(), b.clone())
        } else {
            (
                crate::lax::slice(a, &[0, 0, k0], &[batch, m, k1], None)?,
                crate::lax::slice(b, &[0, k0, 0], &[batch, k1, n], None)?,
            )
        };
        let part = dot_pass(dev, &sa, &sb, &out, acc)?;
        total = Some(match total {
            None => part,
            Some(t) => crate::lax::binary(crate::lax::BinaryOp::Add, &t, &part)?,
        });
    }
    as_out(total.expect("at least one slice of k"), &out)
}

/// A product whose operands and output need more storage bindings than one kernel may
/// have (wgpu's GL backend binds 16 of 128 MiB): runs of output rows (whole batch entries,
/// or rows of one), each computed from the rows of `a` it reads and all of `b` and copied
/// into place; where `b` alone is too large, slices of `k` whose products are summed.
/// `None` where the whole product fits.
fn dot_in_blocks(dev: &Device, a: &Array, b: &Array, out: &Aval) -> Result<Option<Array>> {
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let t = target(dev);
    let acc = crate::codegen::matmul::accumulator(out.dtype);
    let max = max_bindings(dev);
    let written = |elements: usize| {
        codegen::windows_for(out_bytes(&Aval::new(vec![elements], acc, false)), &t)
    };
    let whole = |x: &Array| (vec![0; 3], x.shape().to_vec());
    let need = region_windows(dev, a, &whole(a), &t)?
        + region_windows(dev, b, &whole(b), &t)?
        + written(batch * m * n);
    if need <= max || batch * m * n == 0 || k == 0 {
        return Ok(None);
    }
    // Runs of rows of a strided operand (a transposed one) span its whole buffer: copied
    // first (in boxes, as every copy may be), they span only their own.
    let (a, b) = (&contiguous(a)?, &contiguous(b)?);
    let shape = vec![batch, m, n];
    let reads = |(s, l): &Region| -> (Region, Region) {
        (
            (vec![s[0], s[1], 0], vec![l[0], l[1], k]),
            (vec![s[0], 0, 0], vec![l[0], k, n]),
        )
    };
    let fits = |r: &Region| -> Result<bool> {
        let (ra, rb) = reads(r);
        let rows = (r.1[0] - r.0[0]) * (r.1[1] - r.0[1]);
        let first = (r.0[0] * m + r.0[1]) * n;
        if !placeable(out.dtype, first, rows * n, batch * m * n) {
            return Ok(false);
        }
        Ok(
            region_windows(dev, a, &ra, &t)? + region_windows(dev, b, &rb, &t)? + written(rows * n)
                <= max,
        )
    };
    let mut plan = None;
    'search: for depth in 0..2 {
        let mut run = shape[depth];
        while run > 0 {
            let mut all = true;
            for r in blocks(&shape, depth, run) {
                all &= fits(&r)?;
                if !all {
                    break;
                }
            }
            if all {
                plan = Some((depth, run));
                break 'search;
            }
            run /= 2;
        }
    }
    let Some((depth, run)) = plan else {
        // `b` alone is too large: slices of `k`, each product split as needed, summed.
        if acc != out.dtype {
            // float16: the products and sums in float32 (exact products, as the kernel
            // forms them), rounded once at the end.
            let wide = |x: &Array| crate::lax::convert_element_type(x, acc);
            let r = dot(
                dev,
                &wide(a)?,
                &wide(b)?,
                Aval::new(out.shape.clone(), acc, out.weak),
            )?;
            return as_out(r, out).map(Some);
        }
        if k < 2 {
            return Ok(None);
        }
        let rows_of_b = |kc: usize| region_windows(dev, b, &(vec![0; 3], vec![batch, kc, n]), &t);
        let mut kc = k / 2;
        while kc > 1 && 2 * rows_of_b(kc)? > max {
            kc /= 2;
        }
        if 2 * rows_of_b(kc)? > max {
            return Ok(None);
        }
        let mut total: Option<Array> = None;
        for k0 in (0..k).step_by(kc) {
            let k1 = (k0 + kc).min(k);
            let sa = crate::lax::slice(a, &[0, 0, k0], &[batch, m, k1], None)?;
            let sb = crate::lax::slice(b, &[0, k0, 0], &[batch, k1, n], None)?;
            let part = dot(dev, &sa, &sb, out.clone())?;
            total = Some(match total {
                None => part,
                Some(t) => crate::lax::binary(crate::lax::BinaryOp::Add, &t, &part)?,
            });
        }
        return Ok(total);
    };
    let eb = out.dtype.storage_bytes() as u64;
    let storage = dev.alloc(
        BufferKind::Storage,
        out_bytes(out),
        "matmul",
        &out.shape,
        out.dtype,
    )?;
    for r in blocks(&shape, depth, run) {
        let ((sa, la), (sb, lb)) = reads(&r);
        let part = dot(
            dev,
            &crate::lax::slice(a, &sa, &la, None)?,
            &crate::lax::slice(b, &sb, &lb, None)?,
            Aval::new(
                r.1.iter().zip(&r.0).map(|(l, s)| l - s).collect(),
                out.dtype,
                out.weak,
            ),
        )?;
        let first = ((r.0[0] * m + r.0[1]) * n) as u64;
        place(dev, &part, &storage, first * eb)?;
    }
    Ok(Some(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&out.shape),
        out.clone(),
    )))
}

/// `x`, or a contiguous copy where it is strided.
fn contiguous(x: &Array) -> Result<Array> {
    if x.layout().is_contiguous() {
        Ok(x.clone())
    } else {
        crate::lax::copy(x)
    }
}

/// Storage-buffer windows a kernel binds to read `x`'s box `at` (none where it would be
/// staged into a texture).
fn region_windows(dev: &Device, x: &Array, at: &Region, t: &Target) -> Result<u64> {
    let st = x.storage()?;
    let layout = box_layout(x.layout(), at);
    let elements = crate::shape::size_of(&layout.shape) as u64;
    Ok(if input_windows(dev, st, elements, t) == codegen::TEXTURE {
        0
    } else {
        Rebased::new(dev, layout, x.dtype(), st.bytes, t).windows
    })
}

/// Whether [`place`] can copy `len` elements of `dtype` to element `first` of an array of
/// `total`: copies move whole 4-byte words, so a part of a packed dtype starts at a word's
/// first element and fills whole words, or runs to the end.
fn placeable(dtype: DType, first: usize, len: usize, total: usize) -> bool {
    let per = codegen::per_word(dtype) as usize;
    first.is_multiple_of(per) && (len.is_multiple_of(per) || first + len == total)
}

/// Copies `part`'s elements (contiguous) into `dst` from byte `at` on: a box of a larger
/// result computed by itself. Copies move whole 4-byte words, so a part of a packed dtype
/// ends on a word's last element or at the end of `dst`'s values.
fn place(dev: &Device, part: &Array, dst: &crate::runtime::Storage, at: u64) -> Result<()> {
    let part = contiguous(part)?;
    let eb = part.dtype().storage_bytes() as u64;
    let st = part.storage()?;
    let from = part.layout().offset as u64 * eb;
    let bytes = (part.size() as u64 * eb)
        .next_multiple_of(4)
        .min(dst.bytes - at)
        .min(st.bytes - from);
    dev.0.copy_buffer(st, from, dst, at, bytes)
}

/// `r` (an accumulator's values) as the output's dtype and weakness.
fn as_out(r: Array, out: &Aval) -> Result<Array> {
    if r.dtype() == out.dtype {
        Ok(r.with_weak(out.weak))
    } else {
        crate::lax::bind(
            Primitive::ConvertElementType {
                dtype: out.dtype,
                weak: out.weak,
            },
            &[&r],
            None,
        )
    }
}

/// One dispatch of the matmul kernel: the `[b, m, n]` product of `a` and `b` in the
/// accumulator dtype `acc` (weak as `out`).
fn dot_pass(dev: &Device, a: &Array, b: &Array, out: &Aval, acc: DType) -> Result<Array> {
    use crate::codegen::matmul::matmul;
    let (batch, m, k, n) = (a.shape()[0], a.shape()[1], a.shape()[2], b.shape()[2]);
    let count = (batch * m * n) as u64;
    let bytes = count * acc.storage_bytes() as u64;
    let storage = dev.alloc(BufferKind::Storage, bytes, "matmul", &out.shape, out.dtype)?;
    if count > 0 {
        let inner = &dev.0;
        let target = target(dev);
        let variant = inner.matmul;
        let wo = codegen::windows_for(bytes.min(storage.bytes), &target);
        // Operands as bound: whole buffers, or (where those need too many bindings) the
        // parts their views read.
        let whole = [
            input_windows(dev, a.storage()?, count, &target),
            input_windows(dev, b.storage()?, count, &target),
        ];
        let rebase = whole.iter().sum::<u64>() + wo > max_bindings(dev);
        let bound = [a, b]
            .into_iter()
            .zip(whole)
            .map(|(x, w)| {
                let st = x.storage()?;
                Ok(if rebase && w != codegen::TEXTURE {
                    let r = Rebased::new(dev, x.layout().clone(), x.dtype(), st.bytes, &target);
                    (st, r.layout, r.windows, r.base)
                } else {
                    (st, x.layout().clone(), w, 0)
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let (wa, wb) = (bound[0].2, bound[1].2);
        check_bindings(dev, "matmul", wa + wb + wo, bytes, out)?;
        let g = matmul(
            out.dtype,
            &bound[0].1,
            wa,
            &bound[1].1,
            wb,
            wo,
            (batch as u64, m as u64, n as u64, k as u64),
            variant,
            &target,
        );
        let kernel = inner.kernel(&g.body, || g.source())?;
        let bindings = bind_windows_from(
            bound
                .iter()
                .map(|(st, _, w, base)| (*st, *w, *base))
                .chain([(&storage, wo, 0)]),
            target.window_bytes,
        );
        let (tile_m, tile_n) = crate::codegen::matmul::tile(variant, m as u64, n as u64);
        let groups = batch as u64 * (m as u64).div_ceil(tile_m) * (n as u64).div_ceil(tile_n);
        inner.dispatch(&kernel, &bindings, &g.meta, groups)?;
    }
    Ok(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&out.shape),
        Aval::new(out.shape.clone(), acc, out.weak),
    ))
}

/// [`Primitive::ArgReduce`]: the extreme `m` of each row (a reduction), then the least
/// position of `x == m` (or of a NaN, which the extreme then is) as one fused program
/// reduced by its minimum: two reduction trees where the unfused steps took five more
/// passes over `x`.
fn arg_reduce(dev: &Device, max: bool, axis: usize, x: &Array, out: Aval) -> Result<Array> {
    use crate::lax::{CompareOp, Literal, ReduceOp, UnaryOp};
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
            Primitive::Binary(crate::lax::BinaryOp::Or),
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

/// A fresh copy of the operand, then the scatter kernel writes the updates into it.
fn scatter(
    dev: &Device,
    inputs: &[&Array],
    mode: crate::lax::ScatterMode,
    out: Aval,
) -> Result<Array> {
    let target = crate::lax::copy(inputs[0])?;
    let count = inputs[1].size() as u64;
    if count == 0 || target.size() == 0 {
        return Ok(target.with_weak(out.weak));
    }
    // Updates that are one broadcast value (counts) are read from that one element.
    let uniform = inputs[2].layout().strides.iter().all(|&s| s == 0);
    let vals = if uniform {
        inputs[2].clone()
    } else {
        contiguous(inputs[2])?
    };
    let pos = contiguous(inputs[1])?;
    let t = self::target(dev);
    let len = target.size() as u64;
    let max = max_bindings(dev);
    let align = u64::from(dev.0.info.limits.min_storage_buffer_offset_alignment).max(16);
    let (pb, vb, tb) = (
        4,
        out.dtype.storage_bytes() as u64,
        out.dtype.storage_bytes() as u64,
    );
    let stores = [pos.storage()?, vals.storage()?, target.storage()?];
    // On CPU adapters large positions and values are staged into textures, as
    // elementwise kernels' inputs are (lavapipe loads a storage-buffer element in a loop
    // over the SIMD lanes, a texel as a vector).
    let staged: [bool; 2] = std::array::from_fn(|i| {
        !(i == 1 && uniform) && input_windows(dev, stores[i], count, &t) == codegen::TEXTURE
    });
    // Windows for `u` updates and a range of `r` elements of the array (bases aligned
    // down, so one alignment more); none for a staged operand.
    let windows = |u: u64, r: u64| {
        let v = if uniform { 1 } else { u };
        [
            u64::from(!staged[0]) * codegen::windows_for(u * pb + align, &t),
            u64::from(!staged[1]) * codegen::windows_for((v * vb).next_multiple_of(4) + align, &t),
            codegen::windows_for((r * tb).next_multiple_of(4), &t),
        ]
    };
    // Every operand past one binding is bound as several windows; where more than a
    // kernel may bind, the updates go in runs and the array in ranges (of whole aligned
    // words), every run scattered into every range.
    let quantum = align / tb;
    let (mut u, mut r) = (count, len);
    while windows(u, r).iter().sum::<u64>() > max {
        let w = windows(u, r);
        if w[0] + w[1] >= w[2] && u > 1 {
            u = u.div_ceil(2);
        } else if r > quantum {
            r = (r / 2).next_multiple_of(quantum);
        } else if u > 1 {
            u = u.div_ceil(2);
        } else {
            break;
        }
    }
    check_bindings(
        dev,
        "scatter",
        windows(u, r).iter().sum::<u64>(),
        stores[2].bytes,
        &out,
    )?;
    for first in (0..len).step_by(r as usize) {
        let range = r.min(len - first);
        for u0 in (0..count).step_by(u as usize) {
            let run = u.min(count - u0);
            let p0 = pos.layout().offset as u64 + u0;
            let v0 = vals.layout().offset as u64 + if uniform { 0 } else { u0 };
            // A staged operand is read from its start.
            let base = |o: u64, b: u64, st: bool| if st { 0 } else { o * b / align * align };
            let (pbase, vbase) = (base(p0, pb, staged[0]), base(v0, vb, staged[1]));
            // As many windows as each buffer holds past its base.
            let bases = [pbase, vbase, first * tb];
            let w: [u64; 3] = std::array::from_fn(|i| {
                windows(run, range)[i].min(codegen::windows_for(stores[i].bytes - bases[i], &t))
            });
            let private = crate::codegen::scatter::private_words(mode, out.dtype, range, run);
            let g = crate::codegen::scatter::scatter(
                mode,
                out.dtype,
                run,
                (first, range),
                p0 - pbase / pb,
                (v0 - vbase / vb, uniform),
                w,
                private,
                &t,
            );
            let per_group = match private {
                Some(_) => crate::codegen::scatter::PRIVATE_UPDATES,
                None => codegen::WORKGROUP,
            };
            let kernel = dev.0.kernel(&g.body, || g.source())?;
            let bindings =
                bind_windows_from((0..3).map(|i| (stores[i], w[i], bases[i])), t.window_bytes);
            dev.0
                .dispatch(&kernel, &bindings, &g.meta, run.div_ceil(per_group))?;
        }
    }
    Ok(target.with_weak(out.weak))
}

/// Rows at least this long are radix sorted, shorter ones by the bitonic network, whose
/// few stages then cost less than the radix passes' dispatches. The workgroup kernels'
/// tile is 4096 keys, so they start later than the serial ones (1024-key tiles).
const RADIX_FROM_SERIAL: usize = 128;
const RADIX_FROM: usize = 1024;

/// Sorts along the last dimension: long rows by radix passes ([`radix_sort`]) where their
/// bindings fit, others by the bitonic network: keys padded to a power of two with their
/// positions, the stages in place, then a view of the first `n` columns.
fn sort(dev: &Device, x: &Array, indices: bool, out: Aval) -> Result<Array> {
    use crate::codegen::sort::{key_dtype, stage};
    use crate::lax::Literal;
    let r = x.ndim();
    let n = x.shape()[r - 1];
    let rows: usize = x.shape()[..r - 1].iter().product();
    if out.size() == 0 {
        return crate::lax::full(&out.shape, Literal::I32(0).cast(out.dtype), Some(dev));
    }
    let serial = dev.0.info.profile == crate::runtime::KernelProfile::Cpu;
    if n >= if serial {
        RADIX_FROM_SERIAL
    } else {
        RADIX_FROM
    } {
        if let Some(sorted) = radix_sort(dev, x, indices, (rows, n), serial, &out)? {
            return Ok(sorted);
        }
    }
    let p = n.next_power_of_two();
    let kd = key_dtype(x.dtype());
    let target = target(dev);
    // Keys and positions past one binding are bound as several windows each.
    let windows = |rows: usize| codegen::windows_for((rows * p) as u64 * 4, &target);
    // Too many for one kernel's bindings (wgpu's GL backend binds 16 of 128 MiB): runs of
    // rows, each copied out, sorted by itself and copied into place (odd-length float16
    // rows in pairs, as copies move whole words).
    let mut per = rows;
    while per > 1 && 2 * windows(per) > max_bindings(dev) {
        per /= 2;
    }
    if !placeable(out.dtype, 0, per * n, rows * n) {
        per &= !1;
    }
    if rows == 1 && 2 * windows(1) > max_bindings(dev) {
        return sort_long_row(dev, x, indices, n, &out);
    }
    if per < rows && per > 0 && 2 * windows(per) <= max_bindings(dev) {
        let x2 = crate::lax::reshape(x, &[rows, n])?;
        let eb = out.dtype.storage_bytes() as u64;
        let storage = dev.alloc(
            BufferKind::Storage,
            out_bytes(&out),
            "sort",
            &out.shape,
            out.dtype,
        )?;
        for r0 in (0..rows).step_by(per) {
            let r1 = (r0 + per).min(rows);
            let part = crate::lax::copy(&crate::lax::slice(&x2, &[r0, 0], &[r1, n], None)?)?;
            let aval = Aval::new(vec![r1 - r0, n], out.dtype, out.weak);
            place(
                dev,
                &sort(dev, &part, indices, aval)?,
                &storage,
                (r0 * n) as u64 * eb,
            )?;
        }
        return Ok(Array::from_storage(
            dev.clone(),
            storage,
            Layout::contiguous(&out.shape),
            out,
        ));
    }
    let keys = sort_keys(x, rows, n)?;
    // Fresh buffers the stages may overwrite (padding values are never compared: positions
    // past `n` sort last).
    let keys = crate::lax::pad(&keys, &[0, 0], &[0, p - n], Some(Literal::I32(0).cast(kd)))?;
    let pos = crate::lax::iota(crate::dtype::DType::UInt32, &[rows, p], 1, Some(dev))?;
    let inner = &dev.0;
    let total = (rows * p) as u64;
    check_u32_elements("sort", rows * p, &out)?;
    let windows = windows(rows);
    check_bindings(dev, "sort", 2 * windows, total * 4, &out)?;
    let bindings = bind_windows(
        [(keys.storage()?, windows), (pos.storage()?, windows)],
        target.window_bytes,
    );
    let groups = total.div_ceil(codegen::WORKGROUP);
    let mut k = 2u64;
    while k <= p as u64 {
        let mut j = k / 2;
        while j >= 1 {
            let g = stage(kd, rows as u64, p as u64, n as u64, j, k, windows, &target);
            let kernel = inner.kernel(&g.body, || g.source())?;
            inner.dispatch(&kernel, &bindings, &g.meta, groups)?;
            j /= 2;
        }
        k *= 2;
    }
    let src = if indices { &pos } else { &keys };
    let cols = crate::lax::slice(src, &[0, 0], &[rows, n], None)?;
    as_out(crate::lax::reshape(&cols, &out.shape)?, &out)
}

/// Sorts one row too long for the sort kernels' bindings (wgpu's GL backend binds 16
/// windows of 128 MiB, so rows past 2^28 keys): runs of the row sorted by themselves, then
/// each key's place in the whole found by binary searches of the other runs (counting the
/// equal keys of earlier runs before it, keeping the sort stable) and the keys or their
/// positions scattered there.
fn sort_long_row(dev: &Device, x: &Array, indices: bool, n: usize, out: &Aval) -> Result<Array> {
    use crate::lax::{self as lax, BinaryOp, CompareOp, Literal};
    let t = target(dev);
    let fits = |c: usize| {
        2 * codegen::windows_for(c.next_power_of_two() as u64 * 4, &t) <= max_bindings(dev)
    };
    let mut run = n.next_power_of_two() / 2;
    while run > 1 && !fits(run) {
        run /= 2;
    }
    let keys = sort_keys(x, 1, n)?;
    let kd = keys.dtype();
    let u32s = |v: u32, shape: &[usize]| lax::full(shape, Literal::U32(v), Some(dev));
    let i32s = |v: usize, shape: &[usize]| lax::full(shape, Literal::I32(v as i32), Some(dev));
    // Sorted keys as unsigned words in the sort's order (every NaN last, -0.0 as 0.0).
    let ordered = |k: &Array| -> Result<Array> {
        let shape = k.shape().to_vec();
        let bits = lax::bitcast_convert_type(k, DType::UInt32)?;
        let sign = u32s(0x8000_0000, &shape)?;
        match kd {
            DType::Float32 => {
                let negative = lax::compare(CompareOp::Ge, &bits, &sign)?;
                let flipped = lax::unary(crate::lax::UnaryOp::Not, &bits)?;
                let raised = lax::binary(BinaryOp::Or, &bits, &sign)?;
                let mut w = lax::select(&negative, &flipped, &raised)?;
                let zero = lax::compare(CompareOp::Eq, &bits, &sign)?;
                w = lax::select(&zero, &sign, &w)?;
                let nan = lax::compare(CompareOp::Ne, k, k)?;
                lax::select(&nan, &u32s(u32::MAX, &shape)?, &w)
            }
            DType::Int32 => lax::binary(BinaryOp::Xor, &bits, &sign),
            _ => Ok(bits),
        }
    };
    let starts: Vec<usize> = (0..n).step_by(run).collect();
    let mut sorted = Vec::new();
    for &c0 in &starts {
        let c1 = (c0 + run).min(n);
        let part = lax::copy(&lax::slice(&keys, &[0, c0], &[1, c1], None)?)?;
        let values = sort(dev, &part, false, Aval::new(vec![1, c1 - c0], kd, false))?;
        let values = lax::reshape(&contiguous(&values)?, &[c1 - c0])?;
        let positions = if indices {
            let p = sort(
                dev,
                &part,
                true,
                Aval::new(vec![1, c1 - c0], DType::Int32, false),
            )?;
            let p = lax::reshape(&contiguous(&p)?, &[c1 - c0])?;
            Some(lax::binary(BinaryOp::Add, &p, &i32s(c0, &[c1 - c0])?)?)
        } else {
            None
        };
        sorted.push((ordered(&values)?, values, positions));
    }
    // How many of the sorted `words` come before each of `query`: those below it, and
    // those equal to it when `equal`.
    let count = |words: &Array, query: &Array, equal: bool| -> Result<Array> {
        let len = words.size();
        let shape = query.shape().to_vec();
        let (mut low, mut high) = (i32s(0, &shape)?, i32s(len, &shape)?);
        let one = i32s(1, &shape)?;
        for _ in 0..(usize::BITS - len.leading_zeros()) {
            let mid = lax::binary(BinaryOp::ShiftRight, &lax::add(&low, &high)?, &one)?;
            let at = lax::gather(words, &mid, 0)?;
            // Go left while the query comes before words[mid].
            let op = if equal { CompareOp::Lt } else { CompareOp::Le };
            let left = lax::compare(op, query, &at)?;
            low = lax::select(&left, &low, &lax::add(&mid, &one)?)?;
            high = lax::select(&left, &mid, &high)?;
        }
        Ok(high)
    };
    let (dtype, fill) = if indices {
        (DType::Int32, Literal::I32(0))
    } else {
        (kd, Literal::I32(0).cast(kd))
    };
    let mut result = lax::full(&[n], fill, Some(dev))?;
    for (j, (words, values, positions)) in sorted.iter().enumerate() {
        let len = values.size();
        let mut rank = lax::iota(DType::Int32, &[len], 0, Some(dev))?;
        for (i, (other, ..)) in sorted.iter().enumerate() {
            if i != j {
                rank = lax::add(&rank, &count(other, words, i < j)?)?;
            }
        }
        let updates = positions.as_ref().unwrap_or(values);
        result = lax::scatter(&result, &rank, updates, crate::lax::ScatterMode::Set)?;
    }
    debug_assert_eq!(result.dtype(), dtype);
    as_out(lax::reshape(&result, &out.shape)?, out)
}

/// `x` as `[rows, n]` keys of the type the sort kernels compare
/// ([`crate::codegen::sort::key_dtype`]).
fn sort_keys(x: &Array, rows: usize, n: usize) -> Result<Array> {
    let kd = crate::codegen::sort::key_dtype(x.dtype());
    let keys = crate::lax::reshape(x, &[rows, n])?;
    if kd == x.dtype() {
        Ok(keys)
    } else {
        crate::lax::convert_element_type(&keys, kd)
    }
}

/// The radix sort of the `[rows, n]` rows of `x` (see [`crate::codegen::sort`]): keys as
/// contiguous words, then per digit a count, a scan of the counts and a scatter into a
/// second pair of buffers, alternating. `None` where its bindings exceed the device's
/// (the bitonic network binds fewer).
fn radix_sort(
    dev: &Device,
    x: &Array,
    indices: bool,
    (rows, n): (usize, usize),
    serial: bool,
    out: &Aval,
) -> Result<Option<Array>> {
    use crate::codegen::sort::{key_dtype, Radix};
    use crate::runtime::Storage;
    check_u32_elements("sort", rows * n, out)?;
    let t = target(dev);
    let bytes = (rows * n) as u64 * 4;
    let count_len = Radix::count_len(serial, rows as u64, n as u64);
    let radix = Radix {
        dtype: x.dtype(),
        rows: rows as u64,
        n: n as u64,
        serial,
        windows: codegen::windows_for(bytes, &t),
        count_windows: codegen::windows_for(count_len * 4, &t),
    };
    let (windows, count_windows) = (radix.windows, radix.count_windows);
    let arrays = if indices { 4 } else { 2 };
    if arrays * windows + 2 * count_windows > max_bindings(dev) {
        return Ok(None);
    }
    let kd = key_dtype(x.dtype());
    let keys = sort_keys(x, rows, n)?;
    let l = keys.layout();
    let keys = if l.is_contiguous() && l.offset == 0 {
        keys
    } else {
        crate::lax::copy(&keys)?
    };
    let inner = &dev.0;
    let alloc = |bytes: u64| dev.alloc(BufferKind::Storage, bytes, "sort", &out.shape, out.dtype);
    let counts = alloc(count_len * 4)?;
    let count_shape = [rows, count_len as usize / rows];
    let counts_array = Array::from_storage(
        dev.clone(),
        counts.clone(),
        Layout::contiguous(&count_shape),
        Aval::new(count_shape.to_vec(), DType::UInt32, false),
    );
    // The keys and positions being read, and the buffers a pass writes (the input's own
    // buffer is never written).
    let mut cur_keys = keys.storage()?.clone();
    let mut cur_pos: Option<Arc<Storage>> = None;
    let mut spare: Option<(Arc<Storage>, Option<Arc<Storage>>)> = None;
    let groups = radix.groups();
    for (pass, shift) in radix.shifts().enumerate() {
        let first = pass == 0;
        let g = radix.count(shift, &t);
        let kernel = inner.kernel(&g.body, || g.source())?;
        let bindings = bind_windows(
            [(&cur_keys, windows), (&counts, count_windows)],
            t.window_bytes,
        );
        inner.dispatch(&kernel, &bindings, &g.meta, groups)?;
        let scanned = cumulative_rows(
            dev,
            (crate::primitive::CumulativeOp::Sum, false),
            &counts_array,
            (count_shape[0] as u64, count_shape[1] as u64),
            DType::UInt32,
            out,
        )?;
        let (out_keys, out_pos) = match spare.take() {
            Some(s) => s,
            None => (
                alloc(bytes)?,
                if indices { Some(alloc(bytes)?) } else { None },
            ),
        };
        let g = radix.scatter(shift, indices, first, &t);
        let kernel = inner.kernel(&g.body, || g.source())?;
        let mut buffers = vec![(&cur_keys, windows)];
        if let Some(p) = &cur_pos {
            buffers.push((p, windows));
        }
        buffers.push((&counts, count_windows));
        buffers.push((scanned.storage()?, count_windows));
        buffers.push((&out_keys, windows));
        if let Some(p) = &out_pos {
            buffers.push((p, windows));
        }
        let bindings = bind_windows(buffers, t.window_bytes);
        inner.dispatch(&kernel, &bindings, &g.meta, groups)?;
        let read_keys = std::mem::replace(&mut cur_keys, out_keys);
        let read_pos = std::mem::replace(&mut cur_pos, out_pos);
        if !first {
            spare = Some((read_keys, read_pos));
        }
    }
    let shape = [rows, n];
    // Positions are below 2^31 (a row of 2^31 keys would need 8 GiB), so their words are
    // the int32 result's.
    let (storage, dtype) = match cur_pos {
        Some(p) => (p, DType::Int32),
        None => (cur_keys, kd),
    };
    let sorted = Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), dtype, false),
    );
    Ok(Some(as_out(
        crate::lax::reshape(&sorted, &out.shape)?,
        out,
    )?))
}

/// A cumulative sum or product along `axis`: the axis moved last in a contiguous copy (if
/// it is not already), float16 widened to float32, then the scan kernels.
fn cumulative(
    dev: &Device,
    op: crate::primitive::CumulativeOp,
    axis: usize,
    reverse: bool,
    x: &Array,
    out: Aval,
) -> Result<Array> {
    use crate::lax::Literal;
    if out.size() == 0 {
        return crate::lax::full(&out.shape, Literal::I32(0).cast(out.dtype), Some(dev));
    }
    let r = x.ndim();
    let mut perm: Vec<usize> = (0..r).filter(|&d| d != axis).collect();
    perm.push(axis);
    let moved = crate::lax::transpose(x, &perm)?;
    // float16 and bfloat16 are scanned as float32 values rounded after every operation.
    let round = x.dtype();
    let wide = if matches!(round, DType::Float16 | DType::BFloat16) {
        crate::lax::convert_element_type(&moved, DType::Float32)?
    } else {
        moved
    };
    let l = wide.layout();
    let wide = if l.is_contiguous() && l.offset == 0 {
        wide
    } else {
        crate::lax::copy(&wide)?
    };
    let n = x.shape()[axis];
    let rows = out.size() / n;
    let name = op.name();
    check_u32_elements(name, out.size(), &out)?;
    let scanned = match cumulative_in_blocks(dev, (op, reverse), &wide, (rows, n), round, &out)? {
        Some(s) => s,
        None => cumulative_rows(
            dev,
            (op, reverse),
            &wide,
            (rows as u64, n as u64),
            round,
            &out,
        )?,
    };
    let scanned = crate::lax::reshape(&scanned, wide.shape())?;
    let mut inv = vec![0; r];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    let back = crate::lax::transpose(&scanned, &inv)?;
    as_out(back, &out)
}

/// Scans rows of `x` (as [`cumulative_rows`] takes them) whose buffers need more storage bindings
/// than one kernel may have (wgpu's GL backend binds 16 of 128 MiB): runs of rows, each
/// copied out, scanned and copied into place; rows too long for that in runs of columns,
/// each combined with the last value of the run before it (the first of the run after it
/// when `reverse`). `None` where the whole scan fits.
fn cumulative_in_blocks(
    dev: &Device,
    (op, reverse): (crate::primitive::CumulativeOp, bool),
    x: &Array,
    (rows, n): (usize, usize),
    round: DType,
    out: &Aval,
) -> Result<Option<Array>> {
    let t = target(dev);
    let max = max_bindings(dev);
    // Input, chunk totals and output (every scanned dtype is 4 bytes), conservatively.
    let need = |r: usize, c: usize| {
        let w = codegen::windows_for(r as u64 * c as u64 * 4, &t);
        let chunks = (c as u64).div_ceil(crate::codegen::cumulative::CHUNK);
        2 * w + codegen::windows_for(r as u64 * chunks * 4, &t)
    };
    let whole = input_windows(dev, x.storage()?, (rows * n) as u64, &t);
    let whole = if whole == codegen::TEXTURE { 0 } else { whole };
    if whole + need(rows, n) - codegen::windows_for((rows * n) as u64 * 4, &t) <= max {
        return Ok(None);
    }
    let x2 = crate::lax::reshape(x, &[rows, n])?;
    let storage = dev.alloc(
        BufferKind::Storage,
        (rows * n) as u64 * 4,
        "cumsum",
        &out.shape,
        out.dtype,
    )?;
    let scan = |r0: usize, r1: usize, c0: usize, c1: usize| -> Result<Array> {
        let part = crate::lax::copy(&crate::lax::slice(&x2, &[r0, c0], &[r1, c1], None)?)?;
        cumulative_rows(
            dev,
            (op, reverse),
            &part,
            ((r1 - r0) as u64, (c1 - c0) as u64),
            round,
            out,
        )
    };
    let mut per = rows;
    while per > 1 && need(per, n) > max {
        per /= 2;
    }
    if need(per, n) <= max {
        for r0 in (0..rows).step_by(per) {
            let r1 = (r0 + per).min(rows);
            place(dev, &scan(r0, r1, 0, n)?, &storage, (r0 * n) as u64 * 4)?;
        }
    } else {
        let mut run = n;
        while run > 1 && need(1, run) > max {
            run /= 2;
        }
        let combine = match op {
            crate::primitive::CumulativeOp::Sum => crate::lax::BinaryOp::Add,
            crate::primitive::CumulativeOp::Prod => crate::lax::BinaryOp::Mul,
        };
        let mut starts: Vec<usize> = (0..n).step_by(run).collect();
        if reverse {
            starts.reverse();
        }
        for r in 0..rows {
            let mut carry: Option<Array> = None;
            for &c0 in &starts {
                let c1 = (c0 + run).min(n);
                let mut part = scan(r, r + 1, c0, c1)?;
                if let Some(c) = &carry {
                    let c = crate::lax::broadcast_in_dim(c, &[1, c1 - c0], &[0, 1])?;
                    part = crate::lax::binary(combine, &part, &c)?;
                    if round != part.dtype() {
                        let r = crate::lax::convert_element_type(&part, round)?;
                        part = crate::lax::convert_element_type(&r, part.dtype())?;
                    }
                }
                let end = if reverse { 0 } else { c1 - c0 - 1 };
                carry = Some(crate::lax::slice(&part, &[0, end], &[1, end + 1], None)?);
                place(dev, &part, &storage, (r * n + c0) as u64 * 4)?;
            }
        }
    }
    let shape = [rows, n];
    Ok(Some(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), x.dtype(), false),
    )))
}

/// The binary operation that combines two partial results of a reduction or scan `op`.
fn combining(op: crate::lax::ReduceOp) -> crate::lax::BinaryOp {
    use crate::lax::{BinaryOp, ReduceOp};
    match op {
        ReduceOp::Sum => BinaryOp::Add,
        ReduceOp::Prod => BinaryOp::Mul,
        ReduceOp::Max => BinaryOp::Max,
        ReduceOp::Min => BinaryOp::Min,
        ReduceOp::And => BinaryOp::And,
        ReduceOp::Or => BinaryOp::Or,
    }
}

/// Scans the rows of the contiguous `[rows, n]` array `x` (float32, int32 or uint32):
/// chunk totals, their scan (recursively), then every chunk rescanned and offset by its
/// prefix. `round` is float16 or bfloat16 where `x` holds such values as float32 and
/// every operation rounds to them; else `x`'s dtype.
fn cumulative_rows(
    dev: &Device,
    (op, reverse): (crate::primitive::CumulativeOp, bool),
    x: &Array,
    (rows, n): (u64, u64),
    round: DType,
    out: &Aval,
) -> Result<Array> {
    use crate::codegen::cumulative::{kernel, Phase, CHUNK};
    let name = op.name();
    let inner = &dev.0;
    let target = target(dev);
    let dtype = x.dtype();
    let bytes = rows * n * 4;
    // On CPU adapters a large input is staged into a texture, as elementwise kernels'
    // are (one copy serves both passes).
    // Buffers are bound as far as the values go (a pooled buffer may be larger).
    let win_in = match input_windows(dev, x.storage()?, rows * n, &target) {
        codegen::TEXTURE => codegen::TEXTURE,
        w => w.min(codegen::windows_for(bytes, &target)),
    };
    let chunks = n.div_ceil(CHUNK);
    let threads = rows * chunks;
    let groups = threads.div_ceil(codegen::WORKGROUP);
    let prefix = if chunks > 1 {
        let totals = dev.alloc(BufferKind::Storage, threads * 4, name, &out.shape, dtype)?;
        let win_t = codegen::windows_for(threads * 4, &target);
        check_bindings(dev, name, win_in + win_t, bytes, out)?;
        let g = kernel(
            op,
            round,
            Phase::Totals,
            reverse,
            (rows, n),
            win_in,
            win_t,
            &target,
        );
        let k = inner.kernel(&g.body, || g.source())?;
        let bindings = bind_windows(
            [(x.storage()?, win_in), (&totals, win_t)],
            target.window_bytes,
        );
        inner.dispatch(&k, &bindings, &g.meta, groups)?;
        let shape = [rows as usize, chunks as usize];
        let totals = Array::from_storage(
            dev.clone(),
            totals,
            Layout::contiguous(&shape),
            Aval::new(shape.to_vec(), dtype, false),
        );
        Some(cumulative_rows(
            dev,
            (op, reverse),
            &totals,
            (rows, chunks),
            round,
            out,
        )?)
    } else {
        None
    };
    let storage = dev.alloc(BufferKind::Storage, bytes, name, &out.shape, dtype)?;
    let win_out = codegen::windows_for(bytes, &target);
    let win_p = match &prefix {
        Some(p) => codegen::windows_for(p.size() as u64 * 4, &target),
        None => 0,
    };
    check_bindings(dev, name, win_in + win_p + win_out, bytes, out)?;
    let g = kernel(
        op,
        round,
        Phase::Chunks {
            prefix_windows: win_p,
        },
        reverse,
        (rows, n),
        win_in,
        win_out,
        &target,
    );
    let k = inner.kernel(&g.body, || g.source())?;
    let mut buffers = vec![(x.storage()?, win_in)];
    if let Some(p) = &prefix {
        buffers.push((p.storage()?, win_p));
    }
    buffers.push((&storage, win_out));
    let bindings = bind_windows(buffers, target.window_bytes);
    inner.dispatch(&k, &bindings, &g.meta, groups)?;
    let shape = [rows as usize, n as usize];
    Ok(Array::from_storage(
        dev.clone(),
        storage,
        Layout::contiguous(&shape),
        Aval::new(shape.to_vec(), dtype, false),
    ))
}

/// Runs a reduction: the reduced axes are moved last (a view), each pass reduces chunks of
/// every row to partials, until one value per row is left.
fn reduce(
    dev: &Device,
    op: crate::lax::ReduceOp,
    x: &Array,
    axes: &[usize],
    out: Aval,
) -> Result<Array> {
    if let Some(r) = reduce_in_slabs(dev, op, x, axes, &out)? {
        return Ok(r);
    }
    reduce_from(dev, op, First::Array(x), x.shape(), axes, out, None)
}

/// A reduction of an array whose buffer needs more storage bindings than a kernel may have
/// (wgpu's GL backend: 16 of 128 MiB): the leading axis in slabs, each reduced by itself
/// binding only its part of the buffer ([`Rebased`]). Where the leading axis is reduced the
/// slabs' results are combined in the accumulator's type; where it is kept each slab's
/// rows are copied into their place in the result. `None` where no split is needed or
/// none fits (then the reduction reports the bindings it needs).
fn reduce_in_slabs(
    dev: &Device,
    op: crate::lax::ReduceOp,
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
/// bits of [`run`] followed by the reduction.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fused_reduce(
    dev: &Device,
    op: crate::lax::ReduceOp,
    axes: &[usize],
    program: &Program,
    inputs: &[&Array],
    shape: &[usize],
    out: Aval,
    cache: Option<&KernelCache>,
) -> Result<Array> {
    use crate::codegen::reduce::{COLUMN_CHUNK, ROW_CHUNK};
    let value = program.dtype_of(program.outputs[0]);
    if widened(value).is_some() || widened(out.dtype).is_some() {
        // The values converted to their compute dtype in the same program, reduced in
        // that dtype ([`widening`]).
        let wide = widened(value).unwrap_or(value);
        let mut p = program.clone();
        if wide != value {
            p.nodes.push(Node {
                args: vec![program.outputs[0]],
                dtype: wide,
                prim: Primitive::ConvertElementType {
                    dtype: wide,
                    weak: false,
                },
            });
            p.outputs = vec![p.inputs.len() + p.nodes.len() - 1];
        }
        let dtype = widened(out.dtype).unwrap_or(out.dtype);
        let out_wide = Aval::new(out.shape.clone(), dtype, out.weak);
        let r = fused_reduce(dev, op, axes, &p, inputs, shape, out_wide, None)?;
        return as_out(r, &out);
    }
    // Operands past what one kernel binds (wgpu's GL backend: 16 windows of 128 MiB): the
    // values are stored first, as unfused, since storing and reducing them each split.
    let t = target(dev);
    let elements = crate::shape::size_of(shape) as u64;
    let read: u64 = inputs
        .iter()
        .map(|a| Ok(input_windows(dev, a.storage()?, elements, &t)))
        .sum::<Result<u64>>()?;
    let partials = elements * 4 / ROW_CHUNK.min(COLUMN_CHUNK) + out.size() as u64 * 4;
    if read + codegen::windows_for(partials, &t) > max_bindings(dev) {
        let dtype = program.nodes.last().map_or(program.inputs[0], |n| n.dtype);
        let values = run(
            dev,
            program,
            inputs,
            Aval::new(shape.to_vec(), dtype, false),
        )?;
        return reduce(dev, op, &values, axes, out);
    }
    reduce_from(
        dev,
        op,
        First::Program(program, inputs),
        shape,
        axes,
        out,
        cache,
    )
}

/// What the first pass of a reduction reads.
enum First<'a> {
    Array(&'a Array),
    /// An elementwise program's values over its operands.
    Program(&'a Program, &'a [&'a Array]),
}

/// Fails when a kernel over operands `inputs` and an iteration space of `shape` needs more
/// metadata words (their sizes and strides: arrays of very high rank) than a dispatch
/// carries.
fn check_metadata(func: &str, meta: &[u32], inputs: &[&Array], shape: &[usize]) -> Result<()> {
    if meta.len() <= codegen::META_WORDS {
        return Ok(());
    }
    let operands: Vec<String> = inputs
        .iter()
        .map(|a| match a.shape() {
            s if s.len() <= 8 => format!("{}{s:?}", a.dtype()),
            s => format!("{}[{} dims, {} elements]", a.dtype(), s.len(), a.size()),
        })
        .collect();
    Err(Error::arg(
        func,
        format!(
            "a kernel over {} elements of rank {} with operands {} needs {} metadata words (sizes and strides); a dispatch carries {}",
            crate::shape::size_of(shape),
            shape.len(),
            operands.join(", "),
            meta.len(),
            codegen::META_WORDS
        ),
    ))
}

/// Fails when a kernel that counts elements in 32 bits (scans, sorts) would need more.
fn check_u32_elements(func: &str, elements: usize, out: &Aval) -> Result<()> {
    if elements > u32::MAX as usize {
        return Err(Error::OutOfMemory {
            func: crate::error::api_name(func),
            bytes: (elements as u64).saturating_mul(4),
            shape: out.shape.clone(),
            dtype: out.dtype,
            reason: "the kernel counts elements in 32 bits: at most 2^32 - 1".into(),
        });
    }
    Ok(())
}

/// Fails when a kernel would bind more storage buffers than the device allows. `total`
/// counts storage-buffer bindings only: the metadata is a uniform block, and staged inputs
/// are textures, each with limits of their own.
fn check_bindings(dev: &Device, func: &str, total: u64, bytes: u64, out: &Aval) -> Result<()> {
    let max_bindings = u64::from(dev.0.info.limits.max_storage_buffers_per_shader_stage);
    if total > max_bindings {
        return Err(Error::OutOfMemory {
            func: crate::error::api_name(func),
            bytes,
            shape: out.shape.clone(),
            dtype: out.dtype,
            reason: format!(
                "the operands need {total} storage-buffer bindings of at most {} bytes; the device's limit is {max_bindings} (max_storage_buffers_per_shader_stage)",
                dev.0.window_bytes
            ),
        });
    }
    Ok(())
}

/// The windows of each buffer as bindings, in order ([`codegen::TEXTURE`]: the buffer
/// staged into a texture).
fn bind_windows<'a>(
    buffers: impl IntoIterator<Item = (&'a Arc<crate::runtime::Storage>, u64)>,
    window_bytes: u64,
) -> Vec<Binding<'a>> {
    bind_windows_from(buffers.into_iter().map(|(s, w)| (s, w, 0)), window_bytes)
}

/// [`bind_windows`] with each buffer's windows starting at a byte offset (see [`Rebased`]).
fn bind_windows_from<'a>(
    buffers: impl IntoIterator<Item = (&'a Arc<crate::runtime::Storage>, u64, u64)>,
    window_bytes: u64,
) -> Vec<Binding<'a>> {
    let mut bindings = Vec::new();
    for (s, windows, base) in buffers {
        if windows == codegen::TEXTURE {
            bindings.push(Binding::Texture {
                buffer: s.buffer(),
                bytes: s.bytes,
            });
        }
        for w in 0..windows {
            let offset = base + w * window_bytes;
            bindings.push(Binding::Buffer {
                buffer: s.buffer(),
                offset,
                size: (s.bytes - offset).min(window_bytes),
            });
        }
    }
    bindings
}

/// An operand read from the part of its buffer its layout touches, bound from the aligned
/// byte offset `base` on (the layout's offset counts from there). A kernel then binds only
/// the windows its slice reads, so a slab of a buffer larger than a kernel may bind at once
/// (wgpu's GL backend binds 16 windows of 128 MiB) can be read by itself.
struct Rebased {
    layout: Layout,
    base: u64,
    windows: u64,
    padded: bool,
}

impl Rebased {
    fn new(dev: &Device, layout: Layout, dtype: DType, buffer_bytes: u64, t: &Target) -> Rebased {
        let eb = dtype.storage_bytes() as u64;
        let align = u64::from(dev.0.info.limits.min_storage_buffer_offset_alignment).max(16);
        let (lo, hi) = layout.span().unwrap_or((layout.offset, layout.offset));
        let base = (lo as u64 * eb) / align * align;
        // Vector loads may read up to the next multiple of four elements where the buffer
        // holds them (as `Operand::padded` says).
        let end4 = (hi as u64).next_multiple_of(4) * eb;
        let padded = buffer_bytes >= end4;
        let end = if padded {
            end4
        } else {
            (hi as u64 * eb).next_multiple_of(4).min(buffer_bytes)
        };
        let mut layout = layout;
        layout.offset -= (base / eb) as usize;
        Rebased {
            layout,
            base,
            windows: codegen::windows_for(end.saturating_sub(base), t),
            padded,
        }
    }

    fn operand(&self) -> Operand<'_> {
        Operand {
            layout: &self.layout,
            windows: self.windows,
            padded: self.padded,
        }
    }
}

/// Storage-buffer bindings a kernel may use on `dev`.
fn max_bindings(dev: &Device) -> u64 {
    u64::from(dev.0.info.limits.max_storage_buffers_per_shader_stage)
}

/// How a kernel over `elements` elements reads an input from `st`: [`codegen::TEXTURE`]
/// where the device stages inputs into textures and the buffer or the kernel is large
/// enough (every thread loads its operands, so a broadcast scalar is loaded as often as a
/// full operand), for buffers no application holds; else the windows its buffer is bound as.
fn input_windows(
    dev: &Device,
    st: &crate::runtime::Storage,
    elements: u64,
    target: &Target,
) -> u64 {
    match dev.0.texture_inputs {
        Some((min, max))
            if !st.is_shared() && st.bytes <= max && st.bytes.max(elements * 4) >= min =>
        {
            codegen::TEXTURE
        }
        _ => codegen::windows_for(st.bytes, target),
    }
}

/// The passes of a reduction over `axes` of an array of `shape` read from `first`; a
/// program's first pass reuses the kernel `cache` holds for its operands' layouts.
fn reduce_from(
    dev: &Device,
    op: crate::lax::ReduceOp,
    first: First<'_>,
    shape: &[usize],
    axes: &[usize],
    out: Aval,
    cache: Option<&KernelCache>,
) -> Result<Array> {
    use crate::codegen::reduce::{
        accumulator, column_reduction, row_reduction, Source, COLUMN_CHUNK, ROW_CHUNK,
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
        (None, Some((p, _))) => p.nodes.last().map(|n| n.dtype).unwrap_or(p.inputs[0]),
        (None, None) => unreachable!("a reduction reads an array or a program"),
    };
    let acc = accumulator(op, in_dtype);
    let inner = &dev.0;
    let target = target(dev);
    let name = op.name();
    loop {
        // The length of the contiguous runs this pass reads: a row pass reads rows of the
        // current `k` (the partials of the previous pass), so whether they are whole `vec4`s
        // is decided again for every pass.
        let run = if columns { rows } else { k };
        let chunk = if columns { COLUMN_CHUNK } else { ROW_CHUNK };
        let parts = k.div_ceil(chunk).max(1);
        let n = rows * parts;
        let bytes = n * acc.storage_bytes() as u64;
        let storage = dev.alloc(BufferKind::Storage, bytes, name, &out.shape, out.dtype)?;
        if n > 0 {
            let out_windows = codegen::windows_for(storage.bytes, &target);
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
            let generate = |source: &Source| {
                if columns {
                    column_reduction(op, source, rows, k, parts, out_windows, &target).0
                } else {
                    row_reduction(op, source, rows, k, parts, out_windows, &target)
                }
            };
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
                    let source = Source::buffer(op, x.dtype(), layout, windows, run, &target);
                    let g = generate(&source);
                    let kernel = inner.kernel(&g.body, || g.source())?;
                    let meta: Arc<[u32]> = g.meta.into();
                    (
                        kernel,
                        meta,
                        threads(source.vector),
                        vec![(st, windows, base)],
                    )
                }
                (None, Some((p, inputs))) => {
                    let inputs: Vec<&Array> = inputs.iter().collect();
                    let elements = crate::shape::size_of(shape) as u64;
                    let (stores, operands) = operands_of(dev, &inputs, elements, &target)?;
                    let total: u64 = out_windows + operands.iter().map(|o| o.windows).sum::<u64>();
                    check_bindings(dev, name, total, bytes, &out)?;
                    // The layout the values would have had stored, then moved.
                    let strides = Layout::contiguous(shape).strides;
                    let stored = Layout {
                        shape: permuted.clone(),
                        strides: perm.iter().map(|&d| strides[d]).collect(),
                        offset: 0,
                    };
                    let vector = Source::program_reads_vectors(in_dtype, &stored, run, &target);
                    let (kernel, meta) =
                        cached_kernel(dev, cache, &operands, &permuted, &[out_windows], || {
                            with_inputs(p, &operands, &permuted, |descs| {
                                Source::program(p, descs, &permuted, &stored, run, &target)
                            })
                            .map(|source| generate(&source))
                        })?;
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
            let bindings = bind_windows_from(
                stores.into_iter().chain([(&storage, out_windows, 0)]),
                target.window_bytes,
            );
            inner.dispatch(&kernel, &bindings, &meta, groups)?;
        }
        let shape = if columns {
            [parts as usize, rows as usize]
        } else {
            [rows as usize, parts as usize]
        };
        let partial = Array::from_storage(
            dev.clone(),
            storage,
            Layout::contiguous(&shape),
            Aval::new(shape.to_vec(), acc, false),
        );
        if parts == 1 {
            return as_out(crate::lax::reshape(&partial, &out.shape)?, &out);
        }
        cur = Some(partial);
        k = parts;
    }
}

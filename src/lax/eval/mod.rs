//! Eager evaluation: a view, or a one-node program through the kernel generator; the
//! kernels' executors, by family, in the files below.

mod cache;
mod cumulative;
mod dot;
mod gather;
mod program;
mod reduce;
mod scatter;
mod sort;
mod windows;

pub(crate) use cache::KernelCache;
#[cfg(test)]
pub(crate) use cache::{elementwise_kernel, input_maps};
pub(crate) use program::{run, run_cached};
pub(crate) use reduce::fused_reduce;
#[cfg(test)]
pub(crate) use windows::Operand;

use self::cumulative::cumulative;
use self::dot::dot;
use self::gather::{concatenate, gather_in_ranges, search_in_ranges};
use self::reduce::{arg_reduce, reduce};
use self::scatter::scatter;
use self::sort::{sort, top_k};
use self::windows::as_out;
use crate::array::Array;
use crate::codegen::{widened, Node, Program};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::{EvalKind, Primitive};
use crate::runtime::Device;
use crate::shape::{Aval, Layout};

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
        Primitive::CustomLin { call } => Err(Error::arg(
            &call.name,
            "the linearized custom_vjp function (custom_lin) can only be transposed by \
             reverse mode, not evaluated",
        )),
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

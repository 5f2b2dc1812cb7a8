//! Eager evaluation: the [`Evaluate`] trait each primitive implements in its family's file
//! under `prims/` (a view, a one-node program through the kernel generator, or an
//! executor), and the kernels' executors, by family, in the files below.

mod cache;
pub(crate) mod cumulative;
pub(crate) mod dot;
pub(crate) mod gather;
mod program;
pub(crate) mod reduce;
pub(crate) mod scatter;
pub(crate) mod sort;
mod windows;

#[cfg(test)]
pub(crate) use cache::elementwise_kernel;
pub(crate) use cache::KernelCache;
pub(crate) use dot::dot_with;
pub(crate) use program::{run, run_cached};
pub(crate) use reduce::{fused_reduce_with, reduce_with, EpilogueCall};
#[cfg(test)]
pub(crate) use windows::Operand;

use self::windows::as_out;
use crate::array::Array;
use crate::codegen::{widened, Node, Program};
use crate::error::{Error, Result};
use crate::primitive::{with_params, Primitive};
use crate::runtime::Device;
use crate::shape::Aval;

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

/// The eager evaluation of one primitive, implemented by its view (`primitive::params`)
/// in its family's file under `prims/`: a view, a one-node program of the elementwise
/// generator ([`elementwise_node`]), or the family's executor in the files below.
pub(crate) trait Evaluate {
    /// The outputs on concrete operands living on `dev`, of the types `outs` the shape rule
    /// gave.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>>;
}

/// Evaluates a primitive of any number of outputs on concrete operands, by its
/// [`Evaluate`] rule.
pub(crate) fn eval_all(
    prim: Primitive,
    inputs: &[&Array],
    outs: Vec<Aval>,
    device: Option<&Device>,
) -> Result<Vec<Array>> {
    let dev = common_device(prim.error_name(), inputs, device)?;
    with_params!(&prim, p => p.evaluate(&dev, inputs, outs))
}

/// The output type of a single-output primitive.
pub(crate) fn single(name: &str, mut outs: Vec<Aval>) -> Result<Aval> {
    match outs.len() {
        1 => Ok(outs.remove(0)),
        n => Err(Error::arg(name, format!("has {n} outputs, not one"))),
    }
}

/// `prim` evaluated as a one-node program of the elementwise generator.
pub(crate) fn elementwise_node(
    dev: &Device,
    prim: Primitive,
    inputs: &[&Array],
    out: Aval,
) -> Result<Array> {
    let program = Program::new(
        inputs.iter().map(|a| a.dtype()).collect(),
        vec![Node {
            args: (0..inputs.len()).collect(),
            dtype: out.dtype,
            prim,
        }],
    );
    run(dev, &program, inputs, out)
}

/// `f` on the operands and output type, widened first where XLA computes in a wider type
/// ([`widening`]): the executors of reductions, dots, sorts and scans take 32-bit values.
pub(crate) fn widened_if_narrow(
    inputs: &[&Array],
    out: Aval,
    f: impl FnOnce(&[&Array], Aval) -> Result<Array>,
) -> Result<Array> {
    if needs_widening(inputs, &out) {
        widening(inputs, &out, f)
    } else {
        f(inputs, out)
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

//! From a traced [`Graph`] to an executable: dead code removed, maximal elementwise chains
//! fused into single generated kernels, the rest run as primitives.
//!
//! A value computed by an elementwise primitive (unary, binary, compare, select, convert,
//! constants, iota, threefry, bitcast, fma) gets a buffer only when something other than
//! another elementwise primitive needs it: a graph output, a view (broadcast, reshape,
//! transpose, slice), a reduction, a matmul, a sort, a gather. Each such value becomes one
//! kernel whose program is its elementwise ancestry, read from the nearest values that have
//! buffers, so fused intermediates never touch memory. Views stay views: a broadcast of a
//! graph input is read in place by the kernel that consumes it.

use std::collections::HashMap;

use super::ir::{Eqn, Graph};
use crate::array::{Array, Aval};
use crate::codegen::{Node, Program};
use crate::error::Result;
use crate::lax::Primitive;
use crate::runtime::Device;

/// One step of an executable.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// One generated kernel computing `out` from the buffers of `inputs`.
    Fused {
        program: Program,
        inputs: Vec<usize>,
        out: usize,
    },
    /// A primitive run as in eager mode (views, reductions, matmul, sort, ...).
    Op {
        prim: Primitive,
        inputs: Vec<usize>,
        out: usize,
    },
}

/// A compiled graph.
#[derive(Clone, Debug)]
pub(crate) struct Executable {
    pub(crate) steps: Vec<Step>,
    avals: Vec<Aval>,
    invars: Vec<usize>,
    constvars: Vec<usize>,
    outvars: Vec<usize>,
    /// Variables whose buffers can be dropped after each step.
    frees: Vec<Vec<usize>>,
}

/// Whether a primitive fuses into an elementwise kernel (it reads its operands at the
/// output index and has the output's shape).
fn fusible(p: &Primitive) -> bool {
    matches!(
        p,
        Primitive::Unary(_)
            | Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::Select
            | Primitive::ConvertElementType { .. }
            | Primitive::Full { .. }
            | Primitive::Iota { .. }
            | Primitive::Threefry { .. }
            | Primitive::BitcastConvertType { .. }
            | Primitive::Fma
    )
}

/// Broadcasts and reshapes of a constant become the constant at the new shape (so scalar
/// constants fuse into the kernels that use them instead of getting a buffer).
fn fold_constants(eqns: &[Eqn]) -> Vec<Eqn> {
    let mut full: HashMap<usize, crate::lax::Literal> = HashMap::new();
    eqns.iter()
        .map(|e| {
            let e = match (&e.prim, e.inputs.first().and_then(|i| full.get(i))) {
                (
                    Primitive::BroadcastInDim { shape, .. }
                    | Primitive::Reshape { new_sizes: shape },
                    Some(&value),
                ) => Eqn {
                    prim: Primitive::Full {
                        shape: shape.clone(),
                        value,
                    },
                    inputs: vec![],
                    out: e.out,
                },
                _ => e.clone(),
            };
            if let Primitive::Full { value, .. } = &e.prim {
                full.insert(e.out, *value);
            }
            e
        })
        .collect()
}

/// Compiles a verified graph.
pub(crate) fn compile(g: &Graph) -> Executable {
    let eqns = fold_constants(&g.eqns);
    let n = g.avals.len();
    let mut producer: Vec<Option<usize>> = vec![None; n];
    for (i, e) in eqns.iter().enumerate() {
        producer[e.out] = Some(i);
    }
    // Dead code: only equations the outputs depend on.
    let mut live = vec![false; n];
    let mut stack: Vec<usize> = g.outvars.clone();
    while let Some(v) = stack.pop() {
        if std::mem::replace(&mut live[v], true) {
            continue;
        }
        if let Some(p) = producer[v] {
            stack.extend(&eqns[p].inputs);
        }
    }
    // Which elementwise values need a buffer.
    let is_fused_value = |v: usize| producer[v].is_some_and(|p| fusible(&eqns[p].prim));
    let mut materialized = vec![false; n];
    for &o in &g.outvars {
        materialized[o] = true;
    }
    for e in eqns.iter().filter(|e| live[e.out]) {
        if !fusible(&e.prim) {
            for &i in &e.inputs {
                materialized[i] = true;
            }
        }
    }
    let mut steps = Vec::new();
    for e in eqns.iter().filter(|e| live[e.out]) {
        if !fusible(&e.prim) {
            steps.push(Step::Op {
                prim: e.prim.clone(),
                inputs: e.inputs.clone(),
                out: e.out,
            });
        } else if materialized[e.out] {
            let is_leaf = |v: usize| v != e.out && (materialized[v] || !is_fused_value(v));
            // Post-order over the fused ancestry; leaves are read from buffers.
            let mut leaves: Vec<usize> = Vec::new();
            let mut inner: Vec<usize> = Vec::new();
            let mut seen: HashMap<usize, ()> = HashMap::new();
            let mut work: Vec<(usize, bool)> = vec![(e.out, false)];
            while let Some((v, expanded)) = work.pop() {
                if expanded {
                    inner.push(v);
                    continue;
                }
                if seen.insert(v, ()).is_some() {
                    continue;
                }
                if is_leaf(v) {
                    leaves.push(v);
                    continue;
                }
                work.push((v, true));
                let p = &eqns[producer[v].expect("a fused value has a producer")];
                for &i in p.inputs.iter().rev() {
                    work.push((i, false));
                }
            }
            let mut index: HashMap<usize, usize> = HashMap::new();
            for (k, &v) in leaves.iter().chain(&inner).enumerate() {
                index.insert(v, k);
            }
            let nodes = inner
                .iter()
                .map(|&v| {
                    let p = &eqns[producer[v].expect("a fused value has a producer")];
                    Node {
                        prim: p.prim.clone(),
                        args: p.inputs.iter().map(|i| index[i]).collect(),
                        dtype: g.avals[v].dtype,
                    }
                })
                .collect();
            steps.push(Step::Fused {
                program: Program {
                    inputs: leaves.iter().map(|&v| g.avals[v].dtype).collect(),
                    nodes,
                },
                inputs: leaves,
                out: e.out,
            });
        }
    }
    // Free each value's buffer after its last use (outputs are kept).
    let mut last: Vec<Option<usize>> = vec![None; n];
    for (k, s) in steps.iter().enumerate() {
        let ins = match s {
            Step::Fused { inputs, .. } | Step::Op { inputs, .. } => inputs,
        };
        for &i in ins {
            last[i] = Some(k);
        }
    }
    for &o in &g.outvars {
        last[o] = None;
    }
    let mut frees = vec![Vec::new(); steps.len()];
    for (v, l) in last.iter().enumerate() {
        if let Some(k) = l {
            frees[*k].push(v);
        }
    }
    Executable {
        steps,
        avals: g.avals.clone(),
        invars: g.invars.clone(),
        constvars: g.constvars.clone(),
        outvars: g.outvars.clone(),
        frees,
    }
}

/// An internal error: a step read a value no earlier step computed.
fn missing(v: usize) -> crate::Error {
    crate::Error::Tracing {
        func: "jit (executable)".into(),
        traced: "the compiled function".into(),
        reason: format!(
            "value {} was used before it was computed",
            super::ir::var_name(v)
        ),
    }
}

impl Executable {
    /// Number of kernels a call launches for fused chains.
    pub(crate) fn fused_kernels(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s, Step::Fused { .. }))
            .count()
    }

    /// Runs the steps on `device` with the graph's inputs and constants.
    pub(crate) fn run(
        &self,
        device: &Device,
        inputs: &[Array],
        consts: &[Array],
    ) -> Result<Vec<Array>> {
        let mut vals: Vec<Option<Array>> = vec![None; self.avals.len()];
        for (&v, a) in self.invars.iter().zip(inputs) {
            vals[v] = Some(a.clone());
        }
        for (&v, a) in self.constvars.iter().zip(consts) {
            vals[v] = Some(a.clone());
        }
        for (step, frees) in self.steps.iter().zip(&self.frees) {
            let (ins, out) = match step {
                Step::Fused { inputs, out, .. } | Step::Op { inputs, out, .. } => (inputs, *out),
            };
            let args: Vec<&Array> = ins
                .iter()
                .map(|&i| vals[i].as_ref().ok_or_else(|| missing(i)))
                .collect::<Result<_>>()?;
            let aval = self.avals[out].clone();
            let result = match step {
                Step::Fused { program, .. } => {
                    crate::lax::run_program(device, program, &args, aval)?
                }
                Step::Op { prim, .. } => {
                    crate::lax::eval_primitive(prim.clone(), &args, aval, Some(device))?
                }
            };
            vals[out] = Some(result);
            for &f in frees {
                vals[f] = None;
            }
        }
        self.outvars
            .iter()
            .map(|&o| vals[o].clone().ok_or_else(|| missing(o)))
            .collect()
    }
}

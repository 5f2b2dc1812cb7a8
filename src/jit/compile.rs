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
//!
//! A chain whose only use is a reduction fuses into it: the reduction's first pass computes
//! the chain's values where it reads them, so `sum(exp(a * b) + c)` is one kernel per pass
//! and the chain gets no buffer. It reads the values in the order the unfused reduction
//! would, so the result has the same bits.
//!
//! A chain that reads a reduction's (or matrix-vector product's) results at their own
//! index, through reshapes at most, and nothing that waits for the reduction, is its
//! epilogue ([`EpilogueStep`]): the reduction's last pass computes it after each result,
//! in the same kernel, so a small optimisation step (a product, a residual, the
//! transposed product, an update) is two launches instead of four. On a CPU adapter a
//! launch costs more than such a program's work (lavapipe hands each one to its threads
//! and back).
//!
//! Each fused step keeps the kernels (pipeline and metadata) its calls generated, keyed by
//! the operands' layouts, so a later call over the same layouts generates no WGSL.

use std::collections::HashMap;

use crate::array::Array;
use crate::codegen::rules::{elementwise, Elementwise};
use crate::codegen::{Node, Program};
use crate::error::Result;
use crate::lax::KernelCache;
use crate::primitive::{var_name, Eqn, Graph, Primitive, ReduceOp};
use crate::runtime::Device;
use crate::shape::Aval;

/// One step of an executable.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// One generated kernel computing `outs` (of one shape) from the buffers of `inputs`.
    Fused {
        program: Program,
        inputs: Vec<usize>,
        outs: Vec<usize>,
        /// The generated kernels of earlier calls, by operand layouts.
        kernels: KernelCache,
    },
    /// Reductions whose first pass computes the values of `program` (over the buffers of
    /// `inputs`, each of `shape`) where it reads them: fused chains with their trailing
    /// reductions, one kernel per pass and no buffer for the chains. Sibling reductions
    /// (one op and axes, sharing operands) are one kernel: `outs`, one per output of
    /// `program`.
    FusedReduce {
        program: Program,
        inputs: Vec<usize>,
        shape: Vec<usize>,
        op: ReduceOp,
        axes: Vec<usize>,
        outs: Vec<usize>,
        /// The first pass's kernels of earlier calls, by operand layouts.
        kernels: KernelCache,
        /// Fused consumers of the results.
        epilogue: Option<Box<EpilogueStep>>,
    },
    /// A primitive run as in eager mode (views, reductions, matmul, sort, ...), with its
    /// outputs. A matrix-vector product may have an epilogue (it runs as a reduction).
    Op {
        prim: Primitive,
        inputs: Vec<usize>,
        outs: Vec<usize>,
        epilogue: Option<Box<EpilogueStep>>,
    },
}

/// A fused elementwise step whose operands include results of the reduction (or
/// matrix-vector product) before it: the reduction's one pass computes it after its
/// results, in the same kernel (`lax::EpilogueCall`), where a CPU adapter's launch costs
/// more than a small program's work. The results are read at the epilogue's own index
/// (they reach it through reshapes only, which keep the order of elements).
#[derive(Clone, Debug)]
pub(crate) struct EpilogueStep {
    program: Program,
    /// Per program input: a value with a buffer, or a result of the step.
    inputs: Vec<EpilogueInput>,
    outs: Vec<usize>,
    /// The kernels of calls where it runs after the reduction, by operand layouts.
    kernels: KernelCache,
}

/// An input of an [`EpilogueStep`].
#[derive(Clone, Copy, Debug)]
enum EpilogueInput {
    /// A value with a buffer, read at the epilogue's index.
    Value(usize),
    /// Result `j` of the step the epilogue belongs to.
    Result(usize),
}

impl EpilogueInput {
    fn value(self) -> Option<usize> {
        match self {
            EpilogueInput::Value(v) => Some(v),
            EpilogueInput::Result(_) => None,
        }
    }

    fn result(self) -> Option<usize> {
        match self {
            EpilogueInput::Value(_) => None,
            EpilogueInput::Result(j) => Some(j),
        }
    }
}

impl Step {
    /// The values the step reads, its epilogue's included.
    fn reads(&self) -> Vec<usize> {
        let (inputs, epilogue) = match self {
            Step::Fused { inputs, .. } => (inputs, None),
            Step::FusedReduce {
                inputs, epilogue, ..
            }
            | Step::Op {
                inputs, epilogue, ..
            } => (inputs, epilogue.as_ref()),
        };
        let mut r = inputs.clone();
        if let Some(e) = epilogue {
            r.extend(e.inputs.iter().filter_map(|i| i.value()));
        }
        r
    }
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
        elementwise(p),
        Some(Elementwise::Pointwise | Elementwise::Positional)
    )
}

/// Whether primitive step `e` can compute an epilogue: a reduction of 32-bit values
/// (`lax::reduce_with`), or a matrix-vector product, which runs as one (`lax::dot_with`):
/// one row or column of float32 or 32-bit integers.
fn hosts(e: &Eqn, avals: &[Aval]) -> bool {
    match e.prim {
        Primitive::Reduce { .. } => word(avals[e.inputs[0]].dtype),
        Primitive::BatchMatmul => {
            let (a, b) = (&avals[e.inputs[0]], &avals[e.inputs[1]]);
            a.dtype != crate::dtype::DType::Bool
                && word(a.dtype)
                && (a.shape[1] == 1 || b.shape[2] == 1)
        }
        _ => false,
    }
}

/// Whether a reduction of `d` accumulates in `d` itself (32-bit words), so its results are
/// its accumulators.
fn word(d: crate::dtype::DType) -> bool {
    use crate::dtype::DType;
    matches!(
        d,
        DType::Float32 | DType::Int32 | DType::UInt32 | DType::Bool
    )
}

/// The largest pad (its output's bytes) read by the kernel that uses it.
const FUSED_PAD_BYTES: u64 = 64 << 20;

/// Broadcasts and reshapes of a constant become the constant at the new shape, and
/// broadcasts of an iota an iota at the new shape (so they fuse into the kernels that use
/// them instead of getting a buffer).
fn fold_constants(eqns: &[Eqn]) -> Vec<Eqn> {
    let mut made: HashMap<usize, Primitive> = HashMap::new();
    eqns.iter()
        .map(|e| {
            let folded = match (&e.prim, e.inputs.first().and_then(|i| made.get(i))) {
                (
                    Primitive::BroadcastInDim { shape, .. }
                    | Primitive::Reshape { new_sizes: shape },
                    Some(Primitive::Full { value, .. }),
                ) => Some(Primitive::Full {
                    shape: shape.clone(),
                    value: *value,
                }),
                (
                    Primitive::BroadcastInDim {
                        shape,
                        broadcast_dimensions,
                    },
                    Some(Primitive::Iota {
                        dtype,
                        shape: old,
                        dimension,
                    }),
                ) if old[*dimension] == shape[broadcast_dimensions[*dimension]] => {
                    Some(Primitive::Iota {
                        dtype: *dtype,
                        shape: shape.clone(),
                        dimension: broadcast_dimensions[*dimension],
                    })
                }
                _ => None,
            };
            let e = match folded {
                Some(prim) => Eqn {
                    prim,
                    inputs: vec![],
                    outs: e.outs.clone(),
                },
                None => e.clone(),
            };
            if matches!(e.prim, Primitive::Full { .. } | Primitive::Iota { .. }) {
                made.insert(e.out(), e.prim.clone());
            }
            e
        })
        .collect()
}

/// `g` with the sub-graphs of custom calls spliced in place of the calls: outside `grad`
/// and `jvp` a custom call is its function, whose operations then fuse with their
/// neighbours (JAX inlines them when lowering too). A custom call a rule applied to
/// tangents is inlined into the linear graph the same way, for transposition.
pub(super) fn inline_calls(g: &Graph) -> Graph {
    let is_call = |p: &Primitive| {
        matches!(
            p,
            Primitive::CustomJvpCall { .. } | Primitive::CustomVjpCall { .. }
        )
    };
    if !g.eqns.iter().any(|e| is_call(&e.prim)) {
        return g.clone();
    }
    let mut out = Graph {
        avals: g.avals.clone(),
        invars: g.invars.clone(),
        constvars: g.constvars.clone(),
        eqns: Vec::with_capacity(g.eqns.len()),
        outvars: Vec::new(),
    };
    // What each of `g`'s variables now is (a call's outputs become its function's).
    let mut subst: Vec<usize> = (0..g.avals.len()).collect();
    for e in &g.eqns {
        let inputs: Vec<usize> = e.inputs.iter().map(|&i| subst[i]).collect();
        match &e.prim {
            Primitive::CustomJvpCall { call } | Primitive::CustomVjpCall { call } => {
                let fun = inline_calls(&call.fun);
                let mut var: HashMap<usize, usize> =
                    fun.invars.iter().copied().zip(inputs).collect();
                for ie in &fun.eqns {
                    let ins = ie.inputs.iter().map(|i| var[i]).collect();
                    let outs: Vec<usize> = ie
                        .outs
                        .iter()
                        .map(|&o| {
                            let v = out.new_var(fun.avals[o].clone());
                            var.insert(o, v);
                            v
                        })
                        .collect();
                    out.eqns.push(Eqn {
                        prim: ie.prim.clone(),
                        inputs: ins,
                        outs,
                    });
                }
                for (&o, f) in e.outs.iter().zip(&fun.outvars) {
                    subst[o] = var[f];
                }
            }
            _ => out.eqns.push(Eqn {
                prim: e.prim.clone(),
                inputs,
                outs: e.outs.clone(),
            }),
        }
    }
    out.outvars = g.outvars.iter().map(|&o| subst[o]).collect();
    out
}

/// Whether a reshape from `from` to `to` only adds or removes dimensions of length 1.
fn unit_reshape(from: &[usize], to: &[usize]) -> bool {
    from.iter()
        .filter(|&&d| d != 1)
        .eq(to.iter().filter(|&&d| d != 1))
}

/// The most pointwise operations a broadcast of one value is moved above
/// ([`sink_views`]): each is computed once per element of the broadcast instead of once.
const SINK_BROADCAST_OPS: usize = 16;

/// The most elements a broadcast of more than one value may have to be moved above its
/// pointwise operations ([`sink_views`]). A scalar's operations are the same for every
/// element, so a kernel computes them once per thread; others are computed per element
/// from loads that divide the index, which over a large broadcast (a per-example divisor
/// spread over a batch of weight gradients) costs far more than storing the value once.
/// Below this the launch saved costs more.
const SINK_BROADCAST_ELEMENTS: usize = 1 << 14;

/// `eqns` with identity transposes and reshapes removed, and two kinds of views moved above
/// the pointwise values they view, onto those values' operands (new variables of `g`,
/// whose outputs are renamed to match), since a view of a fused value needs a buffer:
///
/// - reshapes that only add or remove dimensions of length 1, which keep every element's
///   row-major position (`vmap`'s unit batch dimensions, `[b, 1, m, n]` reshaped to
///   `[b, m, n]` between a product and its reduction, would otherwise store values that
///   fuse);
/// - broadcasts whose uses are all fused, where the value takes at most
///   [`SINK_BROADCAST_OPS`] pointwise operations: of a scalar (computed from constants,
///   as `grad`'s seeds and an optimiser's step sizes are), or to at most
///   [`SINK_BROADCAST_ELEMENTS`] elements (per-sample values `vmap` broadcasts across a
///   small batch): each would otherwise be a kernel of its own.
///
/// The pointwise operations compute the same values at the new shape; the view stays (a
/// reshape or a broadcast of a buffer) where it meets a value that is not pointwise.
fn sink_views(g: &mut Graph, eqns: Vec<Eqn>) -> Vec<Eqn> {
    let pointwise = |p: &Primitive| elementwise(p) == Some(Elementwise::Pointwise);
    // Values whose every use fuses (none is an output).
    let mut fused_uses = vec![true; g.avals.len()];
    for &o in &g.outvars {
        fused_uses[o] = false;
    }
    for e in &eqns {
        if !fusible(&e.prim) {
            for &i in &e.inputs {
                fused_uses[i] = false;
            }
        }
    }
    // Values that get a buffer anyway (outputs, operands of what does not fuse, other
    // than the views moved here): a view reads them rather than computing them again.
    let mut stored = vec![false; g.avals.len()];
    for &o in &g.outvars {
        stored[o] = true;
    }
    for e in &eqns {
        let from = e.inputs.first().map(|&i| g.avals[i].shape.as_slice());
        let moved = match (&e.prim, from) {
            (Primitive::Reshape { new_sizes }, Some(from)) => unit_reshape(from, new_sizes),
            (Primitive::BroadcastInDim { shape, .. }, Some(from)) => {
                fused_uses[e.out()]
                    && (crate::shape::size_of(from) == 1
                        || crate::shape::size_of(shape) <= SINK_BROADCAST_ELEMENTS)
            }
            (Primitive::Transpose { permutation }, _) => {
                permutation.iter().enumerate().all(|(i, &p)| i == p)
            }
            _ => false,
        };
        if !fusible(&e.prim) && !moved {
            for &i in &e.inputs {
                stored[i] = true;
            }
        }
    }
    let original = g.avals.len();
    let mut out: Vec<Eqn> = Vec::with_capacity(eqns.len());
    let mut subst: Vec<usize> = (0..g.avals.len()).collect();
    let mut producer: HashMap<usize, usize> = HashMap::new();
    // Values already made through a view: by value, shape and broadcast dimensions.
    type Made = HashMap<(usize, Vec<usize>, Option<Vec<usize>>), usize>;
    let mut made: Made = HashMap::new();
    for e in eqns {
        let inputs: Vec<usize> = e.inputs.iter().map(|&i| subst[i]).collect();
        let from = inputs.first().map(|&i| g.avals[i].shape.clone());
        let of_pointwise = inputs.first().is_some_and(|i| {
            producer
                .get(i)
                .is_some_and(|&p| pointwise(&out[p].prim) && out[p].outs.len() == 1)
        });
        // The pointwise ancestry of `v` at its own shape: how many operations, up to
        // `limit + 1`.
        let ops = |v: usize, limit: usize| {
            let mut seen = std::collections::HashSet::new();
            let mut work = vec![v];
            while let Some(x) = work.pop() {
                let Some(p) = producer.get(&x).map(|&p| &out[p]) else {
                    continue;
                };
                let shaped = p
                    .inputs
                    .iter()
                    .all(|&i| g.avals[i].shape == g.avals[x].shape);
                let kept = x < original && stored[x];
                if pointwise(&p.prim) && shaped && !kept && seen.insert(x) {
                    if seen.len() > limit {
                        break;
                    }
                    work.extend(&p.inputs);
                }
            }
            seen.len()
        };
        let shape = match (&e.prim, &from) {
            (Primitive::Transpose { permutation }, _)
                if permutation.iter().enumerate().all(|(i, &p)| i == p) =>
            {
                subst[e.out()] = inputs[0];
                continue;
            }
            (Primitive::Reshape { new_sizes }, Some(from)) if new_sizes == from => {
                subst[e.out()] = inputs[0];
                continue;
            }
            (Primitive::Reshape { new_sizes }, Some(from))
                if of_pointwise && unit_reshape(from, new_sizes) =>
            {
                Some((new_sizes.clone(), None))
            }
            (
                Primitive::BroadcastInDim {
                    shape,
                    broadcast_dimensions,
                },
                Some(from),
            ) if of_pointwise
                && fused_uses[e.out()]
                && shape != from
                && (crate::shape::size_of(from) == 1
                    || crate::shape::size_of(shape) <= SINK_BROADCAST_ELEMENTS)
                && ops(inputs[0], SINK_BROADCAST_OPS) <= SINK_BROADCAST_OPS =>
            {
                Some((shape.clone(), Some(broadcast_dimensions.clone())))
            }
            _ => None,
        };
        let Some((shape, dims)) = shape else {
            for &o in &e.outs {
                producer.insert(o, out.len());
            }
            out.push(Eqn {
                prim: e.prim,
                inputs,
                outs: e.outs,
            });
            continue;
        };
        // Post-order over the pointwise ancestry: each value at the new shape after its
        // operands at the new shape; values that are not pointwise get the view itself
        // (they have the viewed value's shape, as every operand in the ancestry does).
        let mut work = vec![(inputs[0], false)];
        while let Some((v, expanded)) = work.pop() {
            let key = (v, shape.clone(), dims.clone());
            if g.avals[v].shape == shape || made.contains_key(&key) {
                continue;
            }
            let eqn = producer.get(&v).map(|&p| &out[p]).filter(|p| {
                pointwise(&p.prim)
                    && p.outs.len() == 1
                    && p.inputs
                        .iter()
                        .all(|&i| g.avals[i].shape == g.avals[v].shape)
                    && !(v < original && stored[v])
            });
            // An iota along a dimension the reshape keeps is an iota along it at the new
            // shape (the kernel computes it from the position).
            let iota = match (&e.prim, producer.get(&v).map(|&p| &out[p].prim)) {
                (
                    Primitive::Reshape { .. },
                    Some(Primitive::Iota {
                        dtype,
                        shape: old,
                        dimension,
                    }),
                ) if old[*dimension] != 1 => {
                    let nth = old[..*dimension].iter().filter(|&&d| d != 1).count();
                    let at = (0..shape.len()).filter(|&d| shape[d] != 1).nth(nth);
                    at.map(|dimension| Primitive::Iota {
                        dtype: *dtype,
                        shape: shape.clone(),
                        dimension,
                    })
                }
                _ => None,
            };
            let (prim, operands) = match (eqn, iota) {
                (_, Some(iota)) => (iota, vec![]),
                (Some(p), None) if !expanded => {
                    work.push((v, true));
                    work.extend(p.inputs.iter().map(|&i| (i, false)));
                    continue;
                }
                (Some(p), None) => {
                    let prim = match &p.prim {
                        Primitive::Full { value, .. } => Primitive::Full {
                            shape: shape.clone(),
                            value: *value,
                        },
                        prim => prim.clone(),
                    };
                    let at = |i: usize| {
                        if g.avals[i].shape == shape {
                            i
                        } else {
                            made[&(i, shape.clone(), dims.clone())]
                        }
                    };
                    (prim, p.inputs.iter().map(|&i| at(i)).collect())
                }
                (None, None) => (e.prim.clone(), vec![v]),
            };
            let a = &g.avals[v];
            let nv = g.new_var(Aval::new(shape.clone(), a.dtype, a.weak));
            producer.insert(nv, out.len());
            out.push(Eqn {
                prim,
                inputs: operands,
                outs: vec![nv],
            });
            made.insert(key, nv);
        }
        subst[e.out()] = made[&(inputs[0], shape, dims)];
    }
    g.outvars = g.outvars.iter().map(|&o| subst[o]).collect();
    out
}

/// Compiles a verified graph for a device whose kernels may read at most `max_inputs`
/// input buffers.
pub(crate) fn compile(g: &Graph, max_inputs: usize) -> Executable {
    let mut g = inline_calls(g);
    let folded = fold_constants(&g.eqns);
    let eqns = sink_views(&mut g, folded);
    let g = &g;
    let n = g.avals.len();
    let mut producer: Vec<Option<usize>> = vec![None; n];
    for (i, e) in eqns.iter().enumerate() {
        for &o in &e.outs {
            producer[o] = Some(i);
        }
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
    let is_live = |e: &Eqn| e.outs.iter().any(|&o| live[o]);
    let mut uses = vec![0usize; n];
    for e in eqns.iter().filter(|e| is_live(e)) {
        for &i in &e.inputs {
            uses[i] += 1;
        }
    }
    // A pad is read through its input map (a clamped load and a select) by the kernel
    // that uses it, instead of being stored by a kernel of its own (the transposes of
    // slices in gradients that unpack arrays), where it is its operand's only use and
    // changes the shape. Its operand keeps a buffer: an indexed read is of a kernel's
    // input, never of a value computed in it (and with another shape, no step computes
    // the operand in the reader's kernel). Pads past `FUSED_PAD_BYTES` stay kernels of
    // their own, which split into boxes past one binding.
    let pad_fuses = |e: &Eqn| {
        if !matches!(e.prim, Primitive::Pad { .. }) {
            return false;
        }
        let (x, out) = (&g.avals[e.inputs[0]], &g.avals[e.out()]);
        // (An empty operand has no element to clamp to: its pad is all fill.)
        uses[e.inputs[0]] == 1
            && x.size() > 0
            && x.shape != out.shape
            && (out.size() as u64).saturating_mul(out.dtype.storage_bytes() as u64)
                <= FUSED_PAD_BYTES
    };
    let fuses: Vec<bool> = eqns
        .iter()
        .map(|e| fusible(&e.prim) || pad_fuses(e))
        .collect();
    // Which elementwise values need a buffer.
    let is_fused_value = |v: usize| producer[v].is_some_and(|p| fuses[p]);
    let mut materialized = vec![false; n];
    for &o in &g.outvars {
        materialized[o] = true;
    }
    for (k, e) in eqns.iter().enumerate() {
        if fuses[k] && !fusible(&e.prim) && is_live(e) {
            materialized[e.inputs[0]] = true;
        }
    }
    // A fused value whose only use is a reduction is computed by the reduction's first
    // pass (`absorbed`): no buffer, no kernel of its own. So is a small one (at most
    // `SINK_BROADCAST_ELEMENTS`) whose other uses are reductions or fuse (which compute
    // fused values where they read them anyway): each computes it again, or, as siblings
    // joined below, once in their shared kernel.
    let mut stores = vec![false; n];
    for (k, e) in eqns.iter().enumerate().filter(|(_, e)| is_live(e)) {
        if !fuses[k] && !matches!(e.prim, Primitive::Reduce { .. }) {
            for &i in &e.inputs {
                stores[i] = true;
            }
        }
    }
    let absorbs = |e: &Eqn| {
        if !matches!(e.prim, Primitive::Reduce { .. }) {
            return false;
        }
        let v = e.inputs[0];
        let small = !stores[v] && g.avals[v].size() <= SINK_BROADCAST_ELEMENTS;
        is_fused_value(v) && (uses[v] == 1 || small) && !g.outvars.contains(&v)
    };
    let mut absorbed = vec![false; n];
    for (k, e) in eqns.iter().enumerate().filter(|(_, e)| is_live(e)) {
        if absorbs(e) {
            absorbed[e.inputs[0]] = true;
        } else if !fuses[k] {
            for &i in &e.inputs {
                materialized[i] = true;
            }
        }
    }
    // A kernel binds each input buffer: a fused program reading more buffers than the
    // device allows is cut by materialising the fused operands of its root, until every
    // program fits (each pass materialises at least one more value, so this ends).
    loop {
        let mut cut = false;
        for (k, e) in eqns.iter().enumerate().filter(|(_, e)| is_live(e)) {
            if !fuses[k] || !(materialized[e.out()] || absorbed[e.out()]) {
                continue;
            }
            let mut leaves: Vec<usize> = Vec::new();
            let mut seen = vec![false; n];
            let mut work = e.inputs.clone();
            while let Some(v) = work.pop() {
                if std::mem::replace(&mut seen[v], true) {
                    continue;
                }
                match producer[v] {
                    Some(p) if is_fused_value(v) && !materialized[v] => {
                        work.extend(&eqns[p].inputs)
                    }
                    _ => leaves.push(v),
                }
            }
            if leaves.len() > max_inputs {
                for &i in &e.inputs {
                    if is_fused_value(i) && !materialized[i] {
                        materialized[i] = true;
                        cut = true;
                    }
                }
            }
        }
        if !cut {
            break;
        }
    }
    // The fused ancestry of `roots` down to the nearest values with buffers: its inner
    // values in post-order (each after its operands; the roots among them) and its leaves
    // (a program's inputs). Roots are computed even when they have buffers of their own.
    let ancestry = |roots: &[usize]| -> (Vec<usize>, Vec<usize>) {
        let is_leaf = |v: usize| !roots.contains(&v) && (materialized[v] || !is_fused_value(v));
        let mut leaves: Vec<usize> = Vec::new();
        let mut inner: Vec<usize> = Vec::new();
        let mut seen = vec![false; n];
        let mut work: Vec<(usize, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
        while let Some((v, expanded)) = work.pop() {
            if expanded {
                inner.push(v);
                continue;
            }
            if std::mem::replace(&mut seen[v], true) {
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
        (inner, leaves)
    };
    // The program computing `roots` (its outputs, in order) from their leaves.
    let program_for = |roots: &[usize]| -> (Program, Vec<usize>) {
        let (inner, leaves) = ancestry(roots);
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
        let mut program = Program::new(leaves.iter().map(|&v| g.avals[v].dtype).collect(), nodes);
        program.outputs = roots.iter().map(|r| index[r]).collect();
        (program, leaves)
    };
    // Steps. A value that needs a buffer joins an earlier fused step of its shape when the
    // two share fused ancestry or operands and nothing the value reads depends on that
    // step: one kernel then stores both, computing the shared part and reading each
    // operand once (a multi-output kernel). Steps are ordered by their dependencies at the
    // end, since a joined step may now have to wait for operands made after it. Fused
    // reductions join the same way: one op over the same axes of values of one shape and
    // dtype.
    enum Pending {
        Reduce(Vec<usize>),
        Op(usize),
        Fused(Vec<usize>),
    }
    let mut pending: Vec<Pending> = Vec::new();
    // The steps each step reads from (directly).
    let mut deps: Vec<Vec<usize>> = Vec::new();
    // The values a fused step or reduction computes or reads (empty for other steps).
    let mut reads: Vec<std::collections::HashSet<usize>> = Vec::new();
    let mut made_at: Vec<Option<usize>> = vec![None; n];
    // Whether step `from` depends on step `to`, directly or through other steps.
    let reaches = |deps: &[Vec<usize>], from: &[usize], to: usize| {
        let mut seen = vec![false; deps.len()];
        let mut work = from.to_vec();
        while let Some(p) = work.pop() {
            if p == to {
                return true;
            }
            if !std::mem::replace(&mut seen[p], true) {
                work.extend(&deps[p]);
            }
        }
        false
    };
    // Epilogues: a fused step computed by the reduction (or matrix-vector product) whose
    // results it reads (`after`: its host), which then must wait for the step's other
    // operands too (`host_waits`, kept apart as a joined reduction's reads are recomputed).
    let mut after: Vec<Option<usize>> = Vec::new();
    let mut epilogue_of: Vec<Option<usize>> = Vec::new();
    let mut host_waits: Vec<Vec<usize>> = Vec::new();
    // The host step and result index of value `v`: a reduction's or matrix-vector
    // product's output, or a reshape of one (the same elements in the same order).
    let result_of = |v: usize, made_at: &[Option<usize>], pending: &[Pending]| {
        let mut v = v;
        while let Some(p) = producer[v] {
            match eqns[p].prim {
                Primitive::Reshape { .. } => v = eqns[p].inputs[0],
                _ => break,
            }
        }
        let p = made_at[v]?;
        match &pending[p] {
            // (A fused reduction of narrow values converts its results: no epilogue.)
            Pending::Reduce(ks) if word(g.avals[eqns[ks[0]].inputs[0]].dtype) => {
                ks.iter().position(|&k| eqns[k].out() == v).map(|j| (p, j))
            }
            Pending::Op(k) if hosts(&eqns[*k], &g.avals) && eqns[*k].out() == v => Some((p, 0)),
            _ => None,
        }
    };
    // Whether the fused values `roots` can be host `h`'s epilogue: elementwise reads at the
    // result's index, one-word outputs of the results' size, some operand a result, and
    // no other operand waiting for the host. The steps the others are made by.
    let epilogue_plan = |h: usize,
                         roots: &[usize],
                         deps: &[Vec<usize>],
                         made_at: &[Option<usize>],
                         pending: &[Pending]|
     -> Option<Vec<usize>> {
        let size = match &pending[h] {
            Pending::Reduce(ks) => g.avals[eqns[ks[0]].out()].size(),
            Pending::Op(k) => g.avals[eqns[*k].out()].size(),
            Pending::Fused(_) => return None,
        };
        let (inner, leaves) = ancestry(roots);
        let plain = inner.iter().all(|&v| {
            let prim = &eqns[producer[v].expect("a fused value has a producer")].prim;
            fusible(prim)
        });
        let stores = roots.iter().all(|&r| {
            crate::codegen::reduce::epilogue_stores(g.avals[r].dtype) && g.avals[r].size() == size
        });
        if !plain || !stores || leaves.len() + roots.len() > max_inputs {
            return None;
        }
        let (given, others): (Vec<usize>, Vec<usize>) = leaves
            .iter()
            .partition(|&&l| result_of(l, made_at, pending).is_some_and(|(p, _)| p == h));
        let from: Vec<usize> = others.iter().filter_map(|&l| made_at[l]).collect();
        (!given.is_empty() && !reaches(deps, &from, h)).then_some(from)
    };
    // The steps that make the leaves of `roots` (a joined step's new dependencies).
    let steps_read = |roots: &[usize], made_at: &[Option<usize>]| {
        let mut d: Vec<usize> = ancestry(roots)
            .1
            .iter()
            .filter_map(|&l| made_at[l])
            .collect();
        d.sort_unstable();
        d.dedup();
        d
    };
    for (k, e) in eqns.iter().enumerate().filter(|(_, e)| is_live(e)) {
        let (step, operands) = match &e.prim {
            Primitive::Reduce { .. } if absorbed[e.inputs[0]] => {
                let (inner, leaves) = ancestry(&[e.inputs[0]]);
                let (x, out) = (&g.avals[e.inputs[0]], &g.avals[e.out()]);
                let joined = (0..pending.len()).rev().find(|&p| {
                    let Pending::Reduce(ks) = &pending[p] else {
                        return false;
                    };
                    let f = &eqns[ks[0]];
                    let (fx, fout) = (&g.avals[f.inputs[0]], &g.avals[f.out()]);
                    let siblings = f.prim == e.prim
                        && (&fx.shape, fx.dtype, fout.dtype) == (&x.shape, x.dtype, out.dtype);
                    if !siblings || !inner.iter().chain(&leaves).any(|v| reads[p].contains(v)) {
                        return false;
                    }
                    let mut roots: Vec<usize> = ks.iter().map(|&k| eqns[k].inputs[0]).collect();
                    roots.push(e.inputs[0]);
                    if ancestry(&roots).1.len() + roots.len() > max_inputs {
                        return false;
                    }
                    let from: Vec<usize> = leaves.iter().filter_map(|&l| made_at[l]).collect();
                    !reaches(&deps, &from, p)
                });
                if let Some(p) = joined {
                    let Pending::Reduce(ks) = &mut pending[p] else {
                        unreachable!("only reductions join reductions")
                    };
                    ks.push(k);
                    reads[p].extend(inner.iter().chain(&leaves));
                    let roots: Vec<usize> = ks.iter().map(|&k| eqns[k].inputs[0]).collect();
                    deps[p] = steps_read(&roots, &made_at);
                    deps[p].extend(&host_waits[p]);
                    made_at[e.out()] = Some(p);
                    continue;
                }
                (Pending::Reduce(vec![k]), leaves)
            }
            _ if !fuses[k] => (Pending::Op(k), e.inputs.clone()),
            _ if materialized[e.out()] => {
                let v = e.out();
                let (inner, leaves) = ancestry(&[v]);
                let joined = (0..pending.len()).rev().find(|&p| {
                    let Pending::Fused(roots) = &pending[p] else {
                        return false;
                    };
                    if g.avals[roots[0]].shape != g.avals[v].shape {
                        return false;
                    }
                    let shared = inner.iter().chain(&leaves).any(|x| reads[p].contains(x));
                    if !shared {
                        return false;
                    }
                    let mut all = roots.clone();
                    all.push(v);
                    if ancestry(&all).1.len() + roots.len() > max_inputs {
                        return false;
                    }
                    // Members the value reads are computed in the kernel; anything else it
                    // reads must not wait for the kernel.
                    let from: Vec<usize> = leaves
                        .iter()
                        .filter(|l| !roots.contains(l))
                        .filter_map(|&l| made_at[l])
                        .collect();
                    // (An epilogue's members are all computed by its host.)
                    !reaches(&deps, &from, p)
                        && after[p].is_none_or(|h| {
                            epilogue_plan(h, &all, &deps, &made_at, &pending).is_some()
                        })
                });
                if let Some(p) = joined {
                    let Pending::Fused(roots) = &mut pending[p] else {
                        unreachable!("only fused steps are joined")
                    };
                    roots.push(v);
                    reads[p].extend(inner.iter().chain(&leaves));
                    let roots = roots.clone();
                    deps[p] = steps_read(&roots, &made_at);
                    if let Some(h) = after[p] {
                        let waits = epilogue_plan(h, &roots, &deps, &made_at, &pending)
                            .expect("checked before joining");
                        deps[h].extend(&waits);
                        host_waits[h] = waits;
                    }
                    made_at[v] = Some(p);
                    continue;
                }
                // Else the epilogue of a host whose results it reads, if it has none.
                let host = leaves.iter().find_map(|&l| {
                    let (h, _) = result_of(l, &made_at, &pending)?;
                    if epilogue_of[h].is_some() {
                        return None;
                    }
                    let waits = epilogue_plan(h, &[v], &deps, &made_at, &pending)?;
                    Some((h, waits))
                });
                if let Some((h, waits)) = host {
                    deps[h].extend(&waits);
                    host_waits[h] = waits;
                    epilogue_of[h] = Some(pending.len());
                    after.push(Some(h));
                } else {
                    after.push(None);
                }
                (Pending::Fused(vec![v]), leaves)
            }
            _ => continue,
        };
        let mut d: Vec<usize> = operands.iter().filter_map(|&l| made_at[l]).collect();
        d.sort_unstable();
        d.dedup();
        reads.push(match &step {
            Pending::Fused(_) => ancestry(&[e.out()]).0.into_iter().chain(operands).collect(),
            Pending::Reduce(_) => ancestry(&[e.inputs[0]])
                .0
                .into_iter()
                .chain(operands)
                .collect(),
            Pending::Op(_) => Default::default(),
        });
        for &o in &e.outs {
            made_at[o] = Some(pending.len());
        }
        if !matches!(step, Pending::Fused(_)) {
            after.push(None);
        }
        epilogue_of.push(None);
        host_waits.push(Vec::new());
        pending.push(step);
        deps.push(d);
    }
    // Each step after the steps it reads, otherwise in the order they were made.
    let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); pending.len()];
    for (p, d) in deps.iter().enumerate() {
        for &q in d {
            readers[q].push(p);
        }
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..pending.len())
        .filter(|&p| waiting[p] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(pending.len());
    while let Some(std::cmp::Reverse(p)) = ready.pop() {
        order.push(p);
        for &r in &readers[p] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.push(std::cmp::Reverse(r));
            }
        }
    }
    debug_assert_eq!(
        order.len(),
        pending.len(),
        "joining fused steps made a cycle"
    );
    // Each host's epilogue, as the step it runs: its inputs are values with buffers, or
    // results of the host.
    let mut epilogues: Vec<Option<Box<EpilogueStep>>> = epilogue_of
        .iter()
        .enumerate()
        .map(|(h, f)| {
            let Pending::Fused(roots) = &pending[(*f)?] else {
                unreachable!("an epilogue is a fused step")
            };
            let (program, leaves) = program_for(roots);
            let inputs = leaves
                .iter()
                .map(|&l| match result_of(l, &made_at, &pending) {
                    Some((p, j)) if p == h => EpilogueInput::Result(j),
                    _ => EpilogueInput::Value(l),
                })
                .collect();
            Some(Box::new(EpilogueStep {
                program,
                inputs,
                outs: roots.clone(),
                kernels: KernelCache::default(),
            }))
        })
        .collect();
    let mut slots: Vec<Option<Pending>> = pending.into_iter().map(Some).collect();
    let mut steps: Vec<Step> = order
        .into_iter()
        .filter(|&p| after[p].is_none())
        .map(
            |p| match slots[p].take().expect("each step is ordered once") {
                Pending::Reduce(ks) => {
                    let e = &eqns[ks[0]];
                    let Primitive::Reduce { op, axes } = &e.prim else {
                        unreachable!("only reductions absorb their operand")
                    };
                    let roots: Vec<usize> = ks.iter().map(|&k| eqns[k].inputs[0]).collect();
                    let (program, inputs) = program_for(&roots);
                    Step::FusedReduce {
                        program,
                        inputs,
                        shape: g.avals[e.inputs[0]].shape.clone(),
                        op: *op,
                        axes: axes.clone(),
                        outs: ks.iter().map(|&k| eqns[k].out()).collect(),
                        kernels: KernelCache::default(),
                        epilogue: epilogues[p].take(),
                    }
                }
                Pending::Op(k) => Step::Op {
                    prim: eqns[k].prim.clone(),
                    inputs: eqns[k].inputs.clone(),
                    outs: eqns[k].outs.clone(),
                    epilogue: epilogues[p].take(),
                },
                Pending::Fused(roots) => {
                    let (program, inputs) = program_for(&roots);
                    Step::Fused {
                        program,
                        inputs,
                        outs: roots,
                        kernels: KernelCache::default(),
                    }
                }
            },
        )
        .collect();
    // Steps nothing reads any more (the reshapes an epilogue's results came through) are
    // dropped: primitives have no effects.
    loop {
        let mut read = vec![false; n];
        for s in &steps {
            for i in s.reads() {
                read[i] = true;
            }
        }
        for &o in &g.outvars {
            read[o] = true;
        }
        let before = steps.len();
        steps.retain(|s| match s {
            Step::Op {
                outs,
                epilogue: None,
                ..
            } => outs.iter().any(|&o| read[o]),
            _ => true,
        });
        if steps.len() == before {
            break;
        }
    }
    // Free each value's buffer after its last use (outputs are kept), and a result nothing
    // reads (an epilogue's, read in its kernel) after the step that made it.
    let mut last: Vec<Option<usize>> = vec![None; n];
    for (k, s) in steps.iter().enumerate() {
        for i in s.reads() {
            last[i] = Some(k);
        }
    }
    for (k, s) in steps.iter().enumerate() {
        let outs = match s {
            Step::Fused { outs, .. } | Step::FusedReduce { outs, .. } | Step::Op { outs, .. } => {
                outs
            }
        };
        for &o in outs {
            if last[o].is_none() {
                last[o] = Some(k);
            }
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
        reason: format!("value {} was used before it was computed", var_name(v)),
    }
}

impl Executable {
    /// Number of generated kernels for fused chains (a fused reduction counts once, as
    /// the chain's kernel, and so does a reduction or product computing an epilogue).
    pub(crate) fn fused_kernels(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| {
                matches!(
                    s,
                    Step::Fused { .. }
                        | Step::FusedReduce { .. }
                        | Step::Op {
                            epilogue: Some(_),
                            ..
                        }
                )
            })
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
            let (ins, outs) = match step {
                Step::Fused { inputs, outs, .. }
                | Step::Op { inputs, outs, .. }
                | Step::FusedReduce { inputs, outs, .. } => (inputs, outs),
            };
            let args: Vec<&Array> = ins
                .iter()
                .map(|&i| vals[i].as_ref().ok_or_else(|| missing(i)))
                .collect::<Result<_>>()?;
            let avals: Vec<Aval> = outs.iter().map(|&o| self.avals[o].clone()).collect();
            // An epilogue's operands and outputs.
            let epilogue = match step {
                Step::FusedReduce { epilogue, .. } | Step::Op { epilogue, .. } => {
                    epilogue.as_deref()
                }
                Step::Fused { .. } => None,
            };
            let ep_inputs: Vec<Option<&Array>> = match epilogue {
                Some(e) => e
                    .inputs
                    .iter()
                    .map(|i| match i.value() {
                        Some(v) => vals[v].as_ref().ok_or_else(|| missing(v)).map(Some),
                        None => Ok(None),
                    })
                    .collect::<Result<_>>()?,
                None => Vec::new(),
            };
            let ep_given: Vec<Option<usize>> = epilogue
                .map(|e| e.inputs.iter().map(|i| i.result()).collect())
                .unwrap_or_default();
            let ep_avals: Vec<Aval> = epilogue
                .map(|e| e.outs.iter().map(|&o| self.avals[o].clone()).collect())
                .unwrap_or_default();
            let call = epilogue.map(|e| crate::lax::EpilogueCall {
                program: &e.program,
                inputs: &ep_inputs,
                given: &ep_given,
                outs: &ep_avals,
                cache: Some(&e.kernels),
            });
            let (results, more) = match step {
                Step::Fused {
                    program, kernels, ..
                } => (
                    crate::lax::run_program_cached(device, program, &args, &avals, Some(kernels))?,
                    Vec::new(),
                ),
                Step::FusedReduce {
                    program,
                    shape,
                    op,
                    axes,
                    kernels,
                    ..
                } => crate::lax::fused_reduce_with(
                    device,
                    *op,
                    axes,
                    (program, &args, shape),
                    &avals,
                    Some(kernels),
                    call.as_ref(),
                )?,
                Step::Op { prim, .. } => match (&call, prim) {
                    (Some(call), Primitive::Reduce { op, axes }) => {
                        let out = avals[0].clone();
                        let (r, more) =
                            crate::lax::reduce_with(device, *op, args[0], axes, out, call)?;
                        (vec![r], more)
                    }
                    (Some(call), _) => {
                        let out = avals[0].clone();
                        let (r, more) = crate::lax::dot_with(device, args[0], args[1], out, call)?;
                        (vec![r], more)
                    }
                    (None, _) => (
                        crate::lax::eval_primitive(prim.clone(), &args, avals, Some(device))?,
                        Vec::new(),
                    ),
                },
            };
            for (&o, r) in outs.iter().zip(results) {
                vals[o] = Some(r);
            }
            for (&o, r) in epilogue.iter().flat_map(|e| &e.outs).zip(more) {
                vals[o] = Some(r);
            }
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

#[cfg(test)]
mod tests {
    //! Every fused kernel the compiler makes is valid WGSL, generated exactly as a call
    //! generates it (`lax::elementwise_kernel`, which `run_program_cached` calls).

    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
    use crate::codegen::tests::validate;
    use crate::codegen::Target;
    use crate::dtype::DType;
    use crate::lax::{self};
    use crate::primitive::{BinaryOp, CompareOp, Literal, ReduceOp, ThreefryOutput, UnaryOp};
    use crate::shape::{contiguous_strides, Layout};
    use crate::tree::TreeDef;

    /// Traces `f` over operands of types `avals` and compiles the graph.
    fn compiled(avals: &[Aval], f: impl FnOnce(Vec<Array>) -> Result<Vec<Array>>) -> Executable {
        let device = crate::array::current_device().unwrap();
        let def = TreeDef::list(vec![TreeDef::leaf(); avals.len()]);
        let t = super::super::trace_fn(&Arc::from("fused"), &device, &def, avals, f).unwrap();
        compile(&t.graph, 28)
    }

    /// `prim` applied to `args`, or `None` where its shape/dtype rule rejects them.
    fn apply(prim: Primitive, args: &[&Array]) -> Option<Array> {
        lax::bind(prim, args, None).ok()
    }

    fn convert(x: &Array, dtype: DType) -> Array {
        lax::convert_element_type(x, dtype).unwrap()
    }

    /// `pred ? acc : r`, with `r` converted to `acc`'s dtype first: keeps a result of
    /// any dtype live in the chain.
    fn fold(pred: &Array, acc: &Array, r: &Array) -> Array {
        let r = if r.dtype() == acc.dtype() {
            r.clone()
        } else {
            convert(r, acc.dtype())
        };
        lax::select(pred, acc, &r).unwrap()
    }

    /// A function of `x`, `y` (dtype `d`), `p` (bool) and `k` (uint32), all of one shape,
    /// that applies every fusible primitive its shape/dtype rules accept for `d`, in
    /// chains cut by materialized values (outputs, views, a reduction) into several fused
    /// kernels, and returns converts of the result to every dtype.
    fn chains(args: Vec<Array>) -> Result<Vec<Array>> {
        let (x, y, p, k) = (&args[0], &args[1], &args[2], &args[3]);
        let d = x.dtype();
        let shape = x.shape().to_vec();
        let rank = shape.len();
        let mut outs = Vec::new();
        // Unary ops, chained; predicates select.
        let mut acc = x.clone();
        for op in UnaryOp::ALL {
            if let Some(r) = apply(Primitive::Unary(op), &[&acc]) {
                acc = if r.dtype() == d { r } else { fold(&r, &acc, y) };
            }
        }
        outs.push(acc.clone());
        // Binary ops and comparisons with selects.
        for op in BinaryOp::ALL {
            if let Some(r) = apply(Primitive::Binary(op), &[&acc, y]) {
                acc = r;
            }
        }
        for op in CompareOp::ALL {
            let c = lax::compare(op, &acc, y)?;
            acc = lax::select(&c, &acc, x)?;
        }
        outs.push(acc.clone());
        // Read back through a transposed view of a materialized value.
        if rank >= 2 {
            let perm: Vec<usize> = (0..rank).rev().collect();
            acc = lax::transpose(&lax::transpose(&acc, &perm)?, &perm)?;
        }
        // Conversions to every dtype and back, bitcasts, threefry, constants, iota, fma,
        // copy, clamp.
        for t in DType::ALL {
            let c = convert(&acc, t);
            acc = fold(p, &acc, &c);
            if let Some(b) = apply(Primitive::BitcastConvertType { dtype: t }, &[&acc]) {
                let back = apply(Primitive::BitcastConvertType { dtype: d }, &[&b])
                    .unwrap_or_else(|| convert(&b, d));
                acc = fold(p, &acc, &back);
            }
        }
        let c = convert(&acc, DType::UInt32);
        for output in [
            ThreefryOutput::First,
            ThreefryOutput::Second,
            ThreefryOutput::Xor,
        ] {
            let r = lax::threefry2x32(k, &c, &c, k, output)?;
            acc = fold(p, &acc, &r);
        }
        let one = lax::full(&shape, Literal::F32(1.5).cast(d), None)?;
        acc = fold(p, &acc, &one);
        let scalar = lax::full(&[], Literal::F32(2.0).cast(d), None)?;
        let two = lax::broadcast_in_dim(&scalar, &shape, &[])?;
        acc = fold(p, &acc, &two);
        if rank >= 1 {
            if let Some(i) = apply(
                Primitive::Iota {
                    dtype: d,
                    shape: shape.clone(),
                    dimension: rank - 1,
                },
                &[],
            ) {
                acc = fold(p, &acc, &i);
            }
        }
        if let Some(r) = apply(Primitive::Fma, &[&acc, x, y]) {
            acc = r;
        }
        if let Some(r) = apply(Primitive::Copy, &[&acc]) {
            acc = r;
        }
        if let Some(r) = apply(Primitive::Clamp, &[x, &acc, y]) {
            acc = r;
        }
        outs.push(acc.clone());
        // A reduction broadcast back (a broadcast view read by the next kernel).
        if rank >= 1 {
            let op = if d == DType::Bool {
                ReduceOp::Or
            } else {
                ReduceOp::Max
            };
            let r = lax::reduce(op, &acc, &[rank - 1])?;
            let b = lax::broadcast_in_dim(&r, &shape, &(0..rank - 1).collect::<Vec<_>>())?;
            acc = lax::select(p, &acc, &b)?;
            // Pads of stored values, read through their input maps where they are used
            // (constant and edge padding).
            let mut unit = shape.clone();
            unit[rank - 1] = 1;
            let mut high = vec![0; rank];
            high[rank - 1] = shape[rank - 1] - 1;
            for value in [Some(Literal::F32(0.5).cast(d)), None] {
                let r = lax::reduce(op, &acc, &[rank - 1])?;
                let padded = lax::pad(&lax::reshape(&r, &unit)?, &vec![0; rank], &high, value)?;
                acc = lax::select(p, &acc, &padded)?;
            }
        }
        // Kernels without operands.
        if rank >= 1 {
            if let Some(i) = apply(
                Primitive::Iota {
                    dtype: d,
                    shape: shape.clone(),
                    dimension: 0,
                },
                &[],
            ) {
                outs.push(lax::add(
                    &i,
                    &lax::full(&shape, Literal::F32(3.0).cast(d), None)?,
                )?);
            }
        }
        outs.extend(DType::ALL.iter().map(|&t| convert(&acc, t)));
        Ok(outs)
    }

    /// Ways an operand of `shape` can be laid out: contiguous (at offsets that keep and
    /// that break vector loads), transposed, reversed and broadcast views.
    fn layouts(shape: &[usize]) -> Vec<(&'static str, Layout)> {
        let rank = shape.len();
        let contiguous = Layout::contiguous(shape);
        let with = |strides: Vec<isize>, offset: usize| Layout {
            shape: shape.to_vec(),
            strides,
            offset,
        };
        let mut v = vec![
            ("contiguous", contiguous.clone()),
            ("offset 4", with(contiguous.strides.clone(), 4)),
            ("offset 3", with(contiguous.strides.clone(), 3)),
            ("broadcast scalar", with(vec![0; rank], 1)),
        ];
        if rank >= 1 {
            let mut strides = contiguous.strides.clone();
            strides[0] = -strides[0];
            let offset = (shape[0] - 1) * contiguous.strides[0] as usize;
            v.push(("reversed", with(strides, offset)));
            let mut strides = contiguous_strides(&shape[1..]);
            strides.insert(0, 0);
            v.push(("broadcast along the first axis", with(strides, 0)));
            let mut strides = contiguous_strides(&shape[..rank - 1]);
            strides.push(0);
            v.push(("broadcast along the last axis", with(strides, 0)));
        }
        if rank >= 2 {
            let reversed: Vec<usize> = shape.iter().rev().copied().collect();
            let strides = contiguous_strides(&reversed).into_iter().rev().collect();
            v.push(("transposed", with(strides, 0)));
        }
        v
    }

    /// Bytes of the smallest Olympus buffer `layout` can read from.
    fn buffer_bytes(layout: &Layout, dtype: DType) -> u64 {
        let last = layout.offset as isize
            + layout
                .shape
                .iter()
                .zip(&layout.strides)
                .filter(|(_, &s)| s > 0)
                .map(|(&n, &s)| (n as isize - 1) * s)
                .sum::<isize>();
        ((last as u64 + 1).next_multiple_of(4)) * dtype.storage_bytes() as u64
    }

    /// `(name, operand dtype, result dtype)` of a node: the dtype of its last operand
    /// (the value operand for select), none for constants.
    type Use = (&'static str, Option<DType>, DType);

    #[test]
    fn every_fused_kernel_validates() {
        let mut uses: BTreeSet<String> = BTreeSet::new();
        let mut kernels = 0;
        let mut steps = 0;
        let mut multi = 0;
        let mut fused_pads = 0;
        for shape in [vec![8, 16], vec![], vec![2, 3, 4]] {
            for d in DType::ALL {
                let avals =
                    [d, d, DType::Bool, DType::UInt32].map(|t| Aval::new(shape.clone(), t, false));
                let exe = compiled(&avals, chains);
                for step in &exe.steps {
                    let Step::Fused {
                        program,
                        inputs,
                        outs,
                        ..
                    } = step
                    else {
                        continue;
                    };
                    steps += 1;
                    multi += usize::from(outs.len() > 1);
                    let pad = |n: &Node| matches!(n.prim, Primitive::Pad { .. });
                    fused_pads +=
                        usize::from(program.nodes.len() > 1 && program.nodes.iter().any(pad));
                    let mut dtypes = program.inputs.clone();
                    for node in &program.nodes {
                        let u: Use = (
                            node.prim.name(),
                            node.args.last().map(|&a| dtypes[a]),
                            node.dtype,
                        );
                        uses.insert(format!("{u:?}"));
                        dtypes.push(node.dtype);
                    }
                    let aval = &exe.avals[outs[0]];
                    let kinds: Vec<Vec<(&str, Layout)>> = inputs
                        .iter()
                        .map(|&i| layouts(&exe.avals[i].shape))
                        .collect();
                    let variants = kinds.iter().map(Vec::len).max().unwrap_or(1);
                    for f16_native in [false, true] {
                        for window_bytes in [1u64 << 27, 256] {
                            let target = Target {
                                f16_native,
                                window_bytes,
                                vectors: 1 + 3 * u64::from(f16_native),
                                written_out: f16_native,
                            };
                            // Each operand in each of its layouts, in varying company.
                            for v in 0..variants {
                                let chosen: Vec<&(&str, Layout)> = kinds
                                    .iter()
                                    .enumerate()
                                    .map(|(i, k)| &k[(v + i) % k.len()])
                                    .collect();
                                let operands: Vec<lax::Operand<'_>> = chosen
                                    .iter()
                                    .zip(&program.inputs)
                                    .map(|((_, l), &t)| {
                                        lax::Operand::new(l, t, buffer_bytes(l, t), &target)
                                    })
                                    .collect();
                                let g = lax::elementwise_kernel(
                                    program,
                                    &operands,
                                    &aval.shape,
                                    &target,
                                )
                                .unwrap();
                                let source = g.source();
                                if let Err(e) = validate(&source) {
                                    let names: Vec<&str> = chosen.iter().map(|(n, _)| *n).collect();
                                    panic!(
                                        "a fused kernel of {d} over {shape:?} (operands {names:?}, \
                                         f16 native {f16_native}, windows of {window_bytes} \
                                         bytes) does not validate: {e}\n{program:?}\n{source}"
                                    );
                                }
                                kernels += 1;
                            }
                        }
                    }
                }
            }
        }
        // Every fusible primitive in every dtype its rule accepts was in some kernel.
        for d in DType::ALL {
            for prim in Primitive::examples().into_iter().filter(fusible) {
                let arity = prim.arity();
                let operands: Vec<Aval> = (0..arity)
                    .map(|k| {
                        let t = match prim {
                            Primitive::Select if k == 0 => DType::Bool,
                            _ => d,
                        };
                        Aval::new(vec![2, 3], t, false)
                    })
                    .collect();
                let Ok(out) = prim.abstract_eval(&operands) else {
                    continue;
                };
                let u: Use = (prim.name(), operands.last().map(|a| a.dtype), out.dtype);
                assert!(
                    uses.contains(&format!("{u:?}")),
                    "no fused kernel has {u:?}"
                );
            }
        }
        assert!(steps >= 40, "{steps} fused steps");
        assert!(fused_pads > 0, "no kernel reads a pad where it uses it");
        assert!(multi >= 10, "{multi} fused steps with several outputs");
        assert!(kernels > 1000, "{kernels} kernels");
    }

    /// The steps of `f`'s only executable: fused steps with their kernel caches, other
    /// steps by primitive name.
    fn steps<T, U, F>(f: &crate::jit::Jit<T, U, F>) -> Vec<String> {
        let cache = f.cache.lock().unwrap();
        let compiled = cache.values().next().unwrap();
        compiled
            .exe
            .steps
            .iter()
            .map(|s| match s {
                Step::FusedReduce { kernels, .. } => format!("reduce {kernels:?}"),
                Step::Fused { kernels, .. } => format!("fused {kernels:?}"),
                Step::Op { prim, .. } => prim.name().to_string(),
            })
            .collect()
    }

    /// A call reuses the kernel its fused step generated for the same operand layouts, and
    /// generates another for new layouts of the same types (the metadata differs).
    #[test]
    fn fused_kernels_are_reused_per_operand_layout() {
        let f = crate::jit::jit(|(x, y): (Array, Array)| lax::add(&lax::mul(&x, &y)?, &x));
        let a: Vec<f32> = (0..128).map(|i| i as f32).collect();
        let x = Array::from_slice(&a, &[8, 16]).unwrap();
        let xt = lax::transpose(&Array::from_slice(&a, &[16, 8]).unwrap(), &[1, 0]).unwrap();
        let y = lax::add(&x, &x).unwrap();
        let row = Array::from_slice(&a[..16], &[16]).unwrap();
        let yb = lax::broadcast_in_dim(&row, &[8, 16], &[1]).unwrap();
        let calls = [
            (&x, &y),
            (&xt, &y),
            (&x, &yb),
            (&xt, &yb),
            (&x, &y),
            (&xt, &yb),
        ];
        for (x, y) in calls {
            let want = lax::add(&lax::mul(x, y).unwrap(), x).unwrap();
            let got = f.call((x.clone(), y.clone())).unwrap();
            assert_eq!(
                got.to_vec::<f32>().unwrap(),
                want.to_vec::<f32>().unwrap(),
                "{:?} {:?}",
                x.layout(),
                y.layout()
            );
        }
        assert_eq!(f.trace_count(), 1);
        assert_eq!(steps(&f), ["fused KernelCache(4 kernels)"]);
    }

    /// A fused reduction's first pass is generated once per operand layout too.
    #[test]
    fn fused_reductions_reuse_their_first_pass() {
        let f = crate::jit::jit(|(x, y): (Array, Array)| {
            lax::reduce(ReduceOp::Sum, &lax::mul(&x, &y)?, &[1])
        });
        let a: Vec<f32> = (0..512).map(|i| i as f32).collect();
        let x = Array::from_slice(&a, &[8, 64]).unwrap();
        for _ in 0..3 {
            let want = lax::reduce(ReduceOp::Sum, &lax::mul(&x, &x).unwrap(), &[1]).unwrap();
            let got = f.call((x.clone(), x.clone())).unwrap();
            assert_eq!(got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
        }
        assert_eq!(steps(&f), ["reduce KernelCache(1 kernels)"]);
    }

    /// The launches `f` makes per call on a device of its own, its results, and the
    /// results of `f` run eagerly, as words.
    fn launches<T, U, F>(
        f: F,
        args: impl Fn() -> crate::Result<T>,
        words: impl Fn(&U) -> Vec<u32>,
    ) -> (u64, Vec<u32>, Vec<u32>)
    where
        F: Fn(T) -> crate::Result<U> + Clone + Send + Sync + 'static,
        T: crate::tree::PyTree + Clone,
        U: crate::tree::PyTree,
    {
        // A CPU adapter's kernel choices (one pass for these reductions) on the adapter
        // the environment picks.
        let options = crate::DeviceOptions {
            profile: crate::KernelProfile::Cpu,
            ..crate::DeviceOptions::from_env().unwrap()
        };
        let dev = crate::Device::new(options).unwrap();
        crate::with_device(&dev, || {
            let jitted = crate::jit::jit(f.clone());
            let a = args().unwrap();
            jitted.call(a.clone()).unwrap();
            dev.synchronize().unwrap();
            let before = dev.0.dispatches.load(std::sync::atomic::Ordering::Relaxed);
            let got = jitted.call(a.clone()).unwrap();
            let after = dev.0.dispatches.load(std::sync::atomic::Ordering::Relaxed);
            (after - before, words(&got), words(&f(a).unwrap()))
        })
    }

    /// A reduction's and a matrix-vector product's elementwise consumers run in their
    /// kernel (their epilogue) and give the bits of the unfused step: JAX's
    /// `kernel_lsq` optimisation step (a product, its residual's gradient, the transposed
    /// product, a momentum update of two outputs) is two launches, not four; a row
    /// reduction's consumers of two sibling results and of a broadcast operand, one.
    #[test]
    fn reductions_and_matrix_vector_products_compute_their_consumers() {
        use crate::numpy as np;
        let n = 100;
        let words = |(a, b): &(Array, Array)| {
            let mut w: Vec<u32> = a
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .map(|f| f.to_bits())
                .collect();
            w.extend(b.to_vec::<f32>().unwrap().iter().map(|f| f.to_bits()));
            w
        };
        let gram: Vec<f32> = (0..n * n)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 64.0)
            .collect();
        let step = move |(v, velocity): (Array, Array)| -> crate::Result<(Array, Array)> {
            let gram = Array::from_slice(&gram, &[n, n])?;
            let ys = np::arange((0.0, n as f64, 1.0))?;
            let objective = |v: Array| -> crate::Result<Array> {
                let r = np::subtract(np::dot(&gram, &v)?, &ys)?;
                np::multiply(np::sum(np::square(&r)?, None, false)?, 0.5)
            };
            let g = crate::grad(objective)(v.clone())?;
            let velocity = np::add(np::multiply(&velocity, 0.9)?, g)?;
            Ok((np::subtract(&v, np::multiply(&velocity, 1e-3)?)?, velocity))
        };
        let args = || {
            let v: Vec<f32> = (0..n).map(|i| (i as f32 - 40.0) / 8.0).collect();
            Ok((
                Array::from_slice(&v, &[n])?,
                np::ones(&[n], DType::Float32)?,
            ))
        };
        let (count, got, want) = launches(step, args, words);
        assert_eq!(got, want);
        assert_eq!(count, 2, "launches of the optimisation step");

        // Sibling row sums and their consumers (several results, a row operand broadcast
        // down the columns, a bool output): one launch.
        let rows = |(x, y): (Array, Array)| -> crate::Result<(Array, Array)> {
            let s = np::sum(np::multiply(&x, &x)?, Some(&[1]), false)?;
            let t = np::sum(np::multiply(&x, 3.0)?, Some(&[1]), false)?;
            let mean = np::add(np::multiply(&s, &y)?, &t)?;
            Ok((
                mean.clone(),
                np::greater(&mean, &t)?.astype(DType::Float32)?,
            ))
        };
        let args = || {
            let x: Vec<f32> = (0..7 * 33)
                .map(|i| ((i * 13 % 29) as f32 - 14.0) / 4.0)
                .collect();
            let y: Vec<f32> = (0..7).map(|i| i as f32 - 3.0).collect();
            Ok((
                Array::from_slice(&x, &[7, 33])?,
                Array::from_slice(&y, &[7])?,
            ))
        };
        let (count, got, want) = launches(rows, args, words);
        assert_eq!(got, want);
        assert_eq!(count, 1, "launches of the row sums and their consumers");
    }
}

//! `vmap`: vectorising a function by tracing it once per example shape and rewriting each
//! equation with its primitive's batching rule.
//!
//! Inside the interpreter every batched value carries its batch dimension first (inputs
//! mapped over another axis are transposed once on entry); unbatched values stay as they
//! are and are broadcast only where a rule needs operands of one shape.

use std::sync::Arc;

use super::custom::{bind_call, closed, rules_of, BwdFn, FwdFn, Residuals, Rules};
use super::leaves_device;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax::{self, missing};
use crate::primitive::Graph;
use crate::primitive::{with_params, CustomCall, Primitive};
use crate::runtime::Device;
use crate::shape::Aval;
use crate::trace::{trace_fn, Traced};
use crate::tree::{tree_flatten, tree_unflatten, PyTree, TreeDef};

/// Which axis of each leaf `vmap` maps over (`in_axes`) or puts the batch at (`out_axes`),
/// as a prefix of the argument's or result's pytree structure (JAX's convention).
///
/// An integer (`0`, `-1`) applies to every leaf below it; [`Axes::Unmapped`] (JAX's `None`)
/// marks leaves that are not mapped (broadcast to every example); a tuple or `Vec` gives one
/// entry per child of the node: tuple elements, list items, struct fields in declaration
/// order, map entries in key order.
///
/// ```
/// use olympus::Axes;
/// let spec: Axes = (0, Axes::Unmapped).into();       // map the first argument only
/// assert_eq!(spec, Axes::Tree(vec![Axes::At(0), Axes::Unmapped]));
/// let per_leaf: Axes = (1, (0, -1)).into();            // nested prefix
/// assert_eq!(per_leaf, Axes::Tree(vec![Axes::At(1), Axes::Tree(vec![Axes::At(0), Axes::At(-1)])]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Axes {
    /// This axis (negative counts from the end) of every leaf below.
    At(isize),
    /// Not mapped.
    Unmapped,
    /// One entry per child of the node.
    Tree(Vec<Axes>),
}

impl From<isize> for Axes {
    fn from(a: isize) -> Axes {
        Axes::At(a)
    }
}

impl From<i32> for Axes {
    fn from(a: i32) -> Axes {
        Axes::At(a as isize)
    }
}

impl From<usize> for Axes {
    fn from(a: usize) -> Axes {
        Axes::At(a as isize)
    }
}

impl From<Option<i32>> for Axes {
    fn from(a: Option<i32>) -> Axes {
        a.map_or(Axes::Unmapped, Axes::from)
    }
}

impl From<Vec<Axes>> for Axes {
    fn from(v: Vec<Axes>) -> Axes {
        Axes::Tree(v)
    }
}

macro_rules! axes_tuples {
    ($( ($($A:ident $a:ident),+) ),+) => {
        $(
            impl<$($A: Into<Axes>),+> From<($($A,)+)> for Axes {
                fn from(($($a,)+): ($($A,)+)) -> Axes {
                    Axes::Tree(vec![$($a.into()),+])
                }
            }
        )+
    };
}

axes_tuples!(
    (A a),
    (A a, B b),
    (A a, B b, C c),
    (A a, B b, C c, D d),
    (A a, B b, C c, D d, E e),
    (A a, B b, C c, D d, E e, F f)
);

/// The axis spec of each leaf of `def`.
fn leaf_axes(
    func: &str,
    what: &str,
    spec: &Axes,
    def: &TreeDef,
    out: &mut Vec<Option<isize>>,
) -> Result<()> {
    match spec {
        Axes::At(a) => out.extend(std::iter::repeat_n(Some(*a), def.num_leaves())),
        Axes::Unmapped => out.extend(std::iter::repeat_n(None, def.num_leaves())),
        Axes::Tree(children) => {
            let kids = def.children();
            if def.is_leaf() || kids.len() != children.len() {
                return Err(Error::arg(
                    func,
                    format!(
                        "{what} {spec:?} is not a prefix of the structure {def}: it gives {} entries for a node with {}",
                        children.len(),
                        if def.is_leaf() { "no children (a leaf)".to_string() } else { format!("{} children", kids.len()) }
                    ),
                ));
            }
            for (s, d) in children.iter().zip(kids) {
                leaf_axes(func, what, s, d, out)?;
            }
        }
    }
    Ok(())
}

/// `axis` of an array of rank `ndim` as an index.
fn normalize(func: &str, what: &str, axis: isize, shape: &[usize]) -> Result<usize> {
    let n = shape.len() as isize;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        return Err(Error::shape(
            func,
            &[shape],
            format!("{what} {axis} is out of range for an array of rank {n}"),
        ));
    }
    Ok(a as usize)
}

/// `a` with dimension `from` moved to position `to`.
fn move_axis(a: &Array, from: usize, to: usize) -> Result<Array> {
    if from == to {
        return Ok(a.clone());
    }
    let mut perm: Vec<usize> = (0..a.ndim()).filter(|&d| d != from).collect();
    perm.insert(to, from);
    lax::transpose(a, &perm)
}

/// `a` broadcast to have a leading batch dimension of size `b`.
pub(crate) fn lift(a: &Array, batched: bool, b: usize) -> Result<Array> {
    if batched {
        return Ok(a.clone());
    }
    let mut shape = vec![b];
    shape.extend_from_slice(a.shape());
    let dims: Vec<usize> = (1..=a.ndim()).collect();
    lax::broadcast_in_dim(a, &shape, &dims)
}

/// Dimensions shifted past a leading batch dimension.
pub(crate) fn shifted(v: &[usize]) -> Vec<usize> {
    v.iter().map(|d| d + 1).collect()
}

/// `v` with `x` in front.
pub(crate) fn prepend(x: usize, v: &[usize]) -> Vec<usize> {
    let mut out = vec![x];
    out.extend_from_slice(v);
    out
}

/// The batching rule of one primitive, implemented by its view (`primitive::params`) in
/// its family's file under `prims/`: the primitive applied to operands of which those
/// marked are batched along dimension 0 (size `b`; the interpreter moves every batched
/// operand's batch dimension there first, and calls a rule only when some operand is
/// batched), giving each output with its batch dimension, or `None` for an output that is
/// the same for every example (a loop's unbatched carry, a constant).
pub(crate) trait BatchRule {
    /// The outputs, each with its batch dimension.
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>>;
}

/// [`BatchRule::batch`] of `prim`.
pub(crate) fn batch_rule(
    prim: &Primitive,
    args: &[(&Array, bool)],
    b: usize,
) -> Result<Vec<(Array, Option<usize>)>> {
    with_params!(prim, p => p.batch(args, b))
}

/// `prim` bound to the operands with every one batched (unbatched ones broadcast): the
/// rule of a primitive for which a leading batch dimension is just another dimension.
pub(crate) fn bind_lifted(
    prim: Primitive,
    args: &[(&Array, bool)],
    b: usize,
) -> Result<Vec<(Array, Option<usize>)>> {
    let lifted = args
        .iter()
        .map(|&(a, bt)| lift(a, bt, b))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Array> = lifted.iter().collect();
    batched_first(lax::bind_all(prim, &refs, None)?)
}

/// Outputs batched along dimension 0.
pub(crate) fn batched_first(outs: Vec<Array>) -> Result<Vec<(Array, Option<usize>)>> {
    Ok(outs.into_iter().map(|a| (a, Some(0))).collect())
}

/// `graph` (closed) evaluated by the batching rules on `xs` (batched where `flags` say),
/// every output then batched: the body of a batched call and of its batched rules.
fn batched_body(
    graph: &Graph,
    consts: &[Array],
    xs: &[Array],
    flags: &[bool],
    b: usize,
    device: &Device,
) -> Result<Vec<Array>> {
    let inputs = xs.iter().cloned().zip(flags.iter().copied()).collect();
    eval_batched(graph, consts, inputs, b, device)?
        .iter()
        .map(|(a, bt)| lift(a, *bt, b))
        .collect()
}

/// `f` traced on arrays of types `avals` as a flat list: its graph and constants.
fn trace_flat(
    name: &Arc<str>,
    device: &Device,
    avals: &[Aval],
    f: impl FnOnce(Vec<Array>) -> Result<Vec<Array>>,
) -> Result<Traced> {
    let def = TreeDef::list(vec![TreeDef::leaf(); avals.len()]);
    trace_fn(name, device, &def, avals, f)
}

/// The types of `avals` without their leading batch dimension.
fn per_example(avals: &[Aval]) -> Vec<Aval> {
    avals
        .iter()
        .map(|a| Aval::new(a.shape[1..].to_vec(), a.dtype, a.weak))
        .collect()
}

/// A `custom_jvp` or `custom_vjp` call with batched operands: a new call whose graph is
/// the batched graph and whose rules are the batched rules (each rule traced for one
/// example, then evaluated by the batching rules), so the custom derivative still applies
/// under `grad(vmap(f))`. Every output is batched.
pub(crate) fn batch_call(
    call: &CustomCall,
    jvp: bool,
    args: &[(&Array, bool)],
    b: usize,
) -> Result<Vec<Array>> {
    let flags: Vec<bool> = args.iter().map(|&(_, bt)| bt).collect();
    let ops: Vec<Array> = args.iter().map(|&(a, _)| a.clone()).collect();
    let device = leaves_device(&call.name, &ops)?;
    let avals: Vec<Aval> = ops.iter().map(|a| a.aval().clone()).collect();
    let fun = call.fun.clone();
    let traced = trace_flat(&call.name, &device, &avals, |xs| {
        batched_body(&fun, &[], &xs, &flags, b, &device)
    })?;
    let (graph, consts, _) = closed(traced);
    // The batched call's operands: the batched graph's constants, then the call's own.
    let nc = consts.len();
    let name = call.name.clone();
    let in_avals = call.fun.in_avals();
    let rules = match rules_of(call)? {
        Rules::Jvp(rule) => {
            let (rule, flags, device) = (rule.clone(), flags.clone(), device.clone());
            let n = in_avals.len();
            Rules::Jvp(Arc::new(move |ops: &[Array], ts: &[Array]| {
                let avals: Vec<Aval> = in_avals.iter().chain(&in_avals).cloned().collect();
                let one = trace_flat(&name, &device, &avals, |v| {
                    let (ys, tys) = rule(&v[..n], &v[n..])?;
                    Ok(ys.into_iter().chain(tys).collect())
                })?;
                let xs: Vec<Array> = ops[nc..].iter().chain(&ts[nc..]).cloned().collect();
                let both: Vec<bool> = flags.iter().chain(&flags).copied().collect();
                let mut outs = batched_body(&one.graph, &one.consts, &xs, &both, b, &device)?;
                let tangents = outs.split_off(outs.len() / 2);
                Ok((outs, tangents))
            }))
        }
        Rules::Vjp { fwd, bwd } => {
            let n_out = call.fun.outvars.len();
            let (fwd, flags_f, device_f, name_f) =
                (fwd.clone(), flags.clone(), device.clone(), name.clone());
            let fwd_in = in_avals.clone();
            let fwd: Arc<FwdFn> = Arc::new(move |ops: &[Array]| {
                let mut def = None;
                let one = trace_flat(&name_f, &device_f, &fwd_in, |v| {
                    let (ys, res) = fwd(&v)?;
                    def = Some(res.def);
                    Ok(ys.into_iter().chain(res.leaves).collect())
                })?;
                let def =
                    def.ok_or_else(|| Error::arg(&name_f, "the forward rule gave nothing"))?;
                let mut outs =
                    batched_body(&one.graph, &one.consts, &ops[nc..], &flags_f, b, &device_f)?;
                let leaves = outs.split_off(n_out);
                Ok((outs, Residuals { leaves, def }))
            });
            let (bwd, out_avals) = (bwd.clone(), call.fun.out_avals());
            let bwd: Arc<BwdFn> = Arc::new(move |res: &Residuals, cts: &[Array]| {
                let res_avals: Vec<Aval> = res.leaves.iter().map(|a| a.aval().clone()).collect();
                let avals: Vec<Aval> = per_example(&res_avals)
                    .into_iter()
                    .chain(out_avals.iter().cloned())
                    .collect();
                let n_res = res_avals.len();
                // Which operands get a cotangent (the original call's constants do not).
                let mut gets: Vec<bool> = Vec::new();
                let one = trace_flat(&name, &device, &avals, |v| {
                    let per = Residuals {
                        leaves: v[..n_res].to_vec(),
                        def: res.def.clone(),
                    };
                    let cts = bwd(&per, &v[n_res..])?;
                    gets = cts.iter().map(Option::is_some).collect();
                    Ok(cts.into_iter().flatten().collect())
                })?;
                let xs: Vec<Array> = res.leaves.iter().chain(cts).cloned().collect();
                let all = vec![true; xs.len()];
                let mut got =
                    batched_body(&one.graph, &one.consts, &xs, &all, b, &device)?.into_iter();
                let mut out: Vec<Option<Array>> = vec![None; nc];
                // The traced rule gave a cotangent only for the operands that get one (not
                // the original call's captured arrays): take them in order.
                for (k, &g) in gets.iter().enumerate() {
                    let c = if g { got.next() } else { None };
                    out.push(match c {
                        // A shared operand's cotangent sums over the examples.
                        Some(c) if !flags[k] => {
                            Some(lax::reduce(crate::primitive::ReduceOp::Sum, &c, &[0])?)
                        }
                        c => c,
                    });
                }
                Ok(out)
            });
            Rules::Vjp { fwd, bwd }
        }
        // A custom_lin's batching rule is an error before this.
        Rules::Lin { .. } => {
            return Err(Error::arg(
                &call.name,
                "internal: a custom_lin reached the custom calls' batching rule",
            ))
        }
    };
    let operands: Vec<&Array> = consts.iter().chain(&ops).collect();
    bind_call(
        &call.name,
        graph,
        (rules, nc + call.captured),
        jvp,
        &operands,
    )
}

/// Vectorises `f` over a batch axis (`jax.vmap`): `vmap(f, in_axes, out_axes)(xs)` equals
/// stacking `f(x)` for each example `x` along `out_axes`, computed in one pass.
///
/// `in_axes` and `out_axes` are [`Axes`] prefixes of the argument's and result's pytree
/// structure: `0` maps every leaf over its first axis, `(0, Axes::Unmapped)` maps the first
/// element of a tuple argument and passes the second to every example unchanged. Mapped
/// leaves must agree on the batch size. `vmap` maps over the leaves of the flattened pytree
/// (a registered type arrives in `f` as itself), never over protocol-converted arrays.
///
/// It composes with the other transformations: `vmap(grad(loss), ..)` gives per-example
/// gradients, and `jit(vmap(f, ..))` compiles the batched graph.
///
/// ```
/// use olympus::{vmap, numpy as np, Array, Axes, Result};
///
/// // A matrix-vector product written for one vector, mapped over the rows of `xs`.
/// let mv = |(m, v): (Array, Array)| -> Result<Array> { np::matmul(&m, &v) };
/// let batched = vmap(mv, (Axes::Unmapped, 0), 0);
/// let m = np::array(&[[1.0f32, 0.0], [0.0, 2.0]])?;
/// let xs = np::array(&[[1.0f32, 1.0], [3.0, 4.0], [5.0, 6.0]])?;
/// let ys = batched((m, xs))?;
/// assert_eq!(ys.shape(), &[3, 2]);
/// assert_eq!(ys.to_vec::<f32>()?, [1.0, 2.0, 3.0, 8.0, 5.0, 12.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn vmap<T, U, F>(
    f: F,
    in_axes: impl Into<Axes>,
    out_axes: impl Into<Axes>,
) -> impl Fn(T) -> Result<U>
where
    T: PyTree,
    U: PyTree,
    F: Fn(T) -> Result<U>,
{
    let name: Arc<str> = Arc::from(std::any::type_name::<F>());
    let (in_axes, out_axes) = (in_axes.into(), out_axes.into());
    move |args: T| vmap_call(&name, &f, &in_axes, &out_axes, args)
}

fn vmap_call<T: PyTree, U: PyTree>(
    name: &Arc<str>,
    f: impl FnOnce(T) -> Result<U>,
    in_axes: &Axes,
    out_axes: &Axes,
    args: T,
) -> Result<U> {
    const FUNC: &str = "vmap";
    let (leaves, def) = tree_flatten(&args);
    drop(args);
    let mut spec = Vec::new();
    leaf_axes(FUNC, "in_axes", in_axes, &def, &mut spec)?;
    let paths = def.key_paths();
    let mut axes: Vec<Option<usize>> = Vec::with_capacity(leaves.len());
    let mut size: Option<(usize, usize)> = None;
    for (i, (a, s)) in leaves.iter().zip(&spec).enumerate() {
        let ax = match s {
            Some(s) => Some(normalize(
                FUNC,
                &format!("in_axes for the input at key path `{}`:", paths[i]),
                *s,
                a.shape(),
            )?),
            None => None,
        };
        if let Some(ax) = ax {
            let n = a.shape()[ax];
            match size {
                None => size = Some((n, i)),
                Some((m, j)) if m != n => {
                    return Err(Error::shape(
                        FUNC,
                        &[leaves[j].shape(), a.shape()],
                        format!(
                            "inconsistent sizes for the mapped axes: {m} for the input at key path `{}` (axis {}) and {n} for the input at key path `{}` (axis {ax})",
                            paths[j],
                            axes[j].unwrap_or(0),
                            paths[i]
                        ),
                    ))
                }
                _ => {}
            }
        }
        axes.push(ax);
    }
    let Some((b, _)) = size else {
        return Err(Error::arg(
            FUNC,
            format!("needs at least one mapped input, but in_axes {in_axes:?} maps none of {def}"),
        ));
    };
    let device = leaves_device(FUNC, &leaves)?;
    let avals: Vec<Aval> = leaves
        .iter()
        .zip(&axes)
        .map(|(a, ax)| {
            let mut aval = a.aval().clone();
            if let Some(ax) = ax {
                aval.shape.remove(*ax);
            }
            aval
        })
        .collect();
    let t = trace_fn(name, &device, &def, &avals, f)?;
    let inputs = leaves
        .iter()
        .zip(&axes)
        .map(|(a, ax)| match ax {
            Some(ax) => Ok((move_axis(a, *ax, 0)?, true)),
            None => Ok((a.clone(), false)),
        })
        .collect::<Result<Vec<_>>>()?;
    let outs = eval_batched(&t.graph, &t.consts, inputs, b, &device)?;
    let mut ospec = Vec::new();
    leaf_axes(FUNC, "out_axes", out_axes, &t.out_def, &mut ospec)?;
    let out_paths = t.out_def.key_paths();
    let outs = outs
        .into_iter()
        .zip(&ospec)
        .enumerate()
        .map(|(i, ((a, batched), s))| match s {
            Some(s) => {
                let a = lift(&a, batched, b)?;
                let to = normalize(
                    FUNC,
                    &format!("out_axes for the output at key path `{}`:", out_paths[i]),
                    *s,
                    a.shape(),
                )?;
                move_axis(&a, 0, to)
            }
            None if batched => Err(Error::arg(
                FUNC,
                format!(
                    "out_axes is None (Axes::Unmapped) for the output at key path `{}`, but it depends on the mapped inputs",
                    out_paths[i]
                ),
            )),
            None => Ok(a),
        })
        .collect::<Result<Vec<_>>>()?;
    tree_unflatten(&t.out_def, outs)
}

/// A rule's output as the interpreter keeps values: batched along dimension 0, or not.
fn batch_first(a: Array, dim: Option<usize>) -> Result<(Array, bool)> {
    match dim {
        None => Ok((a, false)),
        Some(d) => Ok((move_axis(&a, d, 0)?, true)),
    }
}

/// Evaluates `graph` with batched inputs (batch dimension first), binding unbatched
/// equations as they are and batched ones through their batching rule.
fn eval_batched(
    graph: &Graph,
    consts: &[Array],
    inputs: Vec<(Array, bool)>,
    b: usize,
    device: &Device,
) -> Result<Vec<(Array, bool)>> {
    let mut env: Vec<Option<(Array, bool)>> = vec![None; graph.avals.len()];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        env[v] = Some((a.clone(), false));
    }
    for (&v, a) in graph.invars.iter().zip(inputs) {
        env[v] = Some(a);
    }
    for e in &graph.eqns {
        let args = e
            .inputs
            .iter()
            .map(|&i| {
                env[i]
                    .as_ref()
                    .map(|(a, bt)| (a, *bt))
                    .ok_or_else(|| missing(i))
            })
            .collect::<Result<Vec<(&Array, bool)>>>()?;
        let outs: Vec<(Array, bool)> = if args.iter().any(|&(_, bt)| bt) {
            batch_rule(&e.prim, &args, b)?
                .into_iter()
                .map(|(a, dim)| batch_first(a, dim))
                .collect::<Result<_>>()?
        } else {
            let refs: Vec<&Array> = args.iter().map(|&(a, _)| a).collect();
            lax::bind_all(e.prim.clone(), &refs, Some(device))?
                .into_iter()
                .map(|a| (a, false))
                .collect()
        };
        for (&o, a) in e.outs.iter().zip(outs) {
            env[o] = Some(a);
        }
    }
    graph
        .outvars
        .iter()
        .map(|&o| env[o].clone().ok_or_else(|| missing(o)))
        .collect()
}

#[cfg(test)]
mod tests {
    //! Every primitive's batching rule against a loop over examples, for each choice of
    //! batched operands, in every dtype the primitive takes.

    use super::*;
    use crate::dtype::DType;
    use crate::jit::rule_tests::{operands_of, test_primitives};
    use crate::primitive::Literal;
    use rand::SeedableRng;

    /// `xs` stacked along a new first dimension.
    fn stack(xs: &[Array]) -> Array {
        let parts: Vec<Array> = xs
            .iter()
            .map(|a| lax::reshape(a, &prepend(1, a.shape())).unwrap())
            .collect();
        let refs: Vec<&Array> = parts.iter().collect();
        lax::concatenate(&refs, 0).unwrap()
    }

    fn words(a: &Array) -> Vec<u32> {
        match a.dtype() {
            DType::Bool => a
                .to_vec::<bool>()
                .unwrap()
                .into_iter()
                .map(u32::from)
                .collect(),
            DType::Float16 => a
                .to_vec::<half::f16>()
                .unwrap()
                .into_iter()
                .map(|v| u32::from(v.to_bits()))
                .collect(),
            DType::BFloat16 => a
                .to_vec::<half::bf16>()
                .unwrap()
                .into_iter()
                .map(|v| u32::from(v.to_bits()))
                .collect(),
            _ => {
                let b = lax::bitcast_convert_type(
                    &a.astype(if a.dtype() == DType::Float32 {
                        DType::Float32
                    } else {
                        DType::UInt32
                    })
                    .unwrap(),
                    DType::UInt32,
                )
                .unwrap();
                b.to_vec::<u32>().unwrap()
            }
        }
    }

    #[test]
    fn every_batching_rule_equals_a_loop_over_examples() {
        let mut r = rand::rngs::StdRng::seed_from_u64(11);
        let b = 3;
        let mut checked = [false; Primitive::COUNT];
        let mut runs = 0;
        for prim in test_primitives() {
            for dtype in DType::ALL {
                let mut examples = Vec::new();
                for _ in 0..b {
                    match operands_of(&prim, dtype, &mut r) {
                        Some(ops) => examples.push(ops),
                        None => break,
                    }
                }
                if examples.len() < b {
                    continue;
                }
                let arity = examples[0].len();
                // Batch every operand, then each operand alone (the others shared).
                let mut masks = vec![vec![true; arity]];
                if arity > 1 {
                    masks.extend((0..arity).map(|k| (0..arity).map(|j| j == k).collect()));
                }
                for mask in masks {
                    let per_example: Vec<Vec<Array>> = (0..b)
                        .map(|i| {
                            let ops: Vec<&Array> = (0..arity)
                                .map(|k| {
                                    if mask[k] {
                                        &examples[i][k]
                                    } else {
                                        &examples[0][k]
                                    }
                                })
                                .collect();
                            lax::bind_all(prim.clone(), &ops, None).unwrap()
                        })
                        .collect();
                    let args: Vec<Array> = (0..arity)
                        .map(|k| {
                            if mask[k] {
                                stack(&(0..b).map(|i| examples[i][k].clone()).collect::<Vec<_>>())
                            } else {
                                examples[0][k].clone()
                            }
                        })
                        .collect();
                    let pairs: Vec<(&Array, bool)> =
                        args.iter().zip(&mask).map(|(a, &m)| (a, m)).collect();
                    let got = batch_rule(&prim, &pairs, b)
                        .unwrap_or_else(|e| panic!("{prim:?} on {dtype} {mask:?}: {e}"));
                    assert_eq!(got.len(), per_example[0].len(), "{prim:?} outputs");
                    let got: Vec<Array> = got
                        .into_iter()
                        .map(|(a, dim)| {
                            let (a, batched) = batch_first(a, dim).unwrap();
                            if batched {
                                a
                            } else {
                                lift(&a, false, b).unwrap()
                            }
                        })
                        .collect();
                    for (k, got) in got.iter().enumerate() {
                        let want = stack(
                            &per_example
                                .iter()
                                .map(|outs| outs[k].clone())
                                .collect::<Vec<_>>(),
                        );
                        let what = format!("{prim:?} output {k} on {dtype}, batched {mask:?}");
                        assert_eq!(got.shape(), want.shape(), "{what}");
                        assert_eq!(got.dtype(), want.dtype(), "{what}");
                        assert_eq!(words(got), words(&want), "{what}");
                    }
                    runs += 1;
                }
                checked[prim.variant_index()] = true;
            }
        }
        // Constants and iota have no operands, so they are never batched.
        let no_operands = [
            Primitive::Full {
                shape: vec![],
                value: Literal::F32(0.0),
            }
            .variant_index(),
            Primitive::Iota {
                dtype: DType::Int32,
                shape: vec![1],
                dimension: 0,
            }
            .variant_index(),
            // Made by linearization and transposed at once: never batched.
            Primitive::CustomLin {
                call: CustomCall::example(),
            }
            .variant_index(),
        ];
        for (i, c) in checked.iter().enumerate() {
            assert!(
                *c || no_operands.contains(&i),
                "variant {i} has no checked batching rule"
            );
        }
        assert!(runs > 200, "{runs}");
    }
}

//! The interpreters of automatic differentiation over a traced [`Graph`]: forward mode
//! ([`jvp_graph`]) and linearization ([`Linearized`]: the outputs computed, the tangent map
//! traced into a linear graph with its residuals, then transposed for any number of backward
//! passes), and the rules of custom calls, which carry their own: `custom_jvp`'s rule in both
//! modes (reverse mode transposes the traced rule), `custom_vjp`'s forward rule when
//! linearizing and its backward rule when transposing.

use std::sync::Arc;

use super::ad::{jvp_rule, jvp_with_outputs, or_zeros};
use super::compile::inline_calls;
use super::custom::{check_types, rules_of, Rules};
use super::transpose::transpose_graph;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax::{self, missing};
use crate::primitive::{CustomCall, Graph, Primitive};
use crate::runtime::Device;
use crate::shape::Aval;
use crate::trace::{is_live, trace_linear};
use crate::tree::TreeDef;

/// The JVP rule of any primitive: a custom call's own rule, else the table's.
pub(crate) fn jvp_of(
    prim: &Primitive,
    x: &[&Array],
    outs: &[Array],
    t: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    match prim {
        Primitive::CustomJvpCall { call } => {
            Ok(custom_jvp(call, x, t)?.1.into_iter().map(Some).collect())
        }
        Primitive::CustomVjpCall { call } => Err(no_forward_mode(call)),
        _ => jvp_rule(prim, x, outs, t),
    }
}

/// A custom function differentiated with respect to an array it captured: an error, as
/// JAX's `UnexpectedTracerError` (the rules take only the function's arguments, so the
/// derivative would silently be zero).
fn check_captured(call: &CustomCall, active: impl Fn(usize) -> bool) -> Result<()> {
    if (0..call.captured).any(active) {
        return Err(Error::arg(
            &call.name,
            "the custom function captured a value that is being differentiated; its rules \
             take only its arguments, so pass the value as an argument (JAX raises \
             UnexpectedTracerError)",
        ));
    }
    Ok(())
}

/// A `custom_vjp` function under forward mode: an error, as in JAX.
fn no_forward_mode(call: &CustomCall) -> Error {
    Error::arg(
        &call.name,
        "a custom_vjp function cannot be differentiated in forward mode (jvp); \
         use custom_jvp for a rule forward mode can use, as in JAX",
    )
}

/// A `custom_jvp` call's rule on its operands `x` and their tangents (zeros where `None`):
/// the outputs and their tangents, checked against the function's output types.
fn custom_jvp(
    call: &CustomCall,
    x: &[&Array],
    t: &[Option<Array>],
) -> Result<(Vec<Array>, Vec<Array>)> {
    let Rules::Jvp(rule) = rules_of(call)? else {
        return Err(Error::arg(
            &call.name,
            "a custom_jvp call without a JVP rule",
        ));
    };
    let ops: Vec<Array> = x.iter().map(|&a| a.clone()).collect();
    let ts = t
        .iter()
        .zip(x)
        .map(|(t, a)| or_zeros(t, a))
        .collect::<Result<Vec<_>>>()?;
    let (ys, tys) = rule(&ops, &ts)?;
    let want = call.fun.out_avals();
    check_types(&call.name, "custom_jvp rule's outputs", &ys, &want)?;
    check_types(&call.name, "custom_jvp rule's tangents", &tys, &want)?;
    Ok((ys, tys))
}

/// Forward mode: the outputs of `graph` and their tangents (`None`: zero).
pub(crate) fn jvp_graph(
    graph: &Graph,
    consts: &[Array],
    primals: &[Array],
    tangents: &[Option<Array>],
    device: &Device,
) -> Result<(Vec<Array>, Vec<Option<Array>>)> {
    jvp_interpret(graph, consts, primals, tangents, device, false)
}

/// [`jvp_graph`]; when `linearizing` (the tangents are traced by [`Linearized::new`]), a
/// `custom_vjp` call runs its forward rule and leaves a `custom_lin` for transposition,
/// where forward mode proper has no rule for it.
fn jvp_interpret(
    graph: &Graph,
    consts: &[Array],
    primals: &[Array],
    tangents: &[Option<Array>],
    device: &Device,
    linearizing: bool,
) -> Result<(Vec<Array>, Vec<Option<Array>>)> {
    let n = graph.avals.len();
    let mut val: Vec<Option<Array>> = vec![None; n];
    let mut tan: Vec<Option<Array>> = vec![None; n];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        val[v] = Some(a.clone());
    }
    for ((&v, a), t) in graph.invars.iter().zip(primals).zip(tangents) {
        val[v] = Some(a.clone());
        if graph.avals[v].dtype.is_floating() {
            tan[v] = t.clone();
        }
    }
    for e in &graph.eqns {
        let ins = e
            .inputs
            .iter()
            .map(|&i| val[i].as_ref().ok_or_else(|| missing(i)))
            .collect::<Result<Vec<&Array>>>()?;
        let ts: Vec<Option<Array>> = e.inputs.iter().map(|&i| tan[i].clone()).collect();
        let avals: Vec<Aval> = e.outs.iter().map(|&o| graph.avals[o].clone()).collect();
        let pass = if linearizing {
            Pass::Linearize
        } else {
            Pass::Forward
        };
        let (outs, touts) = jvp_eqn(&e.prim, &ins, &ts, &avals, device, pass)?;
        for ((&o, a), t) in e.outs.iter().zip(outs).zip(touts) {
            if graph.avals[o].dtype.is_floating() {
                tan[o] = t;
            }
            val[o] = Some(a);
        }
    }
    let outs = graph
        .outvars
        .iter()
        .map(|&o| val[o].clone().ok_or_else(|| missing(o)))
        .collect::<Result<Vec<_>>>()?;
    let touts = graph.outvars.iter().map(|&o| tan[o].clone()).collect();
    Ok((outs, touts))
}

/// [`jvp_eqn`] for a concrete trace's read of a value that `grad` or `vjp` will linearize
/// (`trace::Step`): zero tangents where operands carry them (only which do matters).
pub(crate) fn read_linearized(
    prim: &Primitive,
    ins: &[&Array],
    active: &[bool],
    avals: &[Aval],
    device: &Device,
) -> Result<(Vec<Array>, Vec<bool>)> {
    read_step(prim, ins, active, avals, device, Pass::Read)
}

/// [`read_linearized`] for a value that `jvp` will push forward.
pub(crate) fn read_forward(
    prim: &Primitive,
    ins: &[&Array],
    active: &[bool],
    avals: &[Aval],
    device: &Device,
) -> Result<(Vec<Array>, Vec<bool>)> {
    read_step(prim, ins, active, avals, device, Pass::Forward)
}

fn read_step(
    prim: &Primitive,
    ins: &[&Array],
    active: &[bool],
    avals: &[Aval],
    device: &Device,
    pass: Pass,
) -> Result<(Vec<Array>, Vec<bool>)> {
    let ts = ins
        .iter()
        .zip(active)
        .map(|(a, &on)| on.then(|| super::ad::zeros(a.aval(), device)).transpose())
        .collect::<Result<Vec<_>>>()?;
    let (outs, touts) = jvp_eqn(prim, ins, &ts, avals, device, pass)?;
    Ok((outs, touts.iter().map(Option::is_some).collect()))
}

/// Which pass [`jvp_eqn`] is a step of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Forward mode proper (`jvp`).
    Forward,
    /// Linearization (`grad`, `vjp`, `linearize`): the tangents are traced.
    Linearize,
    /// A concrete trace reading a value it will linearize (`trace::concrete_value`): the
    /// outputs as linearization computes them; only which outputs have tangents matters.
    Read,
}

/// One equation of forward mode ([`jvp_interpret`]'s step): the outputs of `prim` (of
/// types `avals`) on `ins` and their tangents from the operands' tangents `ts` (`None`:
/// zero). A custom rule or a rule that gives its own outputs (`prod`'s tree) computes the
/// outputs where an operand has a tangent, so a concrete trace reading a value computes it
/// with this too (`trace::concrete_value`): what a function reads is what is differentiated.
pub(crate) fn jvp_eqn(
    prim: &Primitive,
    ins: &[&Array],
    ts: &[Option<Array>],
    avals: &[Aval],
    device: &Device,
    pass: Pass,
) -> Result<(Vec<Array>, Vec<Option<Array>>)> {
    let linearizing = pass != Pass::Forward;
    let custom = match (prim, ts.iter().any(Option::is_some)) {
        (Primitive::CustomJvpCall { call }, true) => Some((call, true)),
        (Primitive::CustomVjpCall { call }, true) => Some((call, false)),
        _ => None,
    };
    if let Some((call, jvp)) = custom {
        check_captured(call, |i| ts[i].is_some())?;
        // A custom_jvp rule gives the outputs too (JAX uses its primal outputs).
        let (outs, touts) = match (jvp, linearizing) {
            (true, _) => custom_jvp(call, ins, ts)?,
            (false, true) => custom_vjp_linearized(call, ins, ts, device, pass == Pass::Read)?,
            (false, false) => return Err(no_forward_mode(call)),
        };
        return Ok((outs, touts.into_iter().map(Some).collect()));
    }
    let floating = avals.iter().any(|a| a.dtype.is_floating());
    let differentiated = floating && ts.iter().any(Option::is_some);
    let own = match differentiated {
        true => jvp_with_outputs(prim, ins, ts)?,
        false => None,
    };
    Ok(match own {
        // The rule's outputs in the primitive's types (its weak flag included).
        Some((outs, touts)) => {
            let outs = avals
                .iter()
                .zip(outs)
                .map(|(o, a)| {
                    debug_assert_eq!(
                        (a.shape(), a.dtype()),
                        (o.shape.as_slice(), o.dtype),
                        "{}'s jvp_with_outputs",
                        prim.name()
                    );
                    a.with_weak(o.weak)
                })
                .collect();
            (outs, touts)
        }
        None => {
            let outs = lax::bind_all(prim.clone(), ins, Some(device))?;
            let touts = match differentiated {
                true => jvp_of(prim, ins, &outs, ts)?,
                false => vec![None; outs.len()],
            };
            (outs, touts)
        }
    })
}

/// A `custom_vjp` call linearized: its forward rule's outputs, and as their tangents a
/// `custom_lin` equation on the operands' tangents, which transposition turns into a call
/// of the backward rule on the saved residuals (JAX's `custom_lin`).
/// (`reading`: the outputs alone, each standing for its tangent, which only a linear trace
/// can compute.)
fn custom_vjp_linearized(
    call: &CustomCall,
    x: &[&Array],
    t: &[Option<Array>],
    device: &Device,
    reading: bool,
) -> Result<(Vec<Array>, Vec<Array>)> {
    let Rules::Vjp { fwd, bwd } = rules_of(call)? else {
        return Err(Error::arg(&call.name, "a custom_vjp call without rules"));
    };
    let ops: Vec<Array> = x.iter().map(|&a| a.clone()).collect();
    let (outs, residuals) = fwd(&ops)?;
    check_types(
        &call.name,
        "forward rule's outputs",
        &outs,
        &call.fun.out_avals(),
    )?;
    if reading {
        return Ok((outs.clone(), outs));
    }
    let lin = Primitive::CustomLin {
        call: CustomCall {
            name: call.name.clone(),
            fun: call.fun.clone(),
            captured: call.captured,
            rules: Arc::new(Rules::Lin {
                bwd: bwd.clone(),
                residuals,
            }),
        },
    };
    let ts = t
        .iter()
        .zip(x)
        .map(|(t, a)| or_zeros(t, a))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Array> = ts.iter().collect();
    let touts = lax::bind_all(lin, &refs, Some(device))?;
    Ok((outs, touts))
}

/// A function linearized at a point (`jax.linearize`, and the residuals `jax.vjp` keeps):
/// its outputs, and the linear map from the active inputs' tangents to the outputs'
/// tangents as a graph whose constants are the residuals. Each backward pass transposes it.
pub(crate) struct Linearized {
    /// The function's name, for errors.
    name: Arc<str>,
    outs: Vec<Array>,
    /// The linear graph: one input per active input, one output per output that has a
    /// tangent.
    linear: Graph,
    residuals: Vec<Array>,
    /// The inputs the linear graph's inputs stand for.
    active: Vec<usize>,
    n_inputs: usize,
    /// Each output's position among the linear graph's outputs (`None`: zero tangent).
    tangent_of: Vec<Option<usize>>,
}

impl Linearized {
    /// Linearizes `graph` at `primals`; derivatives flow from the floating inputs marked in
    /// `active_inputs`. The outputs are computed (or recorded by an enclosing trace) at once;
    /// only the tangent map is traced.
    pub(crate) fn new(
        name: &Arc<str>,
        graph: Graph,
        consts: &[Array],
        primals: &[Array],
        active_inputs: &[bool],
        device: &Device,
    ) -> Result<Linearized> {
        let active: Vec<usize> = (0..primals.len())
            .filter(|&i| active_inputs[i] && primals[i].dtype().is_floating())
            .collect();
        let avals: Vec<Aval> = active.iter().map(|&i| primals[i].aval().clone()).collect();
        let def = TreeDef::list(vec![TreeDef::leaf(); active.len()]);
        let mut outs = Vec::new();
        let mut tangent_of = Vec::new();
        let traced = trace_linear(
            name,
            device,
            &def,
            &avals,
            |ts: Vec<Array>| -> Result<Vec<Array>> {
                let mut tangents: Vec<Option<Array>> = vec![None; primals.len()];
                for (&i, t) in active.iter().zip(ts) {
                    tangents[i] = Some(t);
                }
                let (o, touts) = jvp_interpret(&graph, consts, primals, &tangents, device, true)?;
                outs = o;
                let mut present = Vec::new();
                for t in touts {
                    tangent_of.push(t.map(|t| {
                        present.push(t);
                        present.len() - 1
                    }));
                }
                Ok(present)
            },
        )?;
        // A custom_jvp rule whose outputs use its tangents would hand out the linear
        // trace's values.
        if !outs.iter().all(is_live) {
            return Err(Error::arg(
                name,
                "an output depends on the tangents (a custom_jvp rule's outputs must not use \
                 its tangents, only its tangent outputs may)",
            ));
        }
        Ok(Linearized {
            name: name.clone(),
            outs,
            // A custom call a rule applied to its tangents (under jit, where it is bound
            // as a call) is linear there: its function is transposed in place.
            linear: inline_calls(&traced.graph),
            residuals: traced.consts,
            active,
            n_inputs: primals.len(),
            tangent_of,
        })
    }

    /// The outputs.
    pub(crate) fn outputs(&self) -> Result<Vec<Array>> {
        Ok(self.outs.clone())
    }

    /// The output avals.
    pub(crate) fn out_avals(&self) -> Vec<Aval> {
        self.outs.iter().map(|a| a.aval().clone()).collect()
    }

    /// Forward mode through the linear graph: the outputs' tangents (`None`: zero) for the
    /// inputs' `tangents` (one per input; those of inactive inputs are ignored).
    pub(crate) fn forward(&self, tangents: &[Array]) -> Result<Vec<Option<Array>>> {
        let args: Vec<Array> = self.active.iter().map(|&i| tangents[i].clone()).collect();
        let device = match tangents.first() {
            Some(t) => t.device().clone(),
            None => return Ok(vec![None; self.tangent_of.len()]),
        };
        let env = lax::eval_graph(&self.linear, &self.residuals, &args, &device)?;
        self.tangent_of
            .iter()
            .map(|k| {
                k.map(|k| {
                    let o = self.linear.outvars[k];
                    env[o].clone().ok_or_else(|| missing(o))
                })
                .transpose()
            })
            .collect()
    }

    /// Reverse mode: the cotangents of the inputs (`None`: zero) given the outputs'.
    pub(crate) fn backward(&self, cts_out: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let mut cts = vec![None; self.linear.outvars.len()];
        for (k, c) in self.tangent_of.iter().zip(cts_out) {
            if let (Some(k), Some(c)) = (k, c) {
                cts[*k] = Some(c.clone());
            }
        }
        let cts_in = transpose_graph(&self.name, &self.linear, &self.residuals, &cts)?;
        let mut out = vec![None; self.n_inputs];
        for (&i, c) in self.active.iter().zip(cts_in) {
            out[i] = c;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::Linearized;
    use crate::array::Array;
    use crate::numpy as np;
    use crate::tree::TreeDef;

    /// Linearizing `sin(x) * exp(x)` computes the nonlinear parts (`sin`, `cos`, `exp`) once:
    /// the linear graph holds only multiplications and additions of the tangent by
    /// residuals, and its transpose is the gradient.
    #[test]
    fn the_linear_graph_holds_only_the_tangent_map() {
        let xs = [0.5f32, -1.0, 2.0];
        let x = Array::from_slice(&xs, &[3]).unwrap();
        let device = x.device().clone();
        let def = TreeDef::leaf();
        let traced = crate::trace::trace_fn(
            &std::sync::Arc::from("f"),
            &device,
            &def,
            &[x.aval().clone()],
            |x: Array| np::multiply(np::sin(&x)?, np::exp(&x)?),
        )
        .unwrap();
        let name = std::sync::Arc::from("f");
        let lin =
            Linearized::new(&name, traced.graph, &traced.consts, &[x], &[true], &device).unwrap();
        let prims: Vec<&str> = lin.linear.eqns.iter().map(|e| e.prim.name()).collect();
        assert!(
            prims.iter().all(|p| ["mul", "add"].contains(p)),
            "{prims:?}\n{}",
            lin.linear
        );
        assert!(!lin.residuals.is_empty());
        let ones = Array::from_slice(&[1.0f32; 3], &[3]).unwrap();
        let ct = lin.backward(&[Some(ones)]).unwrap().remove(0).unwrap();
        for (g, v) in ct.to_vec::<f32>().unwrap().iter().zip(xs) {
            let want = (v.cos() + v.sin()) * v.exp();
            assert!(
                (g - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{g} vs {want}"
            );
        }
    }
}

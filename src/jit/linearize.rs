//! The interpreters of automatic differentiation over a traced [`Graph`]: forward mode
//! ([`jvp_graph`]) and reverse mode ([`Linearized`]: the forward pass with every value kept,
//! then any number of backward passes), and the rules of custom calls, which carry their
//! own: `custom_jvp`'s rule in forward mode and transposed in reverse mode, `custom_vjp`'s
//! forward and backward rules in reverse mode.

use super::ad::{add, jvp_rule, or_zeros, vjp_rule, zeros};
use super::custom::{check_types, rules_of, Residuals, Rules};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax::{self, missing};
use crate::primitive::{CustomCall, Graph, Primitive};
use crate::runtime::Device;
use crate::shape::Aval;

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

/// The VJP rule of any primitive but a `custom_vjp` call (whose backward rule needs its
/// forward rule's residuals, which [`Linearized`] keeps): a `custom_jvp` call's rule
/// transposed, else the table's.
pub(crate) fn vjp_of(
    prim: &Primitive,
    x: &[&Array],
    outs: &[Array],
    cts: &[Option<Array>],
    needs: &[bool],
) -> Result<Vec<Option<Array>>> {
    match prim {
        Primitive::CustomJvpCall { call } => custom_jvp_transposed(call, x, cts, needs),
        Primitive::CustomVjpCall { call } => Err(Error::arg(
            &call.name,
            "a custom_vjp call is differentiated with its forward rule's residuals",
        )),
        _ => vjp_rule(prim, x, outs, cts, needs),
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

/// Reverse mode of a `custom_jvp` call: its rule is linear in the tangents, so the VJP of
/// the rule's tangent map (traced at zero tangents) is its transpose, computed with the
/// other primitives' rules.
fn custom_jvp_transposed(
    call: &CustomCall,
    x: &[&Array],
    cts: &[Option<Array>],
    needs: &[bool],
) -> Result<Vec<Option<Array>>> {
    let active: Vec<usize> = (0..x.len())
        .filter(|&i| needs[i] && x[i].dtype().is_floating())
        .collect();
    let mut out = vec![None; x.len()];
    if active.is_empty() || cts.iter().all(Option::is_none) {
        return Ok(out);
    }
    let device = x[active[0]].device().clone();
    let at_zero = active
        .iter()
        .map(|&i| zeros(x[i].aval(), x[i].device()))
        .collect::<Result<Vec<_>>>()?;
    let def = crate::tree::TreeDef::list(vec![crate::tree::TreeDef::leaf(); at_zero.len()]);
    let avals: Vec<Aval> = at_zero.iter().map(|a| a.aval().clone()).collect();
    let traced = crate::trace::trace_fn(&call.name, &device, &def, &avals, |ts: Vec<Array>| {
        let mut all: Vec<Option<Array>> = vec![None; x.len()];
        for (k, &i) in active.iter().enumerate() {
            all[i] = Some(ts[k].clone());
        }
        Ok(custom_jvp(call, x, &all)?.1)
    })?;
    let lin = Linearized::new(
        traced.graph,
        &traced.consts,
        &at_zero,
        &vec![true; active.len()],
        &device,
    )?;
    for (k, c) in active.iter().zip(lin.backward(cts)?) {
        out[*k] = c;
    }
    Ok(out)
}

/// Which variables carry derivatives: floating values that depend on an active input.
fn activity(graph: &Graph, active_inputs: &[bool]) -> Vec<bool> {
    let mut active = vec![false; graph.avals.len()];
    for (&v, &a) in graph.invars.iter().zip(active_inputs) {
        active[v] = a && graph.avals[v].dtype.is_floating();
    }
    for e in &graph.eqns {
        let from_inputs = e.inputs.iter().any(|&i| active[i]);
        for &o in &e.outs {
            active[o] = from_inputs && graph.avals[o].dtype.is_floating();
        }
    }
    active
}

/// Forward mode: the outputs of `graph` and their tangents (`None`: zero).
pub(crate) fn jvp_graph(
    graph: &Graph,
    consts: &[Array],
    primals: &[Array],
    tangents: &[Option<Array>],
    device: &Device,
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
        if let (Primitive::CustomJvpCall { call }, true) = (&e.prim, ts.iter().any(Option::is_some))
        {
            check_captured(call, |i| ts[i].is_some())?;
            // The rule gives the outputs too (JAX's custom_jvp uses its primal outputs).
            let (outs, touts) = custom_jvp(call, &ins, &ts)?;
            for ((&o, a), t) in e.outs.iter().zip(outs).zip(touts) {
                if graph.avals[o].dtype.is_floating() {
                    tan[o] = Some(t);
                }
                val[o] = Some(a);
            }
            continue;
        }
        let outs = lax::bind_all(e.prim.clone(), &ins, Some(device))?;
        let floating = e.outs.iter().any(|&o| graph.avals[o].dtype.is_floating());
        if floating && ts.iter().any(Option::is_some) {
            let touts = jvp_of(&e.prim, &ins, &outs, &ts)?;
            for (&o, t) in e.outs.iter().zip(touts) {
                if graph.avals[o].dtype.is_floating() {
                    tan[o] = t;
                }
            }
        }
        for (&o, a) in e.outs.iter().zip(outs) {
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

/// A graph evaluated forward with every intermediate value kept, ready for any number of
/// backward passes (`jax.vjp`'s residuals).
pub(crate) struct Linearized {
    graph: Graph,
    env: Vec<Option<Array>>,
    active: Vec<bool>,
    /// The residuals of each `custom_vjp` call's forward rule, by equation.
    residuals: Vec<Option<Residuals>>,
}

impl Linearized {
    /// Evaluates `graph` forward; derivatives flow from the inputs marked in `active_inputs`.
    pub(crate) fn new(
        graph: Graph,
        consts: &[Array],
        primals: &[Array],
        active_inputs: &[bool],
        device: &Device,
    ) -> Result<Linearized> {
        let active = activity(&graph, active_inputs);
        let mut env: Vec<Option<Array>> = vec![None; graph.avals.len()];
        for (&v, a) in graph.constvars.iter().zip(consts) {
            env[v] = Some(a.clone());
        }
        for (&v, a) in graph.invars.iter().zip(primals) {
            env[v] = Some(a.clone());
        }
        let mut residuals: Vec<Option<Residuals>> = vec![None; graph.eqns.len()];
        for (k, e) in graph.eqns.iter().enumerate() {
            let ins = e
                .inputs
                .iter()
                .map(|&i| env[i].as_ref().ok_or_else(|| missing(i)))
                .collect::<Result<Vec<&Array>>>()?;
            let live = e.inputs.iter().any(|&i| active[i]);
            let outs = match &e.prim {
                // The rule's primal outputs are the outputs, as under jvp (and in JAX).
                Primitive::CustomJvpCall { call } if live => {
                    check_captured(call, |i| active[e.inputs[i]])?;
                    custom_jvp(call, &ins, &vec![None; ins.len()])?.0
                }
                // A custom VJP runs its forward rule, keeping its residuals.
                Primitive::CustomVjpCall { call } if live => {
                    check_captured(call, |i| active[e.inputs[i]])?;
                    let Rules::Vjp { fwd, .. } = rules_of(call)? else {
                        return Err(Error::arg(&call.name, "a custom_vjp call without rules"));
                    };
                    let ops: Vec<Array> = ins.iter().map(|&a| a.clone()).collect();
                    let (outs, res) = fwd(&ops)?;
                    let want = call.fun.out_avals();
                    check_types(&call.name, "forward rule's outputs", &outs, &want)?;
                    residuals[k] = Some(res);
                    outs
                }
                _ => lax::bind_all(e.prim.clone(), &ins, Some(device))?,
            };
            for (&o, a) in e.outs.iter().zip(outs) {
                env[o] = Some(a);
            }
        }
        Ok(Linearized {
            graph,
            env,
            active,
            residuals,
        })
    }

    /// The outputs.
    pub(crate) fn outputs(&self) -> Result<Vec<Array>> {
        self.graph
            .outvars
            .iter()
            .map(|&o| self.env[o].clone().ok_or_else(|| missing(o)))
            .collect()
    }

    /// The output avals.
    pub(crate) fn out_avals(&self) -> Vec<Aval> {
        self.graph.out_avals()
    }

    /// Reverse mode: the cotangents of the inputs (`None`: zero) given the outputs'.
    pub(crate) fn backward(&self, cts_out: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let g = &self.graph;
        let mut ct: Vec<Option<Array>> = vec![None; g.avals.len()];
        let accumulate = |slot: &mut Option<Array>, c: Array| -> Result<()> {
            *slot = Some(match slot.take() {
                None => c,
                Some(prev) => add(&prev, &c)?,
            });
            Ok(())
        };
        for (&o, c) in g.outvars.iter().zip(cts_out) {
            if let (Some(c), true) = (c, self.active[o]) {
                accumulate(&mut ct[o], c.clone())?;
            }
        }
        for (k, e) in g.eqns.iter().enumerate().rev() {
            let c: Vec<Option<Array>> = e
                .outs
                .iter()
                .map(|&o| ct[o].take().filter(|_| self.active[o]))
                .collect();
            if c.iter().all(Option::is_none) {
                continue;
            }
            let ins = e
                .inputs
                .iter()
                .map(|&i| self.env[i].as_ref().ok_or_else(|| missing(i)))
                .collect::<Result<Vec<&Array>>>()?;
            let outs = e
                .outs
                .iter()
                .map(|&o| self.env[o].clone().ok_or_else(|| missing(o)))
                .collect::<Result<Vec<Array>>>()?;
            let needs: Vec<bool> = e.inputs.iter().map(|&i| self.active[i]).collect();
            let cts = match (&e.prim, &self.residuals[k]) {
                (Primitive::CustomVjpCall { call }, Some(res)) => {
                    let Rules::Vjp { bwd, .. } = rules_of(call)? else {
                        return Err(Error::arg(&call.name, "a custom_vjp call without rules"));
                    };
                    let full = c
                        .iter()
                        .zip(&outs)
                        .map(|(c, o)| or_zeros(c, o))
                        .collect::<Result<Vec<_>>>()?;
                    let cts = bwd(res, &full)?;
                    let got: Vec<Array> = cts.iter().flatten().cloned().collect();
                    let want: Vec<Aval> = cts
                        .iter()
                        .zip(&ins)
                        .filter(|(c, _)| c.is_some())
                        .map(|(_, a)| a.aval().clone())
                        .collect();
                    check_types(&call.name, "backward rule's cotangents", &got, &want)?;
                    cts
                }
                _ => vjp_of(&e.prim, &ins, &outs, &c, &needs)?,
            };
            for (&i, ci) in e.inputs.iter().zip(cts) {
                if let (Some(ci), true) = (ci, self.active[i]) {
                    accumulate(&mut ct[i], ci)?;
                }
            }
        }
        Ok(g.invars.iter().map(|&v| ct[v].take()).collect())
    }
}

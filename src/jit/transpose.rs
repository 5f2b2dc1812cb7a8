//! Transposition: the transpose rule trait (each primitive's rule is in its family's file
//! under `prims/`), and the interpreter that runs a linear graph backwards (JAX's
//! `backward_pass`).
//!
//! Reverse mode is forward mode plus transposition, as in JAX: linearization
//! (`linearize.rs`) traces the JVP rules' tangent map into a linear graph whose constants are
//! the residuals, and [`transpose_graph`] maps the outputs' cotangents back to the inputs'.
//! So a primitive needs no reverse-mode rule of its own; only the primitives its JVP rules
//! apply to tangents (`mul` by a known factor, `add`, `neg`, `select` with a known
//! predicate, the structural ones, `gather`, `scatter`, ...) need a real transpose rule.

use super::ad::{add, zeros};
use super::custom::{check_types, rules_of, Rules};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{with_params, Graph, Primitive};
use crate::shape::Aval;

/// An operand of an equation of a linear graph: linear (a tangent, known only by its type)
/// or known (a residual, with its value).
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    Linear(&'a Aval),
    Known(&'a Array),
}

impl Operand<'_> {
    pub(crate) fn aval(&self) -> &Aval {
        match self {
            Operand::Linear(a) => a,
            Operand::Known(a) => a.aval(),
        }
    }

    pub(crate) fn shape(&self) -> &[usize] {
        &self.aval().shape
    }

    pub(crate) fn is_linear(&self) -> bool {
        matches!(self, Operand::Linear(_))
    }

    pub(crate) fn known(&self) -> Option<&Array> {
        match self {
            Operand::Known(a) => Some(a),
            Operand::Linear(_) => None,
        }
    }
}

/// The error for a primitive applied to a tangent in a way that is not linear (a JVP rule,
/// or a custom rule, that is not linear in the tangents).
fn not_linear(func: &str, prim: &Primitive, k: usize) -> Error {
    Error::arg(
        func,
        format!(
            "reverse mode cannot transpose {}: it is not linear in its operand {k}, which \
             depends on the tangents (a custom_jvp rule must be linear in its tangents)",
            prim.name()
        ),
    )
}

/// What a transpose rule sees of its equation: the operands (linear or known) and, for
/// errors, the function being differentiated and the primitive.
pub(crate) struct Transposing<'a> {
    /// The function being differentiated (errors name it).
    pub(crate) func: &'a str,
    /// The primitive transposed.
    pub(crate) prim: &'a Primitive,
    /// Its operands.
    pub(crate) x: &'a [Operand<'a>],
}

impl Transposing<'_> {
    /// Whether operand `k` is linear (depends on the tangents).
    pub(crate) fn lin(&self, k: usize) -> bool {
        self.x[k].is_linear()
    }

    /// The value of operand `k`, which a rule linear in another operand needs known.
    pub(crate) fn known(&self, k: usize) -> Result<&Array> {
        self.x[k].known().ok_or_else(|| self.not_linear(k))
    }

    /// An error unless `k` is the only linear operand (for a primitive linear in each
    /// operand separately, as `mul` is).
    pub(crate) fn only_linear(&self, k: usize) -> Result<()> {
        match (0..self.x.len()).find(|&j| j != k && self.lin(j)) {
            Some(j) => Err(self.not_linear(j)),
            None => Ok(()),
        }
    }

    /// The error for operand `k` used as if the primitive were linear in it.
    pub(crate) fn not_linear(&self, k: usize) -> Error {
        not_linear(self.func, self.prim, k)
    }

    /// The error of a primitive that is not linear (its first linear operand named): a JVP
    /// rule applied it to a tangent.
    pub(crate) fn nonlinear(&self) -> Error {
        let k = (0..self.x.len()).find(|&k| self.lin(k)).unwrap_or(0);
        self.not_linear(k)
    }

    /// No cotangent for any operand yet (a rule fills the linear ones).
    pub(crate) fn none(&self) -> Vec<Option<Array>> {
        vec![None; self.x.len()]
    }
}

/// The transpose rule of one primitive, implemented by its view (`primitive::params`) in
/// its family's file under `prims/`: the cotangents of the operands (`None` for known
/// operands, or for a zero cotangent) given the cotangent `ct` of its output. A primitive
/// that is not linear gives [`Transposing::nonlinear`]: only what JVP rules apply to
/// tangents needs a real rule.
pub(crate) trait TransposeRule {
    /// The operands' cotangents.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>>;
}

/// The cotangents of `prim`'s linear operands (`None` for known ones, or for a zero
/// cotangent) given the cotangents `cts` of its outputs (`None`: zero), by its
/// [`TransposeRule`]. Errors name `func`, the function being differentiated.
pub(crate) fn transpose_rule(
    func: &str,
    prim: &Primitive,
    x: &[Operand],
    cts: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    let cx = Transposing { func, prim, x };
    match cts {
        _ if cts.iter().all(Option::is_none) => Ok(cx.none()),
        [Some(ct)] => with_params!(prim, p => p.transpose(&cx, ct)),
        // Of the primitives with several outputs only custom_lin is linear, and
        // transpose_graph transposes it by its backward rule.
        _ => Err(cx.not_linear(0)),
    }
}

/// Runs the linear `graph` (of the function `func`) backwards: the cotangents of its inputs
/// (`None`: zero) given its outputs' (`cts_out`, `None`: zero). Its constants (`consts`, the residuals) are known,
/// and so is what is computed from them alone; the other values are linear in the inputs.
pub(crate) fn transpose_graph(
    func: &str,
    graph: &Graph,
    consts: &[Array],
    cts_out: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    let n = graph.avals.len();
    let mut known: Vec<Option<Array>> = vec![None; n];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        known[v] = Some(a.clone());
    }
    // Equations on known values only (the constants of a custom function inlined into the
    // graph) are evaluated first, as JAX's backward pass does.
    let mut linear_eqns = Vec::with_capacity(graph.eqns.len());
    for e in &graph.eqns {
        if e.inputs.iter().all(|&i| known[i].is_some()) {
            let ins: Vec<&Array> = e.inputs.iter().filter_map(|&i| known[i].as_ref()).collect();
            let device = ins.first().map(|a| a.device().clone());
            for (&o, a) in e
                .outs
                .iter()
                .zip(lax::bind_all(e.prim.clone(), &ins, device.as_ref())?)
            {
                known[o] = Some(a);
            }
        } else {
            linear_eqns.push(e);
        }
    }
    let mut ct: Vec<Option<Array>> = vec![None; n];
    let accumulate = |slot: &mut Option<Array>, c: Array| -> Result<()> {
        *slot = Some(match slot.take() {
            None => c,
            Some(prev) => add(&prev, &c)?,
        });
        Ok(())
    };
    for (&o, c) in graph.outvars.iter().zip(cts_out) {
        if let (Some(c), None) = (c, &known[o]) {
            accumulate(&mut ct[o], c.clone())?;
        }
    }
    for e in linear_eqns.into_iter().rev() {
        let cts: Vec<Option<Array>> = e.outs.iter().map(|&o| ct[o].take()).collect();
        if cts.iter().all(Option::is_none) {
            continue;
        }
        let x: Vec<Operand> = e
            .inputs
            .iter()
            .map(|&i| match &known[i] {
                Some(a) => Operand::Known(a),
                None => Operand::Linear(&graph.avals[i]),
            })
            .collect();
        let cts_in = match &e.prim {
            Primitive::CustomLin { .. } => custom_lin_transpose(&e.prim, &x, &cts)?,
            _ => transpose_rule(func, &e.prim, &x, &cts)?,
        };
        for ((&i, c), op) in e.inputs.iter().zip(cts_in).zip(&x) {
            if let (Some(c), true) = (c, op.is_linear()) {
                accumulate(&mut ct[i], c)?;
            }
        }
    }
    Ok(graph.invars.iter().map(|&v| ct[v].take()).collect())
}

/// The transpose of a linearized `custom_vjp` call: its backward rule on the residuals and
/// the outputs' cotangents (zeros where `None`).
fn custom_lin_transpose(
    prim: &Primitive,
    x: &[Operand],
    cts: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    let Primitive::CustomLin { call } = prim else {
        return Err(Error::arg(prim.name(), "is not a custom_lin"));
    };
    let Rules::Lin { bwd, residuals } = rules_of(call)? else {
        return Err(Error::arg(
            &call.name,
            "a custom_lin without a backward rule",
        ));
    };
    let want = call.fun.out_avals();
    let device = cts.iter().flatten().next().map(|c| c.device().clone());
    let full = cts
        .iter()
        .zip(&want)
        .map(|(c, w)| match (c, &device) {
            (Some(c), _) => Ok(c.clone()),
            (None, Some(d)) => zeros(w, d),
            (None, None) => Err(Error::arg(&call.name, "no cotangent")),
        })
        .collect::<Result<Vec<_>>>()?;
    let cts_in = bwd(residuals, &full)?;
    let got: Vec<Array> = cts_in.iter().flatten().cloned().collect();
    let want: Vec<Aval> = cts_in
        .iter()
        .zip(x)
        .filter(|(c, _)| c.is_some())
        .map(|(_, a)| a.aval().clone())
        .collect();
    check_types(&call.name, "backward rule's cotangents", &got, &want)?;
    Ok(cts_in)
}

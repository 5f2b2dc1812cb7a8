//! The typed graph that traces record and transformations rewrite: variables with
//! abstract values (shape, dtype, weak flag) and equations of several outputs, in JAX's
//! jaxpr style.
//!
//! The graph is generic over its equations' operation so that this file does not name the
//! primitive table: the table (the parent module) holds graphs in primitives that carry a
//! sub-graph (a loop body, a branch) as [`Graph`](super::Graph), this file's `Graph` of
//! [`Primitive`](super::Primitive)s, and neither file imports the other back.

use std::fmt;

use crate::error::{Error, Result};
use crate::shape::{fmt_aval, Aval};

/// What a graph needs of an equation's operation: its name, its parameters for printing,
/// and its shape/dtype rule.
pub trait Operation: Clone + fmt::Debug {
    /// The name, as JAX spells it.
    fn name(&self) -> &'static str;
    /// The parameters as printed after the name (`[axes=(0,)]`), or empty.
    fn params(&self) -> String;
    /// The abstract values of the outputs for operands of types `inputs`.
    fn out_avals(&self, inputs: &[Aval]) -> Result<Vec<Aval>>;
}

/// One equation: `outs... = prim(inputs...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Eqn<P> {
    pub(crate) prim: P,
    pub(crate) inputs: Vec<usize>,
    pub(crate) outs: Vec<usize>,
}

impl<P> Eqn<P> {
    /// The first output (the only one of most primitives).
    pub(crate) fn out(&self) -> usize {
        self.outs[0]
    }
}

/// A traced function as a graph. Variables are numbered in definition order; `avals[v]` is
/// the type of variable `v`. Constants are arrays the function captured (closed-over arrays
/// and host scalars); they are passed to the compiled function like inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph<P> {
    pub(crate) avals: Vec<Aval>,
    pub(crate) invars: Vec<usize>,
    pub(crate) constvars: Vec<usize>,
    pub(crate) eqns: Vec<Eqn<P>>,
    pub(crate) outvars: Vec<usize>,
}

impl<P> Default for Graph<P> {
    fn default() -> Self {
        Graph {
            avals: Vec::new(),
            invars: Vec::new(),
            constvars: Vec::new(),
            eqns: Vec::new(),
            outvars: Vec::new(),
        }
    }
}

impl<P: Operation> Graph<P> {
    /// A new variable of type `aval`.
    pub(crate) fn new_var(&mut self, aval: Aval) -> usize {
        self.avals.push(aval);
        self.avals.len() - 1
    }

    /// Appends `outs... = prim(inputs...)` with new output variables of types `out_avals`,
    /// returning them.
    pub(crate) fn push_eqn(
        &mut self,
        prim: P,
        inputs: Vec<usize>,
        out_avals: &[Aval],
    ) -> Vec<usize> {
        let outs: Vec<usize> = out_avals.iter().map(|a| self.new_var(a.clone())).collect();
        self.eqns.push(Eqn {
            prim,
            inputs,
            outs: outs.clone(),
        });
        outs
    }

    /// Number of equations.
    pub fn num_eqns(&self) -> usize {
        self.eqns.len()
    }

    /// The abstract values of the inputs, in order.
    pub fn in_avals(&self) -> Vec<Aval> {
        self.invars.iter().map(|&v| self.avals[v].clone()).collect()
    }

    /// The abstract values of the outputs, in order.
    pub fn out_avals(&self) -> Vec<Aval> {
        self.outvars
            .iter()
            .map(|&v| self.avals[v].clone())
            .collect()
    }

    /// Checks that the graph is well formed: every variable is defined once before use,
    /// and every equation's recorded types are what its primitive's shape/dtype rule gives.
    pub(crate) fn verify(&self) -> Result<()> {
        let bad = |reason: String| Error::Tracing {
            func: "jit (graph verifier)".into(),
            traced: "the traced function".into(),
            reason,
        };
        let mut defined = vec![false; self.avals.len()];
        for &v in self.invars.iter().chain(&self.constvars) {
            if v >= defined.len() || std::mem::replace(&mut defined[v], true) {
                return Err(bad(format!(
                    "input variable {} is defined twice",
                    var_name(v)
                )));
            }
        }
        for e in &self.eqns {
            for &i in &e.inputs {
                if i >= defined.len() || !defined[i] {
                    return Err(bad(format!(
                        "{} uses {} before it is defined",
                        e.prim.name(),
                        var_name(i)
                    )));
                }
            }
            for &o in &e.outs {
                if o >= defined.len() || std::mem::replace(&mut defined[o], true) {
                    return Err(bad(format!("{} is defined twice", var_name(o))));
                }
            }
            let avals: Vec<Aval> = e.inputs.iter().map(|&i| self.avals[i].clone()).collect();
            let want = e.prim.out_avals(&avals)?;
            let got: Vec<Aval> = e.outs.iter().map(|&o| self.avals[o].clone()).collect();
            if want != got {
                let show = |avals: &[Aval]| -> String {
                    avals.iter().map(fmt_aval).collect::<Vec<_>>().join(" ")
                };
                let names: Vec<String> = e.outs.iter().map(|&o| var_name(o)).collect();
                return Err(bad(format!(
                    "{} = {} records types {} but its rule gives {}",
                    names.join(" "),
                    e.prim.name(),
                    show(&got),
                    show(&want)
                )));
            }
        }
        for &o in &self.outvars {
            if o >= defined.len() || !defined[o] {
                return Err(bad(format!("output {} is never defined", var_name(o))));
            }
        }
        Ok(())
    }
}

/// Variable names: a..z, then ba, bb, ... (JAX's scheme).
pub(crate) fn var_name(mut v: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (v % 26) as u8);
        v /= 26;
        if v == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

impl<P: Operation> fmt::Display for Graph<P> {
    /// The jaxpr-style form:
    ///
    /// ```text
    /// { lambda c:f32[]; a:f32[3] b:f32[3]. let
    ///     d:f32[3] = mul a b
    ///   in (d) }
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let decl = |vs: &[usize]| -> String {
            vs.iter()
                .map(|&v| format!("{}:{}", var_name(v), fmt_aval(&self.avals[v])))
                .collect::<Vec<_>>()
                .join(" ")
        };
        write!(f, "{{ lambda ")?;
        if !self.constvars.is_empty() {
            write!(f, "{}; ", decl(&self.constvars))?;
        }
        writeln!(f, "{}. let", decl(&self.invars))?;
        for e in &self.eqns {
            let args: Vec<String> = e.inputs.iter().map(|&i| var_name(i)).collect();
            let outs: Vec<String> = e
                .outs
                .iter()
                .map(|&o| format!("{}:{}", var_name(o), fmt_aval(&self.avals[o])))
                .collect();
            writeln!(
                f,
                "    {} = {}{} {}",
                outs.join(" "),
                e.prim.name(),
                e.prim.params(),
                args.join(" ")
            )?;
        }
        let outs: Vec<String> = self.outvars.iter().map(|&o| var_name(o)).collect();
        write!(f, "  in ({}) }}", outs.join(", "))
    }
}

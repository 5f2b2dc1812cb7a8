//! The typed graph `jit` traces into: variables with abstract values (shape, dtype, weak
//! flag) and equations of [`Primitive`]s, in JAX's jaxpr style.

use std::fmt;

use crate::error::{Error, Result};
use crate::primitive::Primitive;
use crate::shape::{fmt_aval, Aval};

/// One equation: `out = prim(inputs...)`.
#[derive(Clone, Debug)]
pub(crate) struct Eqn {
    pub(crate) prim: Primitive,
    pub(crate) inputs: Vec<usize>,
    pub(crate) out: usize,
}

/// A traced function as a graph. Variables are numbered in definition order; `avals[v]` is
/// the type of variable `v`. Constants are arrays the function captured (closed-over arrays
/// and host scalars); they are passed to the compiled function like inputs.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub(crate) avals: Vec<Aval>,
    pub(crate) invars: Vec<usize>,
    pub(crate) constvars: Vec<usize>,
    pub(crate) eqns: Vec<Eqn>,
    pub(crate) outvars: Vec<usize>,
}

impl Graph {
    /// A new variable of type `aval`.
    pub(crate) fn new_var(&mut self, aval: Aval) -> usize {
        self.avals.push(aval);
        self.avals.len() - 1
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
    /// and every equation's recorded type is what its primitive's shape/dtype rule gives.
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
            if e.out >= defined.len() || std::mem::replace(&mut defined[e.out], true) {
                return Err(bad(format!("{} is defined twice", var_name(e.out))));
            }
            let avals: Vec<Aval> = e.inputs.iter().map(|&i| self.avals[i].clone()).collect();
            let want = e.prim.abstract_eval(&avals)?;
            if want != self.avals[e.out] {
                return Err(bad(format!(
                    "{} = {} records type {} but its rule gives {}",
                    var_name(e.out),
                    e.prim.name(),
                    fmt_aval(&self.avals[e.out]),
                    fmt_aval(&want)
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

/// A primitive's parameters for printing (`[axes=(0,)]`), empty for plain elementwise ops.
fn params(p: &Primitive) -> String {
    let dbg = format!("{p:?}");
    match dbg.find(['{', '(']) {
        Some(i)
            if !matches!(
                p,
                Primitive::Unary(_) | Primitive::Binary(_) | Primitive::Compare(_)
            ) =>
        {
            format!("[{}]", dbg[i + 1..dbg.len() - 1].trim())
        }
        _ => String::new(),
    }
}

impl fmt::Display for Graph {
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
            writeln!(
                f,
                "    {}:{} = {}{} {}",
                var_name(e.out),
                fmt_aval(&self.avals[e.out]),
                e.prim.name(),
                params(&e.prim),
                args.join(" ")
            )?;
        }
        let outs: Vec<String> = self.outvars.iter().map(|&o| var_name(o)).collect();
        write!(f, "  in ({}) }}", outs.join(", "))
    }
}

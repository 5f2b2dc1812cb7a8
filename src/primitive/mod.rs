//! The primitives: the table (`table.rs`: the `Primitive` enum, each variant's parameter
//! view, `with_params!` and the `ShapeRule` trait), the operations' parameter types
//! (`ops.rs`), the typed graph of primitives that traces record (`graph.rs`), and the
//! conveniences over the shape rules here. Each primitive's rules are in its family's file
//! under `prims/`.

mod graph;
mod ops;
mod table;

pub(crate) use graph::var_name;
pub use graph::Operation;
pub use ops::{
    BinaryOp, CompareOp, CumulativeOp, Literal, ReduceOp, ScatterMode, ThreefryOutput, UnaryOp,
};
pub(crate) use table::Eqn;
pub(crate) use table::{params, with_params, ShapeRule};
pub use table::{CustomCall, Graph, Primitive};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Aval;

impl Primitive {
    /// The name errors give: a call's function name, else the primitive's.
    pub(crate) fn error_name(&self) -> &str {
        match self {
            Primitive::CustomJvpCall { call }
            | Primitive::CustomVjpCall { call }
            | Primitive::CustomLin { call } => &call.name,
            _ => self.name(),
        }
    }

    /// Number of operands (`usize::MAX` for variadic primitives).
    pub(crate) fn arity(&self) -> usize {
        with_params!(self, p => p.arity())
    }

    /// The shape/dtype rule of a single-output primitive: the abstract value of its output
    /// (an error for a primitive of several outputs: [`Primitive::abstract_eval_all`]).
    pub fn abstract_eval(&self, inputs: &[Aval]) -> Result<Aval> {
        let mut outs = self.abstract_eval_all(inputs)?;
        match outs.len() {
            1 => Ok(outs.remove(0)),
            n => Err(Error::arg(
                self.name(),
                format!("has {n} outputs, not one (bind it with `bind_all`)"),
            )),
        }
    }

    /// The number of outputs (one for most primitives).
    pub fn num_outputs(&self) -> usize {
        with_params!(self, p => p.num_outputs())
    }

    /// The shape/dtype rule: the abstract values of the outputs, or an error naming the
    /// primitive, the shapes and the dtypes. Checks the operand count, then applies the
    /// primitive's `ShapeRule` (in its family's file under `prims/`).
    pub fn abstract_eval_all(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let arity = self.arity();
        let variadic = arity == usize::MAX;
        if (variadic && inputs.is_empty()) || (!variadic && inputs.len() != arity) {
            return Err(Error::arg(
                self.name(),
                if variadic {
                    "takes at least one operand".to_string()
                } else {
                    format!("takes {arity} operands, got {}", inputs.len())
                },
            ));
        }
        with_params!(self, p => p.abstract_eval(inputs))
    }

    /// The parameters as the jaxpr listing prints them (`[axes=(0,)]`), empty for plain
    /// elementwise ops.
    fn params_text(&self) -> String {
        if let Primitive::CustomJvpCall { call }
        | Primitive::CustomVjpCall { call }
        | Primitive::CustomLin { call } = self
        {
            return format!("[{call:?}]");
        }
        let dbg = format!("{self:?}");
        match dbg.find(['{', '(']) {
            Some(i)
                if !matches!(
                    self,
                    Primitive::Unary(_) | Primitive::Binary(_) | Primitive::Compare(_)
                ) =>
            {
                format!("[{}]", dbg[i + 1..dbg.len() - 1].trim())
            }
            _ => String::new(),
        }
    }
}

impl Operation for Primitive {
    fn name(&self) -> &'static str {
        Primitive::name(self)
    }

    fn params(&self) -> String {
        self.params_text()
    }

    fn out_avals(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        self.abstract_eval_all(inputs)
    }
}

impl CustomCall {
    /// The outputs' types, after checking the operands against the graph's inputs.
    pub(crate) fn out_avals(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let want = self.fun.in_avals();
        let same = inputs
            .iter()
            .zip(&want)
            .all(|(a, w)| a.shape == w.shape && a.dtype == w.dtype);
        if !same {
            let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape.as_slice()).collect();
            let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
            return Err(Error::shape(
                &self.name,
                &shapes,
                format!(
                    "operands of dtypes {dtypes:?} do not match the traced function's inputs {}",
                    want.iter()
                        .map(crate::shape::fmt_aval)
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            ));
        }
        Ok(self.fun.out_avals())
    }

    /// A call of `sin` on float32[2, 3] with no rules, for the table's examples.
    #[cfg(test)]
    pub(crate) fn example() -> CustomCall {
        let mut g = Graph::default();
        let x = g.new_var(Aval::new(vec![2, 3], DType::Float32, false));
        g.invars.push(x);
        let out = g.push_eqn(
            Primitive::Unary(UnaryOp::Sin),
            vec![x],
            &[Aval::new(vec![2, 3], DType::Float32, false)],
        );
        g.outvars = out;
        CustomCall {
            name: std::sync::Arc::from("example"),
            fun: std::sync::Arc::new(g),
            captured: 0,
            rules: std::sync::Arc::new(()),
        }
    }
}

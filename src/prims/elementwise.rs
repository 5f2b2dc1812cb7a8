//! Elementwise arithmetic: unary and binary functions, comparisons, `select`, `fma`,
//! dtype conversion and copies. All lower to one expression of the fused kernel.

use super::{all_weak, same_dtypes, same_shapes};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::params::{
    Binary, Compare, ConvertElementType, Copy as CopyP, Fma, Select, Unary,
};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{BinaryOp, CompareOp, Primitive, UnaryOp};
use crate::shape::Aval;

impl ShapeRule for Unary<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let x = &inputs[0];
        let op = self.op;
        if !op.accepts().ok(x.dtype) {
            return Err(Error::dtype(
                op.name(),
                &[x.dtype],
                format!("accepts {}", op.accepts().describe()),
            ));
        }
        // Predicates (isnan, ...) give bool, never weak.
        Ok(vec![if op.is_predicate() {
            Aval::new(x.shape.clone(), DType::Bool, false)
        } else {
            Aval::new(x.shape.clone(), x.dtype, x.weak)
        }])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        UnaryOp::ALL.iter().map(|&o| Primitive::Unary(o)).collect()
    }
}

impl ShapeRule for Binary<'_> {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let name = self.op.name();
        same_shapes(name, inputs)?;
        same_dtypes(name, inputs)?;
        let x = &inputs[0];
        if !self.op.accepts().ok(x.dtype) {
            return Err(Error::dtype(
                name,
                &[x.dtype],
                format!("accepts {}", self.op.accepts().describe()),
            ));
        }
        Ok(vec![Aval::new(x.shape.clone(), x.dtype, all_weak(inputs))])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        BinaryOp::ALL.iter().map(|&o| Primitive::Binary(o)).collect()
    }
}

impl ShapeRule for Compare<'_> {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let name = self.op.name();
        same_shapes(name, inputs)?;
        same_dtypes(name, inputs)?;
        Ok(vec![Aval::new(inputs[0].shape.clone(), DType::Bool, false)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        CompareOp::ALL.iter().map(|&o| Primitive::Compare(o)).collect()
    }
}

impl ShapeRule for Select {
    fn arity(&self) -> usize {
        3
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (p, x, y) = (&inputs[0], &inputs[1], &inputs[2]);
        same_shapes("select", inputs)?;
        if p.dtype != DType::Bool || x.dtype != y.dtype {
            return Err(Error::dtype(
                "select",
                &[p.dtype, x.dtype, y.dtype],
                "needs a bool predicate and two cases of one dtype",
            ));
        }
        Ok(vec![Aval::new(x.shape.clone(), x.dtype, x.weak && y.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Select]
    }
}

impl ShapeRule for Fma {
    fn arity(&self) -> usize {
        3
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        same_shapes("fma", inputs)?;
        if inputs.iter().any(|a| a.dtype != inputs[0].dtype) || !inputs[0].dtype.is_floating() {
            let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
            return Err(Error::dtype(
                "fma",
                &dtypes,
                "needs three operands of one floating dtype",
            ));
        }
        let x = &inputs[0];
        Ok(vec![Aval::new(x.shape.clone(), x.dtype, all_weak(inputs))])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Fma]
    }
}

impl ShapeRule for ConvertElementType<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        Ok(vec![Aval::new(
            inputs[0].shape.clone(),
            *self.dtype,
            *self.weak,
        )])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        DType::ALL
            .iter()
            .map(|&dtype| Primitive::ConvertElementType { dtype, weak: false })
            .collect()
    }
}

impl ShapeRule for CopyP {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        Ok(vec![inputs[0].clone()])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Copy]
    }
}

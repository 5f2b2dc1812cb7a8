//! Reductions over axes (`reduce_sum`, ..., `argmax`/`argmin`) and cumulative sums and
//! products along one axis, each with its own kernels (`lax/eval/reduce.rs`,
//! `codegen/cumulative.rs`).

use super::int32_positions;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::params::{ArgReduce, Cumulative, Reduce};
use crate::primitive::{ReduceOp, ShapeRule};
#[cfg(test)]
use crate::primitive::{CumulativeOp, Primitive};
use crate::shape::Aval;

impl ShapeRule for Reduce<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, axes, name) = (&inputs[0], self.axes, self.op.name());
        let mut seen = vec![false; x.shape.len()];
        if !axes
            .iter()
            .all(|&a| a < seen.len() && !std::mem::replace(&mut seen[a], true))
        {
            return Err(Error::shape(
                name,
                &[&x.shape],
                format!("axes {axes:?} are out of range or repeated"),
            ));
        }
        let logical = matches!(self.op, ReduceOp::And | ReduceOp::Or);
        if logical != (x.dtype == DType::Bool) {
            return Err(Error::dtype(
                name,
                &[x.dtype],
                "and/or reduce bool arrays; sum, prod, max and min reduce numbers",
            ));
        }
        let shape = (0..x.shape.len())
            .filter(|i| !axes.contains(i))
            .map(|i| x.shape[i])
            .collect();
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Reduce {
            op: ReduceOp::Sum,
            axes: vec![0],
        }]
    }
}

impl ShapeRule for ArgReduce<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, axis) = (&inputs[0], *self.axis);
        let name = if *self.max { "argmax" } else { "argmin" };
        if axis >= x.shape.len() || x.shape[axis] == 0 {
            return Err(Error::shape(
                name,
                &[&x.shape],
                format!("axis {axis} must exist and be nonempty"),
            ));
        }
        int32_positions(name, &[&x.shape], x.shape[axis])?;
        if x.dtype == DType::Bool {
            return Err(Error::dtype(
                name,
                &[x.dtype],
                "takes numbers (numpy functions convert bool to int32)",
            ));
        }
        let mut shape = x.shape.clone();
        shape.remove(axis);
        Ok(vec![Aval::new(shape, DType::Int32, false)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![
            Primitive::ArgReduce { max: true, axis: 1 },
            Primitive::ArgReduce {
                max: false,
                axis: 0,
            },
        ]
    }
}

impl ShapeRule for Cumulative<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, axis, name) = (&inputs[0], *self.axis, self.op.name());
        if axis >= x.shape.len() {
            return Err(Error::shape(
                name,
                &[&x.shape],
                format!(
                    "axis {axis} is out of range for {} dimensions",
                    x.shape.len()
                ),
            ));
        }
        if x.dtype == DType::Bool {
            return Err(Error::dtype(
                name,
                &[x.dtype],
                "sums or multiplies numbers (numpy functions convert bool to int32)",
            ));
        }
        Ok(vec![x.clone()])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![
            Primitive::Cumulative {
                op: CumulativeOp::Sum,
                axis: 1,
                reverse: false,
            },
            Primitive::Cumulative {
                op: CumulativeOp::Prod,
                axis: 0,
                reverse: true,
            },
        ]
    }
}

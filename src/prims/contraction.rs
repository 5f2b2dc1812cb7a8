//! Contraction: the batched matrix product that `matmul`, `tensordot` and `einsum` reduce
//! to, with its tiled kernel (`codegen/matmul.rs`).

use super::{all_weak, same_dtypes};
use crate::error::{Error, Result};
use crate::primitive::params::BatchMatmul;
#[cfg(test)]
use crate::primitive::Primitive;
use crate::primitive::ShapeRule;
use crate::shape::{checked_size, Aval};

impl ShapeRule for BatchMatmul {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (a, b) = (&inputs[0], &inputs[1]);
        if a.shape.len() != 3
            || b.shape.len() != 3
            || a.shape[0] != b.shape[0]
            || a.shape[2] != b.shape[1]
        {
            return Err(Error::shape(
                "batch_matmul",
                &[&a.shape, &b.shape],
                "operands must be [batch, m, k] and [batch, k, n]",
            ));
        }
        same_dtypes("batch_matmul", inputs)?;
        let shape = vec![a.shape[0], a.shape[1], b.shape[2]];
        checked_size("batch_matmul", &shape)?;
        Ok(vec![Aval::new(shape, a.dtype, all_weak(inputs))])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::BatchMatmul]
    }
}

//! Sorting: the stable bitonic sort of the last dimension (values or positions) and
//! `top_k`, whose two outputs come from a descending sort of positions.

use super::int32_positions;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::params::{Sort, TopK};
#[cfg(test)]
use crate::primitive::Primitive;
use crate::primitive::ShapeRule;
use crate::shape::Aval;

impl ShapeRule for Sort<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let x = &inputs[0];
        if x.shape.is_empty() {
            return Err(Error::shape("sort", &[&x.shape], "cannot sort a 0-d array"));
        }
        Ok(vec![if *self.indices {
            Aval::new(x.shape.clone(), DType::Int32, false)
        } else {
            x.clone()
        }])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Sort { indices: true }]
    }
}

impl ShapeRule for TopK<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        2
    }
    /// The values and their int32 positions, `k` along `axis`.
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, k, axis) = (&inputs[0], *self.k, *self.axis);
        let Some(&n) = x.shape.get(axis) else {
            return Err(Error::shape(
                "top_k",
                &[&x.shape],
                format!(
                    "axis {axis} is out of range for {} dimensions",
                    x.shape.len()
                ),
            ));
        };
        if k > n {
            return Err(Error::shape(
                "top_k",
                &[&x.shape],
                format!("k = {k} is larger than the length {n} of axis {axis}"),
            ));
        }
        int32_positions("top_k", &[&x.shape], n)?;
        let mut shape = x.shape.clone();
        shape[axis] = k;
        Ok(vec![
            Aval::new(shape.clone(), x.dtype, x.weak),
            Aval::new(shape, DType::Int32, false),
        ])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![
            Primitive::TopK { k: 2, axis: 1 },
            Primitive::TopK { k: 1, axis: 0 },
        ]
    }
}

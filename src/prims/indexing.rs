//! Indexing: `gather` along one axis, `scatter` at flat positions (its own atomic kernel)
//! and `search_sorted` (a binary search per query, elementwise).

use super::{int32_positions, same_dtypes};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::params::{Gather, Scatter, SearchSorted};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{Primitive, ScatterMode};
use crate::shape::Aval;

impl ShapeRule for Gather<'_> {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, idx, axis) = (&inputs[0], &inputs[1], *self.axis);
        let r = x.shape.len();
        if axis >= r
            || idx.shape.len() != r
            || (0..r).any(|d| d != axis && idx.shape[d] != x.shape[d])
        {
            return Err(Error::shape(
                "gather",
                &[&x.shape, &idx.shape],
                format!("indices must have the operand's shape except along axis {axis}"),
            ));
        }
        if !idx.dtype.is_integer() {
            return Err(Error::dtype(
                "gather",
                &[x.dtype, idx.dtype],
                "indices must be int32 or uint32",
            ));
        }
        if x.shape[axis] == 0 && idx.size() > 0 {
            return Err(Error::shape(
                "gather",
                &[&x.shape, &idx.shape],
                format!("cannot index an empty axis {axis}"),
            ));
        }
        Ok(vec![Aval::new(idx.shape.clone(), x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Gather { axis: 1 }]
    }
}

impl ShapeRule for Scatter<'_> {
    fn arity(&self) -> usize {
        3
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, p, v) = (&inputs[0], &inputs[1], &inputs[2]);
        if p.dtype != DType::Int32 || v.dtype != x.dtype {
            return Err(Error::dtype(
                "scatter",
                &[x.dtype, p.dtype, v.dtype],
                "needs int32 positions and values of the operand's dtype",
            ));
        }
        if p.shape != v.shape {
            return Err(Error::shape(
                "scatter",
                &[&x.shape, &p.shape, &v.shape],
                "positions and values must have one shape",
            ));
        }
        if x.size() > i32::MAX as usize {
            return Err(Error::shape(
                "scatter",
                &[&x.shape],
                "scatter addresses at most 2^31 - 1 elements",
            ));
        }
        Ok(vec![x.clone()])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Scatter {
            mode: ScatterMode::Add,
        }]
    }
}

impl ShapeRule for SearchSorted<'_> {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, q, axis) = (&inputs[0], &inputs[1], *self.axis);
        let r = x.shape.len();
        if axis >= r || q.shape.len() != r || (0..r).any(|d| d != axis && q.shape[d] != x.shape[d])
        {
            return Err(Error::shape(
                "search_sorted",
                &[&x.shape, &q.shape],
                format!("queries must have the sorted operand's shape except along axis {axis}"),
            ));
        }
        same_dtypes("search_sorted", inputs)?;
        int32_positions("search_sorted", &[&x.shape, &q.shape], x.shape[axis])?;
        Ok(vec![Aval::new(q.shape.clone(), DType::Int32, false)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![
            Primitive::SearchSorted {
                axis: 1,
                right: false,
            },
            Primitive::SearchSorted {
                axis: 0,
                right: true,
            },
        ]
    }
}

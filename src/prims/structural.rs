//! Structural primitives: broadcasts, transposes, reshapes, reversals and slices (views
//! over the operand's buffer), and concatenation and padding (elementwise kernels that
//! pick a source per output position).

use super::{all_weak, same_dtypes};
use crate::error::{Error, Result};
use crate::primitive::params::{BroadcastInDim, Concatenate, Pad, Reshape, Rev, Slice, Transpose};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{Literal, Primitive};
use crate::shape::{checked_size, dim_sum, Aval};

impl ShapeRule for BroadcastInDim<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, shape, dims) = (&inputs[0], self.shape, self.broadcast_dimensions);
        let ok = dims.len() == x.shape.len()
            && dims.windows(2).all(|w| w[0] < w[1])
            && dims
                .iter()
                .zip(&x.shape)
                .all(|(&d, &s)| d < shape.len() && (s == 1 || s == shape[d]));
        if !ok {
            return Err(Error::shape(
                "broadcast_in_dim",
                &[&x.shape, shape],
                format!(
                    "broadcast_dimensions {dims:?} do not map the operand into the output shape"
                ),
            ));
        }
        checked_size("broadcast_in_dim", shape)?;
        Ok(vec![Aval::new(shape.clone(), x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::BroadcastInDim {
            shape: vec![2, 3],
            broadcast_dimensions: vec![1],
        }]
    }
}

impl ShapeRule for Transpose<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, permutation) = (&inputs[0], self.permutation);
        let mut seen = vec![false; x.shape.len()];
        let ok = permutation.len() == x.shape.len()
            && permutation
                .iter()
                .all(|&p| p < seen.len() && !std::mem::replace(&mut seen[p], true));
        if !ok {
            return Err(Error::shape(
                "transpose",
                &[&x.shape],
                format!("{permutation:?} is not a permutation of the operand's dimensions"),
            ));
        }
        let shape = permutation.iter().map(|&p| x.shape[p]).collect();
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Transpose {
            permutation: vec![1, 0],
        }]
    }
}

impl ShapeRule for Reshape<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, new_sizes) = (&inputs[0], self.new_sizes);
        let n = checked_size("reshape", new_sizes)?;
        if n != x.size() {
            return Err(Error::shape(
                "reshape",
                &[&x.shape, new_sizes],
                format!("cannot reshape {} elements into {n}", x.size()),
            ));
        }
        Ok(vec![Aval::new(new_sizes.clone(), x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Reshape {
            new_sizes: vec![3, 2],
        }]
    }
}

impl ShapeRule for Rev<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, dimensions) = (&inputs[0], self.dimensions);
        if dimensions.iter().any(|&d| d >= x.shape.len()) {
            return Err(Error::shape(
                "rev",
                &[&x.shape],
                format!("dimensions {dimensions:?} are out of range"),
            ));
        }
        Ok(vec![x.clone()])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Rev {
            dimensions: vec![0],
        }]
    }
}

impl ShapeRule for Slice<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let x = &inputs[0];
        let (start, limit, strides) = (self.start_indices, self.limit_indices, self.strides);
        let r = x.shape.len();
        let ok = start.len() == r
            && limit.len() == r
            && strides.len() == r
            && (0..r).all(|d| start[d] <= limit[d] && limit[d] <= x.shape[d] && strides[d] >= 1);
        if !ok {
            return Err(Error::shape(
                "slice",
                &[&x.shape],
                format!("start {start:?}, limit {limit:?}, strides {strides:?} do not describe a window of the operand"),
            ));
        }
        let shape = (0..r)
            .map(|d| (limit[d] - start[d]).div_ceil(strides[d]))
            .collect();
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Slice {
            start_indices: vec![0, 1],
            limit_indices: vec![2, 3],
            strides: vec![1, 2],
        }]
    }
}

impl ShapeRule for Concatenate<'_> {
    fn arity(&self) -> usize {
        usize::MAX
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, dimension) = (&inputs[0], *self.dimension);
        let r = x.shape.len();
        let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape.as_slice()).collect();
        if dimension >= r
            || inputs.iter().any(|a| {
                a.shape.len() != r || (0..r).any(|d| d != dimension && a.shape[d] != x.shape[d])
            })
        {
            return Err(Error::shape(
                "concatenate",
                &shapes,
                format!("operands must have equal shapes except along dimension {dimension}"),
            ));
        }
        same_dtypes("concatenate", inputs)?;
        let mut shape = x.shape.clone();
        shape[dimension] = dim_sum(
            "concatenate",
            &shapes,
            inputs.iter().map(|a| a.shape[dimension]),
        )?;
        checked_size("concatenate", &shape)?;
        Ok(vec![Aval::new(shape, x.dtype, all_weak(inputs))])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Concatenate { dimension: 1 }]
    }
}

impl ShapeRule for Pad<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, low, high) = (&inputs[0], self.low, self.high);
        let r = x.shape.len();
        if low.len() != r || high.len() != r {
            return Err(Error::shape(
                "pad",
                &[&x.shape],
                format!("low {low:?} and high {high:?} need one entry per dimension"),
            ));
        }
        if let Some(v) = self.value {
            if v.dtype() != x.dtype {
                return Err(Error::dtype(
                    "pad",
                    &[x.dtype, v.dtype()],
                    "the padding value must have the operand's dtype",
                ));
            }
        } else if (0..r).any(|d| x.shape[d] == 0 && (low[d] > 0 || high[d] > 0)) {
            return Err(Error::shape(
                "pad",
                &[&x.shape],
                "edge padding needs a non-empty operand along padded dimensions",
            ));
        }
        let shape = (0..r)
            .map(|d| dim_sum("pad", &[&x.shape], [low[d], x.shape[d], high[d]]))
            .collect::<Result<Vec<usize>>>()?;
        checked_size("pad", &shape)?;
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        [None, Some(Literal::F32(0.0))]
            .into_iter()
            .map(|value| Primitive::Pad {
                low: vec![0, 1],
                high: vec![1, 0],
                value,
            })
            .collect()
    }
}

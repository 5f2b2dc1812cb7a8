//! Sorting: the stable bitonic sort of the last dimension (values or positions) and
//! `top_k`, whose two outputs come from a descending sort of positions.

use super::int32_positions;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::ad::JvpRule;
use crate::jit::batching::{batched_first, lift, BatchRule};
use crate::lax;
use crate::lax::eval::sort::{sort, top_k};
use crate::lax::eval::{single, widened_if_narrow, Evaluate};
use crate::primitive::params::{Sort, TopK};
use crate::primitive::Primitive;
use crate::primitive::ShapeRule;
use crate::runtime::Device;
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

// ----- JVP rules -----

impl JvpRule for Sort<'_> {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        Ok(vec![match (&t[0], *self.indices) {
            // The tangent moves with its element: sorted by the operand's sorting positions.
            (Some(t), false) => {
                let perm = lax::sort(x[0], true)?;
                Some(lax::gather(t, &perm, x[0].ndim() - 1)?)
            }
            // Positions are integers: no tangent.
            _ => None,
        }])
    }
}

impl JvpRule for TopK<'_> {
    /// The values' tangent is the operand's tangent at the chosen positions.
    fn jvp(&self, _: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let values = match &t[0] {
            Some(t) => Some(lax::gather(t, &outs[1], *self.axis)?),
            None => None,
        };
        Ok(vec![values, None])
    }
}

not_linear!(Sort<'_>, TopK<'_>);

// Sorting runs along the last dimension, which a leading batch dimension leaves in place.
batch_as_leading!(Sort<'_>);

impl BatchRule for TopK<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let prim = Primitive::TopK {
            k: *self.k,
            axis: self.axis + 1,
        };
        batched_first(lax::bind_all(
            prim,
            &[&lift(args[0].0, args[0].1, b)?],
            None,
        )?)
    }
}

// Sorting networks are kernels of their own.
own_kernels!(Sort<'_>, TopK<'_>);

impl Evaluate for Sort<'_> {
    /// The bitonic network's compare-exchange stages, on 32-bit values.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("sort", outs)?;
        let r = widened_if_narrow(inputs, out, |x, out| sort(dev, x[0], *self.indices, out))?;
        Ok(vec![r])
    }
}

impl Evaluate for TopK<'_> {
    /// A descending argsort of the rows, then gathers of its first `k` columns.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        top_k(dev, inputs[0], *self.k, *self.axis, &outs)
    }
}

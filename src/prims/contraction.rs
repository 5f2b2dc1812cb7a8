//! Contraction: the batched matrix product that `matmul`, `tensordot` and `einsum` reduce
//! to, with its tiled kernel (`codegen/matmul.rs`).

use super::{all_weak, same_dtypes};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::jit::ad::{sum_terms, JvpRule};
use crate::jit::batching::{batched_first, lift, BatchRule};
use crate::jit::transpose::{TransposeRule, Transposing};
use crate::lax;
use crate::lax::eval::dot::dot;
use crate::lax::eval::{single, widened_if_narrow, Evaluate};
use crate::primitive::params::BatchMatmul;
#[cfg(test)]
use crate::primitive::Primitive;
use crate::primitive::ShapeRule;
use crate::runtime::Device;
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

impl JvpRule for BatchMatmul {
    /// The product rule: `ta·b + a·tb`.
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        Ok(vec![sum_terms(vec![
            t[0].as_ref()
                .map(|ta| lax::batch_matmul(ta, x[1]))
                .transpose()?,
            t[1].as_ref()
                .map(|tb| lax::batch_matmul(x[0], tb))
                .transpose()?,
        ])?])
    }
}

impl TransposeRule for BatchMatmul {
    /// Linear in either operand while the other is known.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        if let (true, Some(b)) = (cx.lin(0), cx.x[1].known()) {
            Ok(vec![
                Some(lax::batch_matmul(ct, &lax::transpose(b, &[0, 2, 1])?)?),
                None,
            ])
        } else if let (true, Some(a)) = (cx.lin(1), cx.x[0].known()) {
            Ok(vec![
                None,
                Some(lax::batch_matmul(&lax::transpose(a, &[0, 2, 1])?, ct)?),
            ])
        } else {
            Err(cx.not_linear(1))
        }
    }
}

impl BatchRule for BatchMatmul {
    /// With one operand batched, the batch folds into that operand's free dimension (`m`
    /// of the left, `n` of the right), so `vmap` of a product with a fixed matrix is one
    /// larger product, as JAX's `dot_general` rule makes it: the nested `vmap` of a dot
    /// product (a Gram matrix) is one `[1, n, k] x [1, k, n]` product, not `n * n`
    /// products of a row and a column. With both batched, the batch joins the product's
    /// own batch dimension.
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let ((l, lb), (r, rb)) = (args[0], args[1]);
        match (lb, rb) {
            (true, false) => {
                // [b, B, m, k] -> [B, b * m, k]; the result [B, b * m, n] -> [B, b, m, n].
                let (s, n) = (l.shape().to_vec(), r.shape()[2]);
                let folded =
                    lax::reshape(&lax::transpose(l, &[1, 0, 2, 3])?, &[s[1], b * s[2], s[3]])?;
                let out = lax::reshape(&lax::batch_matmul(&folded, r)?, &[s[1], b, s[2], n])?;
                Ok(vec![(out, Some(1))])
            }
            (false, true) => {
                // [b, B, k, n] -> [B, k, b * n]; the result [B, m, b * n] -> [B, m, b, n].
                let (s, m) = (r.shape().to_vec(), l.shape()[1]);
                let folded =
                    lax::reshape(&lax::transpose(r, &[1, 2, 0, 3])?, &[s[1], s[2], b * s[3]])?;
                let out = lax::reshape(&lax::batch_matmul(l, &folded)?, &[s[1], m, b, s[3]])?;
                Ok(vec![(out, Some(2))])
            }
            _ => {
                let (l, r) = (lift(l, lb, b)?, lift(r, rb, b)?);
                let (ls, rs) = (l.shape().to_vec(), r.shape().to_vec());
                let l3 = lax::reshape(&l, &[b * ls[1], ls[2], ls[3]])?;
                let r3 = lax::reshape(&r, &[b * rs[1], rs[2], rs[3]])?;
                batched_first(vec![lax::reshape(
                    &lax::batch_matmul(&l3, &r3)?,
                    &[b, ls[1], ls[2], rs[3]],
                )?])
            }
        }
    }
}

// The tiled matmul kernel.
own_kernels!(BatchMatmul);

impl Evaluate for BatchMatmul {
    /// The tiled matmul kernel; narrow dtypes accumulate in 32 bits.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("batch_matmul", outs)?;
        let r = widened_if_narrow(inputs, out, |x, out| dot(dev, x[0], x[1], out))?;
        Ok(vec![r])
    }
}

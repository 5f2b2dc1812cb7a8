//! Reductions over axes (`reduce_sum`, ..., `argmax`/`argmin`) and cumulative sums and
//! products along one axis, each with its own kernels (`lax/eval/reduce.rs`,
//! `codegen/cumulative.rs`).

use super::int32_positions;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::ad::{add, cmp, div, linear, lit, mul, unreduce, JvpRule, OutputsAndTangents};
use crate::jit::batching::{batched_first, bind_lifted, shifted, BatchRule};
use crate::jit::transpose::{TransposeRule, Transposing};
use crate::lax;
use crate::lax::eval::cumulative::cumulative;
use crate::lax::eval::reduce::{arg_reduce, reduce};
use crate::lax::eval::{single, widened_if_narrow, Evaluate};
use crate::primitive::params::{ArgReduce, Cumulative, Reduce};
use crate::primitive::Primitive;
use crate::primitive::{CompareOp, CumulativeOp, Literal, ReduceOp, ShapeRule};
use crate::runtime::Device;
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

// ----- transpose rules -----

impl TransposeRule for Reduce<'_> {
    /// A sum is linear: its cotangent spreads back over the reduced axes.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        match self.op {
            ReduceOp::Sum => Ok(vec![Some(unreduce(ct, cx.x[0].shape(), self.axes)?)]),
            _ => Err(cx.nonlinear()),
        }
    }
}

not_linear!(ArgReduce<'_>);

impl TransposeRule for Cumulative<'_> {
    /// A cumulative sum is linear: its transpose sums from the other end.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        match self.op {
            CumulativeOp::Sum => Ok(vec![Some(lax::cumsum(ct, *self.axis, !*self.reverse)?)]),
            CumulativeOp::Prod => Err(cx.nonlinear()),
        }
    }
}

// ----- evaluation -----

impl Evaluate for Reduce<'_> {
    /// Reduction kernels (one pass per level of the tree), on 32-bit values.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single(self.op.name(), outs)?;
        if self.axes.iter().any(|&a| inputs[0].shape()[a] == 0) {
            // Nothing to reduce: the identity in the result's own dtype (a kernel on
            // widened narrow integers would narrow int32's bounds to 0 and -1).
            let d = out.dtype;
            let identity = match (*self.op, d) {
                (ReduceOp::Max, DType::Bool) | (ReduceOp::Or, _) => Literal::Bool(false),
                (ReduceOp::Min, DType::Bool) | (ReduceOp::And, _) => Literal::Bool(true),
                (ReduceOp::Max, _) => Literal::from_f64(f64::NEG_INFINITY, d),
                (ReduceOp::Min, _) => Literal::from_f64(f64::INFINITY, d),
                (ReduceOp::Prod, _) => Literal::from_f64(1.0, d),
                (ReduceOp::Sum, _) => Literal::from_f64(0.0, d),
            };
            let r = lax::full(&out.shape, identity.cast(d), Some(dev))?;
            return Ok(vec![r.with_weak(out.weak)]);
        }
        let r = widened_if_narrow(inputs, out, |x, out| {
            reduce(dev, *self.op, x[0], self.axes, out)
        })?;
        Ok(vec![r])
    }
}

impl Evaluate for ArgReduce<'_> {
    /// Two reduction trees: the extreme, then the first position holding it.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single(if *self.max { "argmax" } else { "argmin" }, outs)?;
        let r = widened_if_narrow(inputs, out, |x, out| {
            arg_reduce(dev, *self.max, *self.axis, x[0], out)
        })?;
        Ok(vec![r])
    }
}

impl Evaluate for Cumulative<'_> {
    /// The chunked cumulative kernels. bfloat16 scans round after every operation, as
    /// float16's do (`lax/eval/cumulative.rs`), so they are not widened first.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single(self.op.name(), outs)?;
        let (op, axis, reverse) = (*self.op, *self.axis, *self.reverse);
        let run = |x: &[&Array], out: Aval| cumulative(dev, op, axis, reverse, x[0], out);
        let r = if inputs[0].dtype() == DType::BFloat16 {
            run(inputs, out)?
        } else {
            widened_if_narrow(inputs, out, run)?
        };
        Ok(vec![r])
    }
}

// ----- batching rules (batched operands have their batch dimension first) -----

impl BatchRule for Reduce<'_> {
    fn batch(&self, args: &[(&Array, bool)], _: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::reduce(*self.op, args[0].0, &shifted(self.axes))?])
    }
}

impl BatchRule for ArgReduce<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let prim = Primitive::ArgReduce {
            max: *self.max,
            axis: self.axis + 1,
        };
        bind_lifted(prim, args, b)
    }
}

impl BatchRule for Cumulative<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let prim = Primitive::Cumulative {
            op: *self.op,
            axis: self.axis + 1,
            reverse: *self.reverse,
        };
        bind_lifted(prim, args, b)
    }
}

// ----- JVP rules -----

impl JvpRule for Reduce<'_> {
    fn jvp(&self, x: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        match self.op {
            ReduceOp::Sum => linear(self.primitive(), &t[0]),
            ReduceOp::And | ReduceOp::Or => Ok(vec![None]),
            ReduceOp::Prod => Ok(vec![match &t[0] {
                Some(t) => Some(prod_tree(x[0], t, self.axes)?.1),
                None => None,
            }]),
            // JAX's `_reduce_chooser_jvp_rule`: the tangents where the result is (ties
            // share it), summed, then divided by their count.
            ReduceOp::Max | ReduceOp::Min => Ok(vec![match &t[0] {
                Some(t) => {
                    let (x, axes) = (x[0], self.axes);
                    let hit = cmp(CompareOp::Eq, x, &unreduce(&outs[0], x.shape(), axes)?)?;
                    let mask = lax::convert_element_type(&hit, t.dtype())?;
                    let count = lax::reduce(ReduceOp::Sum, &mask, axes)?;
                    Some(div(
                        &lax::reduce(ReduceOp::Sum, &mul(t, &mask)?, axes)?,
                        &count,
                    )?)
                }
                None => None,
            }]),
        }
    }

    /// JAX's rule gives the tree's product as the output too.
    fn jvp_with_outputs(
        &self,
        x: &[&Array],
        t: &[Option<Array>],
    ) -> Result<Option<OutputsAndTangents>> {
        Ok(match (self.op, &t[0]) {
            (ReduceOp::Prod, Some(t)) => {
                let (value, tangent) = prod_tree(x[0], t, self.axes)?;
                Some((vec![value], vec![Some(tangent)]))
            }
            _ => None,
        })
    }
}

// Positions are integers: no tangent.
no_tangent!(ArgReduce<'_>);

impl JvpRule for Cumulative<'_> {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        match (self.op, &t[0]) {
            (CumulativeOp::Sum, _) => linear(self.primitive(), &t[0]),
            (CumulativeOp::Prod, Some(t)) => Ok(vec![Some(
                cumprod_scan(x[0], t, *self.axis, *self.reverse)?.1,
            )]),
            (CumulativeOp::Prod, None) => Ok(vec![None]),
        }
    }

    /// JAX's rule gives the associative scan's products as the outputs too.
    fn jvp_with_outputs(
        &self,
        x: &[&Array],
        t: &[Option<Array>],
    ) -> Result<Option<OutputsAndTangents>> {
        Ok(match (self.op, &t[0]) {
            (CumulativeOp::Prod, Some(t)) => {
                let (value, tangent) = cumprod_scan(x[0], t, *self.axis, *self.reverse)?;
                Some((vec![value], vec![Some(tangent)]))
            }
            _ => None,
        })
    }
}

/// JAX's `mul` and its rule on value-tangent pairs: `(a * b, ta * b + a * tb)`.
fn mul_pair((a, ta): (&Array, &Array), (b, tb): (&Array, &Array)) -> Result<(Array, Array)> {
    Ok((mul(a, b)?, add(&mul(ta, b)?, &mul(a, tb)?)?))
}

/// JAX's `_interleave`: `a`'s elements at the even places along `axis`, `b`'s at the odd
/// ones, each plus a zero (JAX pads both with zeros and adds them, which turns -0 to +0).
fn interleave(a: &Array, b: &Array, axis: usize) -> Result<Array> {
    let (na, nb) = (a.shape()[axis], b.shape()[axis]);
    let unit = |x: &Array| {
        let mut s = x.shape().to_vec();
        s.insert(axis + 1, 1);
        lax::reshape(x, &s)
    };
    let pairs = lax::concatenate(
        &[&unit(&lax::slice_in_dim(a, 0, nb, 1, axis)?)?, &unit(b)?],
        axis + 1,
    )?;
    let mut merged = a.shape().to_vec();
    merged[axis] = 2 * nb;
    let mut both = lax::reshape(&pairs, &merged)?;
    if na > nb {
        both = lax::concatenate(&[&both, &lax::slice_in_dim(a, nb, na, 1, axis)?], axis)?;
    }
    add(&both, &lit(&both, 0.0)?)
}

/// JAX's `associative_scan(lax.mul, x, axis)` on value-tangent pairs: pairs of neighbours
/// multiplied, their scan (recursively), then the even places from it. JAX's `cumprod`
/// rule is the JVP of this scan, so its tangents are this recursion's (where products of
/// infinities and zeros meet, the order decides between ±inf and NaN).
fn assoc_scan_mul(x: &Array, t: &Array, axis: usize) -> Result<(Array, Array)> {
    let n = x.shape()[axis];
    if n < 2 {
        return Ok((x.clone(), t.clone()));
    }
    let s = |a: &Array, start: usize, limit: usize, step: usize| {
        lax::slice_in_dim(a, start, limit, step, axis)
    };
    let (rx, rt) = mul_pair(
        (&s(x, 0, n - 1, 2)?, &s(t, 0, n - 1, 2)?),
        (&s(x, 1, n, 2)?, &s(t, 1, n, 2)?),
    )?;
    let (ox, ot) = assoc_scan_mul(&rx, &rt, axis)?;
    let m = ox.shape()[axis];
    let rest = (&s(x, 2, n, 2)?, &s(t, 2, n, 2)?);
    let (ex, et) = if n.is_multiple_of(2) {
        mul_pair((&s(&ox, 0, m - 1, 1)?, &s(&ot, 0, m - 1, 1)?), rest)?
    } else {
        mul_pair((&ox, &ot), rest)?
    };
    let ex = lax::concatenate(&[&s(x, 0, 1, 1)?, &ex], axis)?;
    let et = lax::concatenate(&[&s(t, 0, 1, 1)?, &et], axis)?;
    Ok((interleave(&ex, &ox, axis)?, interleave(&et, &ot, axis)?))
}

/// `cumprod(x)` along `axis` and its tangent for the tangent `t` as JAX's rule gives them:
/// the JVP of its associative scan (on the reversed axis for a reverse scan).
fn cumprod_scan(x: &Array, t: &Array, axis: usize, reverse: bool) -> Result<(Array, Array)> {
    if !reverse {
        return assoc_scan_mul(x, t, axis);
    }
    let rev = |a: &Array| lax::rev(a, &[axis]);
    let (value, tangent) = assoc_scan_mul(&rev(x)?, &rev(t)?, axis)?;
    Ok((rev(&value)?, rev(&tangent)?))
}

/// `prod(x)` over `axes` and its tangent for the tangent `t` as JAX's rule (`_reduce_jvp`)
/// gives them: the JVP of a tree of products, the reduced axes moved to the front as one,
/// then its first half times its second (padded with a 1, its tangent with a 0) until one
/// is left.
fn prod_tree(x: &Array, t: &Array, axes: &[usize]) -> Result<(Array, Array)> {
    let shape = x.shape();
    let kept: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
    let perm: Vec<usize> = axes.iter().chain(&kept).copied().collect();
    let out: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
    let mut front = vec![axes.iter().map(|&a| shape[a]).product()];
    front.extend(&out);
    let moved = |a: &Array| lax::reshape(&lax::transpose(a, &perm)?, &front);
    let (mut xs, mut ts) = (moved(x)?, moved(t)?);
    if front[0] == 0 {
        let one = lax::full(&out, Literal::from_f64(1.0, x.dtype()), Some(x.device()))?;
        return Ok((
            one,
            lax::reshape(&lax::reduce(ReduceOp::Sum, &ts, &[0])?, &out)?,
        ));
    }
    while xs.shape()[0] > 1 {
        let n = xs.shape()[0];
        let n1 = n.div_ceil(2);
        let half = |a: &Array, lo: usize, hi: usize| lax::slice_in_dim(a, lo, hi, 1, 0);
        let (mut x2, mut t2) = (half(&xs, n1, n)?, half(&ts, n1, n)?);
        if n - n1 != n1 {
            let pad = |a: &Array, v: f64| {
                let mut high = vec![0; a.ndim()];
                high[0] = 1;
                lax::pad(
                    a,
                    &vec![0; a.ndim()],
                    &high,
                    Some(Literal::from_f64(v, a.dtype())),
                )
            };
            (x2, t2) = (pad(&x2, 1.0)?, pad(&t2, 0.0)?);
        }
        (xs, ts) = mul_pair((&half(&xs, 0, n1)?, &half(&ts, 0, n1)?), (&x2, &t2))?;
    }
    Ok((lax::reshape(&xs, &out)?, lax::reshape(&ts, &out)?))
}

// Reductions and scans have kernels of their own.
own_kernels!(Reduce<'_>, ArgReduce<'_>, Cumulative<'_>);

//! Reductions over axes (`reduce_sum`, ..., `argmax`/`argmin`) and cumulative sums and
//! products along one axis, each with its own kernels (`lax/eval/reduce.rs`,
//! `codegen/cumulative.rs`).

use super::int32_positions;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::ad::{add, cmp, div, linear, lit, mul, unreduce, JvpRule};
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
            op => Ok(vec![match &t[0] {
                Some(t) => {
                    let d = reduce_partial(*op, x[0], &outs[0], self.axes)?;
                    Some(lax::reduce(ReduceOp::Sum, &mul(t, &d)?, self.axes)?)
                }
                None => None,
            }]),
        }
    }
}

// Positions are integers: no tangent.
no_tangent!(ArgReduce<'_>);

impl JvpRule for Cumulative<'_> {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        match (self.op, &t[0]) {
            (CumulativeOp::Sum, _) => linear(self.primitive(), &t[0]),
            (CumulativeOp::Prod, Some(t)) => {
                Ok(vec![Some(cumprod_jvp(x[0], t, *self.axis, *self.reverse)?)])
            }
            (CumulativeOp::Prod, None) => Ok(vec![None]),
        }
    }
}

/// `∂out/∂x` elementwise for a nonlinear reduction (`out` reduced `x` over `axes`).
fn reduce_partial(op: ReduceOp, x: &Array, out: &Array, axes: &[usize]) -> Result<Array> {
    let shape = x.shape();
    match op {
        ReduceOp::Max | ReduceOp::Min => {
            // Ties share the gradient equally (JAX's rule).
            let hit = cmp(CompareOp::Eq, x, &unreduce(out, shape, axes)?)?;
            let mask = lax::convert_element_type(&hit, x.dtype())?;
            let count = lax::reduce(ReduceOp::Sum, &mask, axes)?;
            div(&mask, &unreduce(&count, shape, axes)?)
        }
        ReduceOp::Prod => {
            // The product of the other elements, as JAX's rule defines it (no division:
            // zeros, infinities and NaN give what multiplying the others gives): the
            // reduced axes moved last as one, then exclusive products from both ends. (JAX
            // multiplies in a tree, so where partial products overflow or underflow the
            // two can differ.)
            let r = x.ndim();
            let kept: Vec<usize> = (0..r).filter(|a| !axes.contains(a)).collect();
            let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
            let mut flat: Vec<usize> = kept.iter().map(|&a| shape[a]).collect();
            flat.push(axes.iter().map(|&a| shape[a]).product());
            let rows = lax::reshape(&lax::transpose(x, &perm)?, &flat)?;
            let last = flat.len() - 1;
            let before = shift_along(&lax::cumprod(&rows, last, false)?, last, 1, true, 1.0)?;
            let after = shift_along(&lax::cumprod(&rows, last, true)?, last, 1, false, 1.0)?;
            let moved: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
            let others = lax::reshape(&mul(&before, &after)?, &moved)?;
            let mut inverse = vec![0; r];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i;
            }
            lax::transpose(&others, &inverse)
        }
        ReduceOp::Sum | ReduceOp::And | ReduceOp::Or => Ok(lit(x, 1.0)?),
    }
}

/// `a` moved `k` places along `axis` (towards the end when `forward`), the vacated places
/// holding `fill`.
fn shift_along(a: &Array, axis: usize, k: usize, forward: bool, fill: f64) -> Result<Array> {
    let r = a.ndim();
    let n = a.shape()[axis];
    let (mut low, mut high) = (vec![0; r], vec![0; r]);
    let mut start = vec![0; r];
    let mut limit = a.shape().to_vec();
    if forward {
        low[axis] = k;
    } else {
        high[axis] = k;
        start[axis] = k;
        limit[axis] = n + k;
    }
    let padded = lax::pad(a, &low, &high, Some(Literal::from_f64(fill, a.dtype())))?;
    lax::slice(&padded, &start, &limit, None)
}

/// The levels of a Hillis–Steele product scan of `x` along `axis`: at each shift `k`
/// (1, 2, 4, ...), the products `p` of the `k`-element windows ending at every place and
/// the same shifted `k` places (`q`). The scan's tangent map, linear, is
/// `s -> p * shift(s, k) + q * s` level after level (the product rule; no division, so
/// exact where `x` has zeros).
fn cumprod_levels(x: &Array, axis: usize, reverse: bool) -> Result<Vec<(usize, Array, Array)>> {
    let n = x.shape()[axis];
    let mut levels = Vec::new();
    let mut p = x.clone();
    let mut k = 1;
    while k < n {
        let q = shift_along(&p, axis, k, !reverse, 1.0)?;
        let next = mul(&q, &p)?;
        levels.push((k, p, q));
        p = next;
        k *= 2;
    }
    Ok(levels)
}

/// The tangent of `cumprod(x)` along `axis` for the tangent `t`.
fn cumprod_jvp(x: &Array, t: &Array, axis: usize, reverse: bool) -> Result<Array> {
    let mut s = t.clone();
    for (k, p, q) in cumprod_levels(x, axis, reverse)? {
        s = add(
            &mul(&shift_along(&s, axis, k, !reverse, 0.0)?, &p)?,
            &mul(&q, &s)?,
        )?;
    }
    Ok(s)
}

// Reductions and scans have kernels of their own.
own_kernels!(Reduce<'_>, ArgReduce<'_>, Cumulative<'_>);

//! Elementwise arithmetic: unary and binary functions, comparisons, `select`, `fma`,
//! dtype conversion and copies. All lower to one expression of the fused kernel.

use super::{all_weak, same_dtypes, same_shapes};
use crate::array::Array;
use crate::codegen::maps::{self, InputMap};
use crate::codegen::rules::{binary, compare, convert, unary, Ctx, Elementwise, Lowering};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::ad::{
    add, bin, cmp, div, integer_pow, linear, lit, mul, neg, or_zeros, rsqrt, scale, sel, square,
    sub, sum_terms, un, where_or_zero, JvpRule, Partial,
};
use crate::jit::transpose::{TransposeRule, Transposing};
use crate::lax;
use crate::primitive::params::{
    Binary, Clamp, Compare, ConvertElementType, Copy as CopyP, Fma, Select, Unary,
};
use crate::primitive::Literal;
use crate::primitive::Primitive;
use crate::primitive::{BinaryOp, CompareOp, ShapeRule, UnaryOp};
use crate::shape::{Aval, Layout};

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
        BinaryOp::ALL
            .iter()
            .map(|&o| Primitive::Binary(o))
            .collect()
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
        CompareOp::ALL
            .iter()
            .map(|&o| Primitive::Compare(o))
            .collect()
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

// ----- lowering -----

impl Lowering for Unary<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        false
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(unary(*self.op, &args[0], arg_dtypes[0]))
    }
}

impl Lowering for Binary<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        false
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(binary(*self.op, &args[0], &args[1], arg_dtypes[0]))
    }
}

impl Lowering for Compare<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        false
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(compare(*self.op, &args[0], &args[1], arg_dtypes[0]))
    }
}

impl Lowering for Select {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], _: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(format!("select({}, {}, {})", args[2], args[1], args[0]))
    }
}

impl Lowering for Fma {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        false
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    /// One rounding: the prelude's `fma_rn`, exact where WGSL's `fma` may not be.
    fn emit(&self, args: &[String], _: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(format!("fma_rn({}, {}, {})", args[0], args[1], args[2]))
    }
}

impl Lowering for ConvertElementType<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(convert(&args[0], arg_dtypes[0], *self.dtype))
    }
}

impl Lowering for CopyP {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], _: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        Ok(args[0].clone())
    }
}

// ----- transpose rules -----

impl TransposeRule for Unary<'_> {
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        match self.op {
            UnaryOp::Neg => Ok(vec![Some(neg(ct)?)]),
            _ => Err(cx.nonlinear()),
        }
    }
}

impl TransposeRule for Binary<'_> {
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let mut out = cx.none();
        match self.op {
            BinaryOp::Add => {
                for k in (0..2).filter(|&k| cx.lin(k)) {
                    out[k] = Some(ct.clone());
                }
            }
            BinaryOp::Sub => {
                if cx.lin(0) {
                    out[0] = Some(ct.clone());
                }
                if cx.lin(1) {
                    out[1] = Some(neg(ct)?);
                }
            }
            BinaryOp::Mul => {
                let k = if cx.lin(0) { 0 } else { 1 };
                cx.only_linear(k)?;
                let other = cx.x[1 - k].known().ok_or_else(|| cx.not_linear(k))?;
                out[k] = Some(mul(ct, other)?);
            }
            BinaryOp::Div => out[0] = Some(div(ct, cx.known(1)?)?),
            _ => return Err(cx.nonlinear()),
        }
        Ok(out)
    }
}

not_linear!(Compare<'_>);

impl TransposeRule for Select {
    /// Linear in the two cases, for a known predicate.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let p = cx.known(0)?;
        let z = lax::full(
            ct.shape(),
            Literal::from_f64(0.0, ct.dtype()),
            Some(ct.device()),
        )?;
        let mut out = cx.none();
        if cx.lin(1) {
            out[1] = Some(lax::select(p, ct, &z)?);
        }
        if cx.lin(2) {
            out[2] = Some(lax::select(p, &z, ct)?);
        }
        Ok(out)
    }
}

impl TransposeRule for Fma {
    /// `a * b + c`: linear in `c`, and in one of `a`, `b` when the other is known.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        if cx.lin(0) && cx.lin(1) {
            return Err(cx.not_linear(1));
        }
        let mut out = cx.none();
        if let (true, Some(b)) = (cx.lin(0), cx.x[1].known()) {
            out[0] = Some(mul(ct, b)?);
        }
        if let (true, Some(a)) = (cx.lin(1), cx.x[0].known()) {
            out[1] = Some(mul(ct, a)?);
        }
        if cx.lin(2) {
            out[2] = Some(ct.clone());
        }
        Ok(out)
    }
}

impl TransposeRule for ConvertElementType<'_> {
    /// The cotangent converted back to the operand's dtype (and weak flag).
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let aval = cx.x[0].aval();
        if ct.dtype() == aval.dtype && ct.weak_type() == aval.weak {
            return Ok(vec![Some(ct.clone())]);
        }
        let back = Primitive::ConvertElementType {
            dtype: aval.dtype,
            weak: aval.weak,
        };
        Ok(vec![Some(lax::bind(back, &[ct], None)?)])
    }
}

impl TransposeRule for CopyP {
    fn transpose(&self, _: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        Ok(vec![Some(ct.clone())])
    }
}

// ----- JVP rules -----

impl JvpRule for Unary<'_> {
    fn jvp(&self, x: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        Ok(vec![
            unary_partial(*self.op, x[0], &outs[0])?.apply_opt(&t[0])?
        ])
    }
}

impl JvpRule for Binary<'_> {
    fn jvp(&self, x: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        // JAX's `logaddexp` is a `custom_jvp` function, whose rule sees zeros for a missing
        // tangent: `0 * exp(x2 - out)` makes the tangent NaN where that factor is infinite
        // (d/dx at (inf, 3e38)), and adds +0 to a second derivative's -0.
        if x[0].dtype().is_floating() {
            match self.op {
                BinaryOp::Hypot => return Ok(vec![hypot_jvp(x[0], x[1], &t[0], &t[1])?]),
                BinaryOp::Rem => return Ok(vec![remainder_jvp(x[0], x[1], &t[0], &t[1])?]),
                _ => {}
            }
        }
        let zeros_for_missing = matches!(self.op, BinaryOp::LogAddExp | BinaryOp::LogAddExp2)
            && t.iter().any(Option::is_some);
        let mut terms = Vec::with_capacity(2);
        for (k, tk) in t.iter().enumerate() {
            if tk.is_none() && !zeros_for_missing {
                continue;
            }
            let tk = or_zeros(tk, x[k])?;
            terms.push(binary_partial(*self.op, k, x[0], x[1], &outs[0])?.apply(&tk)?);
        }
        Ok(vec![sum_terms(terms)?])
    }
}

// Comparisons give bool: no tangent.
no_tangent!(Compare<'_>);

impl JvpRule for Select {
    fn jvp(&self, x: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        if t[1].is_none() && t[2].is_none() {
            return Ok(vec![None]);
        }
        let out = &outs[0];
        Ok(vec![Some(sel(
            x[0],
            &or_zeros(&t[1], out)?,
            &or_zeros(&t[2], out)?,
        )?)])
    }
}

impl JvpRule for Fma {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        Ok(vec![sum_terms(vec![
            Partial::By(x[1].clone()).apply_opt(&t[0])?,
            Partial::By(x[0].clone()).apply_opt(&t[1])?,
            t[2].clone(),
        ])?])
    }
}

impl JvpRule for ConvertElementType<'_> {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        if !x[0].dtype().is_floating() || !self.dtype.is_floating() {
            return Ok(vec![None]);
        }
        linear(self.primitive(), &t[0])
    }
}

impl JvpRule for CopyP {
    fn jvp(&self, _: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        linear(self.primitive(), &t[0])
    }
}

/// JAX's rule for `|x|` applied to `t`: `select(x >= 0, t, -t)` (`t` at ±0 too, `-t`
/// elsewhere, NaN included). A select, not a product by ±1: its own derivative passes the
/// tangent's through, where a product's would add `t * 0` (-0, or NaN for an infinite
/// `t`).
fn abs_jvp(x: &Array, t: &Array) -> Result<Array> {
    sel(&cmp(CompareOp::Ge, x, &lit(x, 0.0)?)?, t, &neg(t)?)
}

/// `∂y/∂x` for `y = op(x)`, in terms of `x` and `y`: JAX's rules (`jax/_src/lax/lax.py`),
/// in their order of operations and with JAX's `square` and `integer_pow`, so that first
/// derivatives round as JAX's and later ones follow the same rules.
fn unary_partial(op: UnaryOp, x: &Array, y: &Array) -> Result<Partial> {
    use UnaryOp::*;
    if !x.dtype().is_floating() {
        return Ok(Partial::Zero);
    }
    let one = || lit(x, 1.0);
    let (x, y) = (x.clone(), y.clone());
    Ok(match op {
        Neg => Partial::MinusOne,
        Sign | Floor | Ceil | Round | Trunc | Not | IsNan | IsInf | IsFinite | SignBit
        | StopGradient | PopulationCount => Partial::Zero,
        Abs => Partial::Linear(Box::new(move |t| abs_jvp(&x, t))),
        Square => Partial::By(scale(&x, 2.0)?),
        // `integer_pow(x, -1)`.
        Reciprocal => Partial::By(neg(&integer_pow(&x, -2)?)?),
        Exp => Partial::By(y),
        Exp2 => Partial::Linear(Box::new(move |t| {
            mul(&lit(&y, std::f64::consts::LN_2)?, &mul(t, &y)?)
        })),
        Expm1 => Partial::By(add(&y, &one()?)?),
        Log => Partial::DivBy(x),
        // `jnp.log2` divides `log(x)` by `log(2)`; `jnp.log10` multiplies it by
        // `1 / log(10)`.
        Log2 => Partial::Linear(Box::new(move |t| {
            div(&div(t, &x)?, &lit(&x, std::f64::consts::LN_2)?)
        })),
        Log10 => Partial::Linear(Box::new(move |t| {
            mul(&div(t, &x)?, &lit(&x, std::f64::consts::LOG10_E)?)
        })),
        Log1p => Partial::DivBy(add(&x, &one()?)?),
        Sqrt => Partial::By(div(&lit(&x, 0.5)?, &y)?),
        Cbrt => Partial::By(mul(&lit(&x, 1.0 / 3.0)?, &integer_pow(&y, -2)?)?),
        Sin => Partial::By(un(Cos, &x)?),
        Cos => Partial::By(neg(&un(Sin, &x)?)?),
        Tan => Partial::By(add(&one()?, &square(&y)?)?),
        // JAX's `rsqrt` with its own rule (`ad::rsqrt`).
        Asin => Partial::By(rsqrt(&sub(&one()?, &square(&x)?)?)?),
        Acos => Partial::By(neg(&rsqrt(&sub(&one()?, &square(&x)?)?)?)?),
        Atan => Partial::DivBy(add(&one()?, &square(&x)?)?),
        Sinh => Partial::By(un(Cosh, &x)?),
        Cosh => Partial::By(un(Sinh, &x)?),
        Tanh => Partial::Linear(Box::new(move |t| {
            mul(&add(t, &mul(t, &y)?)?, &sub(&lit(&y, 1.0)?, &y)?)
        })),
        Asinh => Partial::By(rsqrt(&add(&square(&x)?, &one()?)?)?),
        // JAX's `x^2 - 1` (+0 at -1, where `(x - 1)(x + 1)` is -0).
        Acosh => Partial::By(rsqrt(&sub(&square(&x)?, &one()?)?)?),
        Atanh => Partial::Linear(Box::new(move |t| {
            let c = |v: f64| lit(&x, v);
            mul(
                &integer_pow(&add(&c(1.0)?, &x)?, -1)?,
                &div(t, &sub(&c(1.0)?, &x)?)?,
            )
        })),
        ErfInv => Partial::Linear(Box::new(move |t| {
            let c = lit(&x, std::f64::consts::PI.sqrt() / 2.0)?;
            mul(&c, &mul(t, &un(Exp, &square(&y)?)?)?)
        })),
    })
}

/// The tangent of `hypot(a, b)` for the operands' tangents (`None`: zero). JAX's `hypot`
/// is a composite: `M * sqrt(1 + (m / M')^2)` over `M = max(|a|, |b|)`, `m = min(..)` and
/// `M' = M` (1 where `M` is 0), then `M` where `M` is 0 and +inf where either operand is.
/// This is the composite's JVP step by step with JAX's rules (`|.|'` 1 at 0, balanced max
/// and min, `-x * y^-2` for a divisor, `2x` for the square, `0.5 / sqrt`), the two
/// tangents added where JAX adds them (in the max, the min and the quotient), so forward
/// mode gives JAX's `jvp` (0 where an operand is infinite: the constant selected there has
/// no tangent) and reverse mode, its transpose, JAX's `grad` (NaN there, where a zero
/// cotangent meets `M = inf`; 0.5 at (0, 0); NaN at (0, 1e-30), where `M'^-2` overflows).
fn hypot_jvp(
    a: &Array,
    b: &Array,
    ta: &Option<Array>,
    tb: &Option<Array>,
) -> Result<Option<Array>> {
    if ta.is_none() && tb.is_none() {
        return Ok(None);
    }
    let c = |v: f64| lit(a, v);
    let (abs_a, abs_b) = (un(UnaryOp::Abs, a)?, un(UnaryOp::Abs, b)?);
    let hi = bin(BinaryOp::Max, &abs_a, &abs_b)?;
    let lo = bin(BinaryOp::Min, &abs_a, &abs_b)?;
    // JAX's `_balanced_eq(x, z, y)`: 1 where `x` alone is the result `z`, 1/2 on ties.
    let balanced = |x: &Array, z: &Array, y: &Array| -> Result<Array> {
        sel(
            &cmp(CompareOp::Eq, x, z)?,
            &sel(&cmp(CompareOp::Eq, y, z)?, &c(0.5)?, &c(1.0)?)?,
            &c(0.0)?,
        )
    };
    // `|a|`'s and `|b|`'s tangents through the max and the min, added.
    let through = |z: &Array| -> Result<Option<Array>> {
        let mut terms = Vec::with_capacity(2);
        if let Some(t) = ta {
            terms.push(Some(mul(&abs_jvp(a, t)?, &balanced(&abs_a, z, &abs_b)?)?));
        }
        if let Some(t) = tb {
            terms.push(Some(mul(&abs_jvp(b, t)?, &balanced(&abs_b, z, &abs_a)?)?));
        }
        sum_terms(terms)
    };
    let (t_hi, t_lo) = match (through(&hi)?, through(&lo)?) {
        (Some(h), Some(l)) => (h, l),
        _ => return Err(Error::arg("hypot", "a tangent without its terms")),
    };
    let inf = |v: &Array| cmp(CompareOp::Eq, v, &c(f64::INFINITY)?);
    let at_inf = bin(BinaryOp::Or, &inf(&abs_a)?, &inf(&abs_b)?)?;
    let zero = cmp(CompareOp::Eq, &hi, &c(0.0)?)?;
    let den = sel(&zero, &c(1.0)?, &hi)?;
    let q = div(&lo, &den)?;
    let root = un(UnaryOp::Sqrt, &add(&c(1.0)?, &square(&q)?)?)?;
    let zeros = c(0.0)?;
    let t_den = sel(&zero, &zeros, &t_hi)?;
    let t_q = add(
        &div(&t_lo, &den)?,
        &mul(&mul(&neg(&t_den)?, &lo)?, &integer_pow(&den, -2)?)?,
    )?;
    let t_root = mul(&mul(&t_q, &mul(&c(2.0)?, &q)?)?, &div(&c(0.5)?, &root)?)?;
    let t_prod = add(&mul(&t_hi, &root)?, &mul(&hi, &t_root)?)?;
    Ok(Some(sel(&at_inf, &zeros, &sel(&zero, &t_hi, &t_prod)?)?))
}

/// The tangent of `remainder(x, y)` for the operands' tangents (`None`: zero): JAX's
/// `remainder` is `select(plus, r + y, r)` over the truncated remainder `r`, whose rule is
/// `t_x - t_y * (sign(x / y) * floor(|x / y|))`; the tangents added where JAX adds them, so
/// forward mode gives JAX's `jvp` (-0 for d/dy at (0, 1)) and reverse mode, its transpose,
/// JAX's `grad` (+0 there: the select's two branches summed).
fn remainder_jvp(
    x: &Array,
    y: &Array,
    tx: &Option<Array>,
    ty: &Option<Array>,
) -> Result<Option<Array>> {
    if tx.is_none() && ty.is_none() {
        return Ok(None);
    }
    let c = |v: f64| lit(x, v);
    let r = bin(BinaryOp::Fmod, x, y)?;
    let plus = bin(
        BinaryOp::And,
        &cmp(
            CompareOp::Ne,
            &cmp(CompareOp::Lt, &r, &c(0.0)?)?,
            &cmp(CompareOp::Lt, y, &c(0.0)?)?,
        )?,
        &cmp(CompareOp::Ne, &r, &c(0.0)?)?,
    )?;
    let from_y = match ty {
        Some(t) => {
            let q = div(x, y)?;
            let trunc = mul(
                &un(UnaryOp::Sign, &q)?,
                &un(UnaryOp::Floor, &un(UnaryOp::Abs, &q)?)?,
            )?;
            Some(mul(&neg(t)?, &trunc)?)
        }
        None => None,
    };
    let Some(t_r) = sum_terms(vec![tx.clone(), from_y])? else {
        return Err(Error::arg("remainder", "a tangent without its terms"));
    };
    let t_plus = match ty {
        Some(t) => add(&t_r, t)?,
        None => t_r.clone(),
    };
    Ok(Some(sel(&plus, &t_plus, &t_r)?))
}

/// `x` with +inf replaced by 0 (JAX's `_replace_inf` in `logaddexp`'s derivative).
fn finite_or_zero(x: &Array) -> Result<Array> {
    let inf = cmp(CompareOp::Eq, x, &lit(x, f64::INFINITY)?)?;
    sel(&inf, &lit(x, 0.0)?, x)
}

/// `∂z/∂x` (`k = 0`) or `∂z/∂y` (`k = 1`) for `z = op(x, y)`; only the one asked for is
/// computed.
fn binary_partial(op: BinaryOp, k: usize, x: &Array, y: &Array, z: &Array) -> Result<Partial> {
    use BinaryOp::*;
    if !x.dtype().is_floating() {
        return Ok(Partial::Zero);
    }
    // `a` is the operand differentiated, `b` the other one.
    let (a, b) = if k == 0 { (x, y) } else { (y, x) };
    let c = |v: f64| lit(x, v);
    // 1 where `a` is chosen, 1/2 on ties, 0 elsewhere (JAX's balanced max/min gradient).
    let chosen = |win: CompareOp| -> Result<Partial> {
        Ok(Partial::By(sel(
            &cmp(win, a, b)?,
            &c(1.0)?,
            &sel(&cmp(CompareOp::Eq, a, b)?, &c(0.5)?, &c(0.0)?)?,
        )?))
    };
    // fmax/fmin take `y` where `pick_y`, else `x`: the derivative follows the pick.
    let picked = |pick_y: Array| -> Result<Partial> {
        let (on, off) = if k == 0 { (0.0, 1.0) } else { (1.0, 0.0) };
        Ok(Partial::By(sel(&pick_y, &c(on)?, &c(off)?)?))
    };
    Ok(match op {
        Add => Partial::One,
        Sub if k == 0 => Partial::One,
        Sub => Partial::MinusOne,
        Mul => Partial::By(b.clone()),
        // JAX's rules, in its order of operations: `g / y`, and `-g * x * y^-2` (NaN
        // where `y * y` underflows and `x` is 0).
        Div if k == 0 => Partial::DivBy(y.clone()),
        Div => Partial::NegBy(x.clone(), integer_pow(y, -2)?),
        FloorDiv | And | Or | Xor | ShiftLeft | ShiftRight | Gcd | Lcm => Partial::Zero,
        // `remainder` and `hypot` are JAX composites, whose tangents add the operands'
        // inside (`Binary::jvp` takes them jointly: `remainder_jvp`, `hypot_jvp`).
        Rem | Hypot => return Err(Error::arg(op.name(), "differentiated jointly")),
        Fmod if k == 0 => Partial::One,
        Fmod => Partial::By(neg(&un(UnaryOp::Trunc, &div(x, y)?)?)?),
        // JAX's rules: `y * x^(y - 1)` for x (NaN at 0^0), 0 where y == 0 for integer
        // powers; log(x) with x == 0 replaced by 1 for y.
        Pow if k == 0 => {
            let d = mul(y, &bin(Pow, x, &sub(y, &c(1.0)?)?)?)?;
            if y.dtype().is_floating() {
                Partial::By(d)
            } else {
                let y_zero = cmp(CompareOp::Eq, y, &c(0.0)?)?;
                Partial::By(where_or_zero(&un(UnaryOp::Not, &y_zero)?, &d)?)
            }
        }
        Pow => {
            let x_safe = sel(&cmp(CompareOp::Eq, x, &c(0.0)?)?, &c(1.0)?, x)?;
            Partial::By(mul(&un(UnaryOp::Log, &x_safe)?, z)?)
        }
        Max => chosen(CompareOp::Gt)?,
        Min => chosen(CompareOp::Lt)?,
        // The value picks `x` where `x > y` (`x < y` for fmin) or `y` is NaN, else `y` (ties
        // included), as JAX's `where` does; the derivative follows the pick.
        Fmax => picked(un(
            UnaryOp::Not,
            &bin(Or, &cmp(CompareOp::Gt, x, y)?, &un(UnaryOp::IsNan, y)?)?,
        )?)?,
        Fmin => picked(un(
            UnaryOp::Not,
            &bin(Or, &cmp(CompareOp::Lt, x, y)?, &un(UnaryOp::IsNan, y)?)?,
        )?)?,
        // JAX's `g * (y / (x^2 + y^2))` and `g * (-x / (x^2 + y^2))`.
        Atan2 => {
            let den = add(&square(x)?, &square(y)?)?;
            if k == 0 {
                Partial::By(div(y, &den)?)
            } else {
                Partial::By(div(&neg(x)?, &den)?)
            }
        }
        // JAX's `where(signbit(y), -|x|, |x|)`, with its `|x|'`.
        Copysign if k == 0 => {
            let (x, y) = (x.clone(), y.clone());
            Partial::Linear(Box::new(move |t| {
                let d = abs_jvp(&x, t)?;
                sel(&un(UnaryOp::SignBit, &y)?, &neg(&d)?, &d)
            }))
        }
        Copysign => Partial::Zero,
        // JAX's custom rule: `exp(a - z)` with +inf read as 0 on both sides.
        LogAddExp => Partial::By(un(
            UnaryOp::Exp,
            &sub(&finite_or_zero(a)?, &finite_or_zero(z)?)?,
        )?),
        LogAddExp2 => Partial::By(un(
            UnaryOp::Exp2,
            &sub(&finite_or_zero(a)?, &finite_or_zero(z)?)?,
        )?),
    })
}

// A leading batch dimension is one more elementwise dimension.
batch_as_leading!(
    Unary<'_>,
    Binary<'_>,
    Compare<'_>,
    Select,
    Fma,
    ConvertElementType<'_>,
    CopyP
);

// ----- evaluation -----

evaluate_elementwise!(
    Unary<'_>,
    Binary<'_>,
    Compare<'_>,
    Select,
    Fma,
    ConvertElementType<'_>,
    CopyP
);

// ----- clamp: every rule of one primitive -----

impl ShapeRule for Clamp {
    fn arity(&self) -> usize {
        3
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        same_shapes("clamp", inputs)?;
        same_dtypes("clamp", inputs)?;
        let x = &inputs[1];
        Ok(vec![Aval::new(x.shape.clone(), x.dtype, all_weak(inputs))])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Clamp]
    }
}

impl Lowering for Clamp {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    /// The result is one of the operands.
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    /// `max` then `min`, with their NaN and signed-zero rules.
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        let d = arg_dtypes[1];
        let lower = binary(BinaryOp::Max, &args[1], &args[0], d);
        Ok(binary(BinaryOp::Min, &lower, &args[2], d))
    }
}

evaluate_elementwise!(Clamp);

impl JvpRule for Clamp {
    /// JAX's rule: each operand's tangent where it is the one chosen (`x` strictly inside
    /// the interval, `min` above `x` and below `max`, `max` below `x`).
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let (lo, v, hi) = (x[0], x[1], x[2]);
        if !v.dtype().is_floating() {
            return Ok(vec![None]);
        }
        let both = |a: Array, b: Array| bin(BinaryOp::And, &a, &b);
        let chosen = |k: usize| match k {
            0 => both(cmp(CompareOp::Gt, lo, v)?, cmp(CompareOp::Lt, lo, hi)?),
            1 => both(cmp(CompareOp::Gt, v, lo)?, cmp(CompareOp::Lt, v, hi)?),
            _ => cmp(CompareOp::Lt, hi, v),
        };
        let mut terms = Vec::with_capacity(3);
        for (k, tk) in t.iter().enumerate() {
            if let Some(tk) = tk {
                terms.push(Some(where_or_zero(&chosen(k)?, tk)?));
            }
        }
        Ok(vec![sum_terms(terms)?])
    }
}

not_linear!(Clamp);

batch_as_leading!(Clamp);

//! Automatic differentiation: the JVP rule trait and the tangent arithmetic the rules use.
//! Each primitive's rule is in its family's file under `prims/`. Forward mode applies the
//! rules; reverse mode traces them into a linear map and transposes it (`linearize.rs`,
//! `transpose.rs`), so a primitive has no reverse-mode rule of its own, as in JAX.
//!
//! Rules are written with [`lax`] primitives, so they run eagerly on concrete arrays and are
//! recorded when an enclosing function is being traced: `jit(grad(f))` compiles the
//! backward pass, and `grad(grad(f))` differentiates the recorded backward pass again.
//!
//! A JVP rule must be linear in the tangents, and apply to them only primitives that have a
//! transpose rule: elementwise primitives give their partial derivatives ([`Partial`]) and
//! multiply (`t_out = Σ ∂_i · t_i`); structural primitives apply themselves to the tangent.
//! Only floating values carry derivatives; integer and bool values (comparisons, `argsort`
//! positions, random bits) are constants, so their gradients are zero, as in JAX.

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{
    with_params, BinaryOp, CompareOp, Literal, Primitive, ReduceOp, ScatterMode, UnaryOp,
};
use crate::runtime::Device;
use crate::shape::Aval;

// ----- small helpers over lax -----

/// A constant with `like`'s shape and dtype.
pub(crate) fn lit(like: &Array, v: f64) -> Result<Array> {
    lax::full(
        like.shape(),
        Literal::from_f64(v, like.dtype()),
        Some(like.device()),
    )
}

/// Zeros of an abstract value: a scalar broadcast (a view, so the zeros a JVP rule pads a
/// missing tangent with cost no memory when linearization keeps them as residuals).
pub(crate) fn zeros(aval: &Aval, device: &Device) -> Result<Array> {
    let zero = lax::full(&[], Literal::from_f64(0.0, aval.dtype), Some(device))?;
    if aval.shape.is_empty() {
        return Ok(zero);
    }
    lax::broadcast_in_dim(&zero, &aval.shape, &[])
}

pub(crate) fn un(op: UnaryOp, x: &Array) -> Result<Array> {
    lax::unary(op, x)
}

pub(crate) fn bin(op: BinaryOp, x: &Array, y: &Array) -> Result<Array> {
    lax::binary(op, x, y)
}

pub(crate) fn add(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Add, x, y)
}

pub(crate) fn sub(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Sub, x, y)
}

pub(crate) fn mul(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Mul, x, y)
}

pub(crate) fn div(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Div, x, y)
}

pub(crate) fn neg(x: &Array) -> Result<Array> {
    un(UnaryOp::Neg, x)
}

pub(crate) fn recip(x: &Array) -> Result<Array> {
    un(UnaryOp::Reciprocal, x)
}

/// JAX's `integer_pow(x, n)`: `x^|n|` by repeated squaring in JAX's order of products,
/// its reciprocal for negative `n`, with JAX's derivative `n * integer_pow(x, n - 1)`.
/// The rules JAX writes with it (`cbrt`'s, `reciprocal`'s, a quotient's) then have JAX's
/// derivatives of every order: differentiating `1 / (y * y)` through `div` and `mul`
/// instead gives `0 * inf` (NaN) where `y` is infinite, and JAX 0.
pub(crate) fn integer_pow(x: &Array, n: i32) -> Result<Array> {
    let value = move |x: &Array| -> Result<Array> {
        let (mut e, mut base, mut acc) = (n.unsigned_abs(), x.clone(), None::<Array>);
        while e > 0 {
            if e & 1 == 1 {
                acc = Some(match acc {
                    None => base.clone(),
                    Some(a) => mul(&a, &base)?,
                });
            }
            e >>= 1;
            if e > 0 {
                base = mul(&base, &base)?;
            }
        }
        match acc {
            None => lit(x, 1.0),
            Some(a) if n < 0 => div(&lit(&a, 1.0)?, &a),
            Some(a) => Ok(a),
        }
    };
    crate::jit::custom_jvp(
        move |x: Array| value(&x),
        move |x: Array, t: Array| -> Result<(Array, Array)> {
            // JAX's `_integer_pow_jvp`, its special cases included; the primal is the
            // power again, so that a derivative of a higher order takes this rule too.
            let dt = match n {
                0 => lit(&x, 0.0)?,
                1 => t,
                2 => mul(&t, &mul(&lit(&x, 2.0)?, &x)?)?,
                _ => mul(&t, &mul(&lit(&x, f64::from(n))?, &integer_pow(&x, n - 1)?)?)?,
            };
            Ok((integer_pow(&x, n)?, dt))
        },
    )
    .named("integer_pow")
    .call(x.clone())
}

/// JAX's `rsqrt(x)`, `1 / sqrt(x)`, with JAX's derivative `-0.5 * (rsqrt(x) / x)` (which
/// underflows to 0 for large `x`, where the derivative of `1 / sqrt(x)` through `div` and
/// `sqrt` stays a tiny number).
pub(crate) fn rsqrt(x: &Array) -> Result<Array> {
    let value = |x: &Array| recip(&un(UnaryOp::Sqrt, x)?);
    crate::jit::custom_jvp(
        move |x: Array| value(&x),
        move |x: Array, t: Array| -> Result<(Array, Array)> {
            let ans = rsqrt(&x)?;
            let d = mul(&lit(&x, -0.5)?, &div(&ans, &x)?)?;
            Ok((ans, mul(&t, &d)?))
        },
    )
    .named("rsqrt")
    .call(x.clone())
}

/// JAX's `square` inside its rules: `x * x`, whose derivative is `2 * x` (infinite where
/// `2 * x` overflows, where `x * t + t * x` would stay finite).
pub(crate) fn square(x: &Array) -> Result<Array> {
    integer_pow(x, 2)
}

pub(crate) fn cmp(op: CompareOp, x: &Array, y: &Array) -> Result<Array> {
    lax::compare(op, x, y)
}

pub(crate) fn sel(p: &Array, on_true: &Array, on_false: &Array) -> Result<Array> {
    lax::select(p, on_true, on_false)
}

/// `x * c` for a constant `c`.
pub(crate) fn scale(x: &Array, c: f64) -> Result<Array> {
    mul(x, &lit(x, c)?)
}

/// `x` where `p`, zero elsewhere.
pub(crate) fn where_or_zero(p: &Array, x: &Array) -> Result<Array> {
    sel(p, x, &lit(x, 0.0)?)
}

/// `x` broadcast back over the `axes` a reduction of a `shape` operand removed.
pub(crate) fn unreduce(x: &Array, shape: &[usize], axes: &[usize]) -> Result<Array> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    lax::broadcast_in_dim(x, shape, &kept)
}

/// `sum(x)` over `axes` (nothing to do for no axes).
pub(crate) fn sum_axes(x: &Array, axes: &[usize]) -> Result<Array> {
    if axes.is_empty() {
        Ok(x.clone())
    } else {
        lax::reduce(ReduceOp::Sum, x, axes)
    }
}

/// Elements of `a` at flat positions `pos` (int32, any shape); positions outside `a` give
/// zero (they were dropped by the scatter being differentiated).
pub(crate) fn gather_flat(a: &Array, pos: &Array) -> Result<Array> {
    let n = a.size();
    if n == 0 || pos.size() == 0 {
        return lax::full(
            pos.shape(),
            Literal::from_f64(0.0, a.dtype()),
            Some(a.device()),
        );
    }
    let flat = lax::reshape(a, &[n])?;
    let p = lax::reshape(pos, &[pos.size()])?;
    let zero = lax::full(&[p.size()], Literal::I32(0), Some(a.device()))?;
    let len = lax::full(&[p.size()], Literal::I32(n as i32), Some(a.device()))?;
    let valid = bin(
        BinaryOp::And,
        &cmp(CompareOp::Ge, &p, &zero)?,
        &cmp(CompareOp::Lt, &p, &len)?,
    )?;
    let g = lax::gather(&flat, &sel(&valid, &p, &zero)?, 0)?;
    lax::reshape(&where_or_zero(&valid, &g)?, pos.shape())
}

/// Which updates of a replacing scatter land (for duplicate positions, the one the scatter
/// keeps), found by scattering the updates' ids as JAX's rule does; bool, `pos`' shape.
pub(crate) fn set_winners(shape: &[usize], pos: &Array) -> Result<Array> {
    let dev = pos.device();
    let ids = lax::reshape(
        &lax::iota(DType::Int32, &[pos.size()], 0, Some(dev))?,
        pos.shape(),
    )?;
    let none = lax::full(shape, Literal::I32(-1), Some(dev))?;
    let winner = lax::scatter(&none, pos, &ids, ScatterMode::Set)?;
    cmp(CompareOp::Eq, &gather_flat(&winner, pos)?, &ids)
}

pub(crate) fn not_differentiable(prim: &Primitive, why: &str) -> Error {
    Error::arg(
        "grad",
        format!("{} is not differentiable: {why}", prim.name()),
    )
}

// ----- partial derivatives -----

/// One partial derivative of an elementwise primitive.
pub(crate) enum Partial {
    /// Zero (the primitive is flat in this operand, or not differentiable).
    Zero,
    /// One: the tangent passes through.
    One,
    /// Minus one.
    MinusOne,
    /// An array of the output's shape.
    By(Array),
    /// The tangent divided by an array (JAX's `g / y` for a quotient's dividend, which
    /// rounds once where `g * (1 / y)` rounds twice).
    DivBy(Array),
    /// `(-t * a) * b`, in JAX's order (a quotient's divisor: `-g * x * y^-2`).
    NegBy(Array, Array),
    /// A linear function of the tangent, as JAX's rule writes it (its order of
    /// operations, so first derivatives round as JAX's and later ones follow its rules).
    Linear(TangentMap),
}

/// A linear map of tangents (see [`Partial::Linear`]).
pub(crate) type TangentMap = Box<dyn Fn(&Array) -> Result<Array>>;

impl Partial {
    /// `∂ · t`, or `None` for zero.
    pub(crate) fn apply(&self, t: &Array) -> Result<Option<Array>> {
        Ok(match self {
            Partial::Zero => None,
            Partial::One => Some(t.clone()),
            Partial::MinusOne => Some(neg(t)?),
            Partial::By(d) => Some(mul(t, d)?),
            Partial::DivBy(d) => Some(div(t, d)?),
            Partial::NegBy(a, b) => Some(mul(&mul(&neg(t)?, a)?, b)?),
            Partial::Linear(f) => Some(f(t)?),
        })
    }
}

/// Tangent or zeros.
pub(crate) fn or_zeros(t: &Option<Array>, like: &Array) -> Result<Array> {
    match t {
        Some(t) => Ok(t.clone()),
        None => zeros(like.aval(), like.device()),
    }
}

/// Sums the present terms.
pub(crate) fn sum_terms(terms: Vec<Option<Array>>) -> Result<Option<Array>> {
    let mut acc: Option<Array> = None;
    for t in terms.into_iter().flatten() {
        acc = Some(match acc {
            None => t,
            Some(a) => add(&a, &t)?,
        });
    }
    Ok(acc)
}

impl Partial {
    pub(crate) fn apply_opt(&self, t: &Option<Array>) -> Result<Option<Array>> {
        match t {
            Some(t) => self.apply(t),
            None => Ok(None),
        }
    }
}

/// A linear primitive of one operand applied to the tangent (`None` stays `None`): the JVP
/// of `copy`, the views, `reduce_sum`, ...
pub(crate) fn linear(prim: Primitive, t: &Option<Array>) -> Result<Vec<Option<Array>>> {
    Ok(vec![match t {
        Some(t) => Some(lax::bind(prim, &[t], None)?),
        None => None,
    }])
}

/// A primitive's outputs and their tangents (`None`: zero).
pub(crate) type OutputsAndTangents = (Vec<Array>, Vec<Option<Array>>);

/// The JVP rule of one primitive, implemented by its view (`primitive::params`) in its
/// family's file under `prims/`: the tangents of `prim(x...) = outs` given the operands'
/// tangents `t` (`None` for zero), one per output (`None` for zero or for an integer
/// output). Only called when some operand has a tangent and some output is floating.
///
/// A rule must be linear in the tangents and apply to them only primitives that have a
/// transpose rule (`jit/transpose.rs`): reverse mode transposes what it records.
pub(crate) trait JvpRule {
    /// The outputs' tangents.
    fn jvp(&self, x: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>>;

    /// The outputs and their tangents, for a primitive whose JAX rule computes its outputs
    /// itself, otherwise than the primitive does (`prod` and `cumprod`: by the trees of
    /// products their tangents come from, finite where the plain product overflows
    /// midway); the interpreters then use these outputs. `None` (the default): the
    /// primitive's own outputs, with [`JvpRule::jvp`]'s tangents.
    fn jvp_with_outputs(
        &self,
        _x: &[&Array],
        _t: &[Option<Array>],
    ) -> Result<Option<OutputsAndTangents>> {
        Ok(None)
    }
}

/// [`JvpRule::jvp_with_outputs`] of `prim`.
pub(crate) fn jvp_with_outputs(
    prim: &Primitive,
    x: &[&Array],
    t: &[Option<Array>],
) -> Result<Option<OutputsAndTangents>> {
    with_params!(prim, p => p.jvp_with_outputs(x, t))
}

/// [`JvpRule::jvp`] of `prim`.
pub(crate) fn jvp_rule(
    prim: &Primitive,
    x: &[&Array],
    outs: &[Array],
    t: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    with_params!(prim, p => p.jvp(x, outs, t))
}

//! Automatic differentiation: each primitive's JVP rule. Forward mode applies them; reverse
//! mode traces them into a linear map and transposes it (`linearize.rs`, `transpose.rs`), so
//! a primitive has no reverse-mode rule of its own, as in JAX.
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
    BinaryOp, CompareOp, CumulativeOp, Literal, Primitive, ReduceOp, ScatterMode, UnaryOp,
};
use crate::runtime::Device;
use crate::shape::Aval;

// ----- small helpers over lax -----

/// A constant with `like`'s shape and dtype.
fn lit(like: &Array, v: f64) -> Result<Array> {
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

pub(super) fn un(op: UnaryOp, x: &Array) -> Result<Array> {
    lax::unary(op, x)
}

fn bin(op: BinaryOp, x: &Array, y: &Array) -> Result<Array> {
    lax::binary(op, x, y)
}

pub(super) fn add(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Add, x, y)
}

fn sub(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Sub, x, y)
}

pub(super) fn mul(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Mul, x, y)
}

fn div(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Div, x, y)
}

fn neg(x: &Array) -> Result<Array> {
    un(UnaryOp::Neg, x)
}

fn recip(x: &Array) -> Result<Array> {
    un(UnaryOp::Reciprocal, x)
}

fn cmp(op: CompareOp, x: &Array, y: &Array) -> Result<Array> {
    lax::compare(op, x, y)
}

fn sel(p: &Array, on_true: &Array, on_false: &Array) -> Result<Array> {
    lax::select(p, on_true, on_false)
}

/// `x * c` for a constant `c`.
pub(super) fn scale(x: &Array, c: f64) -> Result<Array> {
    mul(x, &lit(x, c)?)
}

/// `x` where `p`, zero elsewhere.
pub(super) fn where_or_zero(p: &Array, x: &Array) -> Result<Array> {
    sel(p, x, &lit(x, 0.0)?)
}

/// `x` broadcast back over the `axes` a reduction of a `shape` operand removed.
pub(super) fn unreduce(x: &Array, shape: &[usize], axes: &[usize]) -> Result<Array> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    lax::broadcast_in_dim(x, shape, &kept)
}

/// `sum(x)` over `axes` (nothing to do for no axes).
pub(super) fn sum_axes(x: &Array, axes: &[usize]) -> Result<Array> {
    if axes.is_empty() {
        Ok(x.clone())
    } else {
        lax::reduce(ReduceOp::Sum, x, axes)
    }
}

/// Elements of `a` at flat positions `pos` (int32, any shape); positions outside `a` give
/// zero (they were dropped by the scatter being differentiated).
pub(super) fn gather_flat(a: &Array, pos: &Array) -> Result<Array> {
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
pub(super) fn set_winners(shape: &[usize], pos: &Array) -> Result<Array> {
    let dev = pos.device();
    let ids = lax::reshape(
        &lax::iota(DType::Int32, &[pos.size()], 0, Some(dev))?,
        pos.shape(),
    )?;
    let none = lax::full(shape, Literal::I32(-1), Some(dev))?;
    let winner = lax::scatter(&none, pos, &ids, ScatterMode::Set)?;
    cmp(CompareOp::Eq, &gather_flat(&winner, pos)?, &ids)
}

fn not_differentiable(prim: &Primitive, why: &str) -> Error {
    Error::arg(
        "grad",
        format!("{} is not differentiable: {why}", prim.name()),
    )
}

// ----- elementwise partial derivatives -----

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
}

impl Partial {
    /// `∂ · t`, or `None` for zero.
    fn apply(&self, t: &Array) -> Result<Option<Array>> {
        Ok(match self {
            Partial::Zero => None,
            Partial::One => Some(t.clone()),
            Partial::MinusOne => Some(neg(t)?),
            Partial::By(d) => Some(mul(t, d)?),
        })
    }
}

/// `∂y/∂x` for `y = op(x)`, in terms of `x` and `y`.
fn unary_partial(op: UnaryOp, x: &Array, y: &Array) -> Result<Partial> {
    use UnaryOp::*;
    if !x.dtype().is_floating() {
        return Ok(Partial::Zero);
    }
    let one = || lit(x, 1.0);
    let sq = |a: &Array| mul(a, a);
    Ok(Partial::By(match op {
        Neg => return Ok(Partial::MinusOne),
        Sign | Floor | Ceil | Round | Trunc | Not | IsNan | IsInf | IsFinite | SignBit
        | StopGradient | PopulationCount => return Ok(Partial::Zero),
        Abs => un(Sign, x)?,
        Square => scale(x, 2.0)?,
        Reciprocal => neg(&sq(y)?)?,
        Exp => y.clone(),
        Exp2 => scale(y, std::f64::consts::LN_2)?,
        Expm1 => add(y, &one()?)?,
        Log => recip(x)?,
        Log2 => recip(&scale(x, std::f64::consts::LN_2)?)?,
        Log10 => recip(&scale(x, std::f64::consts::LN_10)?)?,
        Log1p => recip(&add(x, &one()?)?)?,
        Sqrt => div(&lit(x, 0.5)?, y)?,
        Cbrt => div(&lit(x, 1.0 / 3.0)?, &sq(y)?)?,
        Sin => un(Cos, x)?,
        Cos => neg(&un(Sin, x)?)?,
        Tan => add(&one()?, &sq(y)?)?,
        Asin => recip(&un(Sqrt, &sub(&one()?, &sq(x)?)?)?)?,
        Acos => neg(&recip(&un(Sqrt, &sub(&one()?, &sq(x)?)?)?)?)?,
        Atan => recip(&add(&one()?, &sq(x)?)?)?,
        Sinh => un(Cosh, x)?,
        Cosh => un(Sinh, x)?,
        Tanh => sub(&one()?, &sq(y)?)?,
        Asinh => recip(&un(Sqrt, &add(&sq(x)?, &one()?)?)?)?,
        Acosh => recip(&un(Sqrt, &mul(&sub(x, &one()?)?, &add(x, &one()?)?)?)?)?,
        Atanh => recip(&sub(&one()?, &sq(x)?)?)?,
        ErfInv => mul(
            &lit(x, std::f64::consts::PI.sqrt() / 2.0)?,
            &un(Exp, &sq(y)?)?,
        )?,
    }))
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
        Div if k == 0 => Partial::By(recip(y)?),
        Div => Partial::By(neg(&div(z, y)?)?),
        FloorDiv | And | Or | Xor | ShiftLeft | ShiftRight | Gcd | Lcm => Partial::Zero,
        Rem | Fmod if k == 0 => Partial::One,
        Rem => Partial::By(neg(&un(UnaryOp::Floor, &div(x, y)?)?)?),
        Fmod => Partial::By(neg(&un(UnaryOp::Trunc, &div(x, y)?)?)?),
        // JAX's rules: 0 where y == 0 for x; log(x) with x == 0 replaced by 1 for y.
        Pow if k == 0 => {
            let y_zero = cmp(CompareOp::Eq, y, &c(0.0)?)?;
            Partial::By(where_or_zero(
                &un(UnaryOp::Not, &y_zero)?,
                &mul(y, &bin(Pow, x, &sub(y, &c(1.0)?)?)?)?,
            )?)
        }
        Pow => {
            let x_safe = sel(&cmp(CompareOp::Eq, x, &c(0.0)?)?, &c(1.0)?, x)?;
            Partial::By(mul(&un(UnaryOp::Log, &x_safe)?, z)?)
        }
        Max => chosen(CompareOp::Gt)?,
        Min => chosen(CompareOp::Lt)?,
        Fmax => picked(bin(
            Or,
            &cmp(CompareOp::Lt, x, y)?,
            &un(UnaryOp::IsNan, x)?,
        )?)?,
        Fmin => picked(bin(
            Or,
            &cmp(CompareOp::Gt, x, y)?,
            &un(UnaryOp::IsNan, x)?,
        )?)?,
        Atan2 => {
            let den = add(&mul(x, x)?, &mul(y, y)?)?;
            if k == 0 {
                Partial::By(div(y, &den)?)
            } else {
                Partial::By(neg(&div(x, &den)?)?)
            }
        }
        Hypot => Partial::By(div(a, z)?),
        Copysign if k == 0 => {
            let flip = sel(&un(UnaryOp::SignBit, y)?, &c(-1.0)?, &c(1.0)?)?;
            Partial::By(mul(&un(UnaryOp::Sign, x)?, &flip)?)
        }
        Copysign => Partial::Zero,
        LogAddExp => Partial::By(un(UnaryOp::Exp, &sub(a, z)?)?),
        LogAddExp2 => Partial::By(un(UnaryOp::Exp2, &sub(a, z)?)?),
    })
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
            // The product of the other elements, exact when some are zero.
            let is_zero = cmp(CompareOp::Eq, x, &lit(x, 0.0)?)?;
            let zeros = lax::reduce(
                ReduceOp::Sum,
                &lax::convert_element_type(&is_zero, x.dtype())?,
                axes,
            )?;
            let nonzero = sel(&is_zero, &lit(x, 1.0)?, x)?;
            let p = unreduce(&lax::reduce(ReduceOp::Prod, &nonzero, axes)?, shape, axes)?;
            let zeros = unreduce(&zeros, shape, axes)?;
            let none = cmp(CompareOp::Eq, &zeros, &lit(x, 0.0)?)?;
            let one = cmp(CompareOp::Eq, &zeros, &lit(x, 1.0)?)?;
            sel(
                &is_zero,
                &where_or_zero(&one, &p)?,
                &where_or_zero(&none, &div(&p, &nonzero)?)?,
            )
        }
        ReduceOp::Sum | ReduceOp::And | ReduceOp::Or => Ok(lit(x, 1.0)?),
    }
}

/// Tangent or zeros.
pub(super) fn or_zeros(t: &Option<Array>, like: &Array) -> Result<Array> {
    match t {
        Some(t) => Ok(t.clone()),
        None => zeros(like.aval(), like.device()),
    }
}

/// Sums the present terms.
fn sum_terms(terms: Vec<Option<Array>>) -> Result<Option<Array>> {
    let mut acc: Option<Array> = None;
    for t in terms.into_iter().flatten() {
        acc = Some(match acc {
            None => t,
            Some(a) => add(&a, &t)?,
        });
    }
    Ok(acc)
}

// ----- the rules -----

/// The JVP rule: the tangents of `prim(x...) = outs` given the operands' tangents (`None`
/// for zero), one per output (`None` for zero or for an integer output). Only called when
/// some operand has a tangent and some output is floating.
pub(crate) fn jvp_rule(
    prim: &Primitive,
    x: &[&Array],
    outs: &[Array],
    t: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    match prim {
        Primitive::CustomJvpCall { .. } | Primitive::CustomVjpCall { .. } => Err(own_rules(prim)),
        // The values' tangent is the operand's tangent at the chosen positions.
        Primitive::TopK { axis, .. } => {
            let values = match &t[0] {
                Some(t) => Some(lax::gather(t, &outs[1], *axis)?),
                None => None,
            };
            Ok(vec![values, None])
        }
        _ => Ok(vec![jvp_single(prim, x, &outs[0], t)?]),
    }
}

/// The error for a custom call reaching the table's rules: the interpreters apply its own
/// (`linearize.rs`).
fn own_rules(prim: &Primitive) -> Error {
    Error::arg(
        prim.name(),
        "is differentiated by its own rules (jit/linearize.rs), not the table's",
    )
}

/// [`jvp_rule`] of a single-output primitive.
fn jvp_single(
    prim: &Primitive,
    x: &[&Array],
    out: &Array,
    t: &[Option<Array>],
) -> Result<Option<Array>> {
    use Primitive as P;
    let t0 = || -> Option<&Array> { t[0].as_ref() };
    // A linear primitive of one operand: apply it to the tangent.
    let linear1 = |p: Primitive| -> Result<Option<Array>> {
        match t0() {
            Some(t) => Ok(Some(lax::bind(p, &[t], None)?)),
            None => Ok(None),
        }
    };
    match prim {
        P::Unary(op) => unary_partial(*op, x[0], out)?.apply_opt(&t[0]),
        P::Binary(op) => {
            let mut terms = Vec::with_capacity(2);
            for (k, tk) in t.iter().enumerate() {
                if let Some(tk) = tk {
                    terms.push(binary_partial(*op, k, x[0], x[1], out)?.apply(tk)?);
                }
            }
            sum_terms(terms)
        }
        P::Fma => sum_terms(vec![
            Partial::By(x[1].clone()).apply_opt(&t[0])?,
            Partial::By(x[0].clone()).apply_opt(&t[1])?,
            t[2].clone(),
        ]),
        P::Select => {
            if t[1].is_none() && t[2].is_none() {
                return Ok(None);
            }
            Ok(Some(sel(
                x[0],
                &or_zeros(&t[1], out)?,
                &or_zeros(&t[2], out)?,
            )?))
        }
        P::ConvertElementType { dtype, weak } => {
            if !x[0].dtype().is_floating() || !dtype.is_floating() {
                return Ok(None);
            }
            linear1(P::ConvertElementType {
                dtype: *dtype,
                weak: *weak,
            })
        }
        P::Copy
        | P::BroadcastInDim { .. }
        | P::Transpose { .. }
        | P::Reshape { .. }
        | P::Rev { .. }
        | P::Slice { .. } => linear1(prim.clone()),
        P::Reduce { op, axes } => match op {
            ReduceOp::Sum => linear1(prim.clone()),
            ReduceOp::And | ReduceOp::Or => Ok(None),
            _ => match t0() {
                Some(t) => {
                    let d = reduce_partial(*op, x[0], out, axes)?;
                    Ok(Some(lax::reduce(ReduceOp::Sum, &mul(t, &d)?, axes)?))
                }
                None => Ok(None),
            },
        },
        P::Pad { low, high, value } => linear1(P::Pad {
            low: low.clone(),
            high: high.clone(),
            // The padding value is a constant: its tangent is zero.
            value: value.map(|v| Literal::from_f64(0.0, v.dtype())),
        }),
        P::Concatenate { .. } => {
            let parts = t
                .iter()
                .zip(x)
                .map(|(t, x)| or_zeros(t, x))
                .collect::<Result<Vec<_>>>()?;
            let refs: Vec<&Array> = parts.iter().collect();
            Ok(Some(lax::bind(prim.clone(), &refs, None)?))
        }
        P::Gather { axis } => match t0() {
            Some(t) => Ok(Some(lax::gather(t, x[1], *axis)?)),
            None => Ok(None),
        },
        P::BatchMatmul => sum_terms(vec![
            t[0].as_ref()
                .map(|ta| lax::batch_matmul(ta, x[1]))
                .transpose()?,
            t[1].as_ref()
                .map(|tb| lax::batch_matmul(x[0], tb))
                .transpose()?,
        ]),
        P::Cumulative {
            op: CumulativeOp::Sum,
            ..
        } => linear1(prim.clone()),
        P::Cumulative { axis, reverse, .. } => match t0() {
            Some(t) => Ok(Some(cumprod_jvp(x[0], t, *axis, *reverse)?)),
            None => Ok(None),
        },
        P::Sort { indices: false } => match t0() {
            Some(t) => {
                let perm = lax::sort(x[0], true)?;
                Ok(Some(lax::gather(t, &perm, x[0].ndim() - 1)?))
            }
            None => Ok(None),
        },
        P::Scatter { mode } => {
            let (base, pos, vals) = (x[0], x[1], x[2]);
            match mode {
                ScatterMode::Add => Ok(Some(lax::scatter(
                    &or_zeros(&t[0], base)?,
                    pos,
                    &or_zeros(&t[2], vals)?,
                    *mode,
                )?)),
                ScatterMode::Set => {
                    // Clear the written positions, then add the winning updates' tangents.
                    let cleared = lax::scatter(
                        &or_zeros(&t[0], base)?,
                        pos,
                        &zeros(vals.aval(), vals.device())?,
                        ScatterMode::Set,
                    )?;
                    let won = set_winners(base.shape(), pos)?;
                    let tv = where_or_zero(&won, &or_zeros(&t[2], vals)?)?;
                    Ok(Some(lax::scatter(&cleared, pos, &tv, ScatterMode::Add)?))
                }
                ScatterMode::Min | ScatterMode::Max => {
                    // The winner's tangent (ties add up).
                    let from_base = match &t[0] {
                        Some(tb) => Some(where_or_zero(&cmp(CompareOp::Eq, base, out)?, tb)?),
                        None => None,
                    };
                    let from_vals = match &t[2] {
                        Some(tv) => {
                            let won = cmp(CompareOp::Eq, vals, &gather_flat(out, pos)?)?;
                            Some(lax::scatter(
                                &zeros(out.aval(), out.device())?,
                                pos,
                                &where_or_zero(&won, tv)?,
                                ScatterMode::Add,
                            )?)
                        }
                        None => None,
                    };
                    sum_terms(vec![from_base, from_vals])
                }
                ScatterMode::Mul => Err(not_differentiable(
                    prim,
                    "a multiplying scatter has a derivative only for unique positions (as in JAX)",
                )),
            }
        }
        // Integer or bool results: no tangent.
        P::Compare(_)
        | P::Full { .. }
        | P::Iota { .. }
        | P::Threefry { .. }
        | P::BitcastConvertType { .. }
        | P::SearchSorted { .. }
        | P::ArgReduce { .. }
        | P::Sort { indices: true } => Ok(None),
        P::TopK { .. } | P::CustomJvpCall { .. } | P::CustomVjpCall { .. } => {
            Err(Error::arg(prim.name(), "has several outputs (jvp_rule)"))
        }
        P::CustomLin { .. } => Err(Error::arg(
            prim.name(),
            "is only transposed by reverse mode, never differentiated",
        )),
    }
}

impl Partial {
    fn apply_opt(&self, t: &Option<Array>) -> Result<Option<Array>> {
        match t {
            Some(t) => self.apply(t),
            None => Ok(None),
        }
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

//! Automatic differentiation over a traced [`Graph`]: each primitive's JVP rule (forward
//! mode) and VJP rule (reverse mode), and the two interpreters that apply them.
//!
//! Rules are written with [`lax`] primitives, so they run eagerly on concrete arrays and are
//! recorded when an enclosing function is being traced: `jit(grad(f))` compiles the
//! backward pass, and `grad(grad(f))` differentiates the recorded backward pass again.
//!
//! Elementwise primitives share one table of partial derivatives ([`Partial`]) that both
//! modes use (`t_out = Σ ∂_i · t_i`, `ct_i = ∂_i · ct`). Structural primitives are linear:
//! their JVP applies the primitive to the tangent, and their VJP is the transposed map.
//! Only floating values carry derivatives; integer and bool values (comparisons, `argsort`
//! positions, random bits) are constants, so their gradients are zero, as in JAX.

use super::custom::{check_types, rules_of, Residuals, Rules};
use crate::array::{Array, Aval};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax::missing;
use crate::lax::{
    self, BinaryOp, CompareOp, CumulativeOp, Literal, Primitive, ReduceOp, ScatterMode, UnaryOp,
};
use crate::primitive::{CustomCall, Graph};
use crate::runtime::Device;

// ----- small helpers over lax -----

/// A constant with `like`'s shape and dtype.
fn lit(like: &Array, v: f64) -> Result<Array> {
    lax::full(
        like.shape(),
        Literal::from_f64(v, like.dtype()),
        Some(like.device()),
    )
}

/// Zeros of an abstract value.
pub(crate) fn zeros(aval: &Aval, device: &Device) -> Result<Array> {
    lax::full(
        &aval.shape,
        Literal::from_f64(0.0, aval.dtype),
        Some(device),
    )
}

fn un(op: UnaryOp, x: &Array) -> Result<Array> {
    lax::unary(op, x)
}

fn bin(op: BinaryOp, x: &Array, y: &Array) -> Result<Array> {
    lax::binary(op, x, y)
}

fn add(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Add, x, y)
}

fn sub(x: &Array, y: &Array) -> Result<Array> {
    bin(BinaryOp::Sub, x, y)
}

fn mul(x: &Array, y: &Array) -> Result<Array> {
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
fn scale(x: &Array, c: f64) -> Result<Array> {
    mul(x, &lit(x, c)?)
}

/// `x` where `p`, zero elsewhere.
fn where_or_zero(p: &Array, x: &Array) -> Result<Array> {
    sel(p, x, &lit(x, 0.0)?)
}

/// `x` broadcast back over the `axes` a reduction of a `shape` operand removed.
fn unreduce(x: &Array, shape: &[usize], axes: &[usize]) -> Result<Array> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    lax::broadcast_in_dim(x, shape, &kept)
}

/// `sum(x)` over `axes` (nothing to do for no axes).
fn sum_axes(x: &Array, axes: &[usize]) -> Result<Array> {
    if axes.is_empty() {
        Ok(x.clone())
    } else {
        lax::reduce(ReduceOp::Sum, x, axes)
    }
}

/// Elements of `a` at flat positions `pos` (int32, any shape); positions outside `a` give
/// zero (they were dropped by the scatter being differentiated).
fn gather_flat(a: &Array, pos: &Array) -> Result<Array> {
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

/// The flat positions in `x` (of `shape`) that `gather(x, idx, axis)` reads, clamped as the
/// gather clamps them.
fn gather_positions(shape: &[usize], idx: &Array, axis: usize) -> Result<Array> {
    let dev = idx.device();
    let q = idx.shape();
    let i32c = |v: usize| lax::full(q, Literal::I32(v as i32), Some(dev));
    let hi = shape[axis].saturating_sub(1);
    let coord = if idx.dtype() == DType::UInt32 {
        let top = lax::full(q, Literal::U32(hi as u32), Some(dev))?;
        lax::convert_element_type(&bin(BinaryOp::Min, idx, &top)?, DType::Int32)?
    } else {
        let c = lax::convert_element_type(idx, DType::Int32)?;
        bin(
            BinaryOp::Min,
            &bin(BinaryOp::Max, &c, &i32c(0)?)?,
            &i32c(hi)?,
        )?
    };
    let mut stride = 1usize;
    let mut pos: Option<Array> = None;
    for d in (0..shape.len()).rev() {
        let c = if d == axis {
            coord.clone()
        } else {
            lax::iota(DType::Int32, q, d, Some(dev))?
        };
        let term = if stride == 1 {
            c
        } else {
            mul(&c, &i32c(stride)?)?
        };
        pos = Some(match pos {
            None => term,
            Some(p) => add(&p, &term)?,
        });
        stride *= shape[d];
    }
    match pos {
        Some(p) => Ok(p),
        None => i32c(0),
    }
}

/// Which updates of a replacing scatter land (for duplicate positions, the one the scatter
/// keeps), found by scattering the updates' ids as JAX's rule does; bool, `pos`' shape.
fn set_winners(shape: &[usize], pos: &Array) -> Result<Array> {
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
fn or_zeros(t: &Option<Array>, like: &Array) -> Result<Array> {
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
        Primitive::CustomJvpCall { call } => {
            Ok(custom_jvp(call, x, t)?.1.into_iter().map(Some).collect())
        }
        Primitive::CustomVjpCall { call } => Err(no_forward_mode(call)),
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

/// `f()` when `needed`.
fn only(needed: bool, f: impl FnOnce() -> Result<Array>) -> Result<Option<Array>> {
    if needed {
        f().map(Some)
    } else {
        Ok(None)
    }
}

/// The VJP rule: the cotangents of `prim`'s operands given the cotangents `cts` of its
/// outputs (`None` for zero), `None` for operands that get none (integer operands,
/// constants). Cotangents are computed only for operands marked in `needs` (the others may
/// be `None` or not). Only called when some output has a cotangent and some operand needs
/// one.
pub(crate) fn vjp_rule(
    prim: &Primitive,
    x: &[&Array],
    outs: &[Array],
    cts: &[Option<Array>],
    needs: &[bool],
) -> Result<Vec<Option<Array>>> {
    match (prim, cts) {
        // The values' cotangent lands on the chosen positions.
        (Primitive::TopK { axis, .. }, [Some(ct), _]) => {
            let xa = x[0];
            let pos = gather_positions(xa.shape(), &outs[1], *axis)?;
            let base = zeros(xa.aval(), xa.device())?;
            Ok(vec![Some(lax::scatter(&base, &pos, ct, ScatterMode::Add)?)])
        }
        (Primitive::CustomJvpCall { call }, _) => custom_jvp_transposed(call, x, cts, needs),
        (Primitive::CustomVjpCall { call }, _) => Err(Error::arg(
            &call.name,
            "a custom_vjp call is differentiated with its forward rule's residuals \
             (Linearized), not by vjp_rule",
        )),
        (_, [Some(ct)]) => vjp_single(prim, x, &outs[0], ct, needs),
        _ => Ok(vec![None; x.len()]),
    }
}

/// A `custom_vjp` function under forward mode: an error, as in JAX.
fn no_forward_mode(call: &CustomCall) -> Error {
    Error::arg(
        &call.name,
        "a custom_vjp function cannot be differentiated in forward mode (jvp); \
         use custom_jvp for a rule forward mode can use, as in JAX",
    )
}

/// A `custom_jvp` call's rule on its operands `x` and their tangents (zeros where `None`):
/// the outputs and their tangents, checked against the function's output types.
fn custom_jvp(
    call: &CustomCall,
    x: &[&Array],
    t: &[Option<Array>],
) -> Result<(Vec<Array>, Vec<Array>)> {
    let Rules::Jvp(rule) = rules_of(call)? else {
        return Err(Error::arg(
            &call.name,
            "a custom_jvp call without a JVP rule",
        ));
    };
    let ops: Vec<Array> = x.iter().map(|&a| a.clone()).collect();
    let ts = t
        .iter()
        .zip(x)
        .map(|(t, a)| or_zeros(t, a))
        .collect::<Result<Vec<_>>>()?;
    let (ys, tys) = rule(&ops, &ts)?;
    let want = call.fun.out_avals();
    check_types(&call.name, "custom_jvp rule's outputs", &ys, &want)?;
    check_types(&call.name, "custom_jvp rule's tangents", &tys, &want)?;
    Ok((ys, tys))
}

/// Reverse mode of a `custom_jvp` call: its rule is linear in the tangents, so the VJP of
/// the rule's tangent map (traced at zero tangents) is its transpose, computed with the
/// other primitives' rules.
fn custom_jvp_transposed(
    call: &CustomCall,
    x: &[&Array],
    cts: &[Option<Array>],
    needs: &[bool],
) -> Result<Vec<Option<Array>>> {
    let active: Vec<usize> = (0..x.len())
        .filter(|&i| needs[i] && x[i].dtype().is_floating())
        .collect();
    let mut out = vec![None; x.len()];
    if active.is_empty() || cts.iter().all(Option::is_none) {
        return Ok(out);
    }
    let device = x[active[0]].device().clone();
    let at_zero = active
        .iter()
        .map(|&i| zeros(x[i].aval(), x[i].device()))
        .collect::<Result<Vec<_>>>()?;
    let def = crate::tree::TreeDef::list(vec![crate::tree::TreeDef::leaf(); at_zero.len()]);
    let avals: Vec<Aval> = at_zero.iter().map(|a| a.aval().clone()).collect();
    let traced = super::trace_fn(&call.name, &device, &def, &avals, |ts: Vec<Array>| {
        let mut all: Vec<Option<Array>> = vec![None; x.len()];
        for (k, &i) in active.iter().enumerate() {
            all[i] = Some(ts[k].clone());
        }
        Ok(custom_jvp(call, x, &all)?.1)
    })?;
    let lin = Linearized::new(
        traced.graph,
        &traced.consts,
        &at_zero,
        &vec![true; active.len()],
        &device,
    )?;
    for (k, c) in active.iter().zip(lin.backward(cts)?) {
        out[*k] = c;
    }
    Ok(out)
}

/// [`vjp_rule`] of a single-output primitive.
fn vjp_single(
    prim: &Primitive,
    x: &[&Array],
    out: &Array,
    ct: &Array,
    needs: &[bool],
) -> Result<Vec<Option<Array>>> {
    use Primitive as P;
    let xa = x[0];
    Ok(match prim {
        P::Unary(op) => vec![unary_partial(*op, xa, out)?.apply(ct)?],
        P::Binary(op) => (0..2)
            .map(|k| match needs[k] {
                true => binary_partial(*op, k, x[0], x[1], out)?.apply(ct),
                false => Ok(None),
            })
            .collect::<Result<_>>()?,
        P::Fma => vec![
            only(needs[0], || mul(ct, x[1]))?,
            only(needs[1], || mul(ct, x[0]))?,
            Some(ct.clone()),
        ],
        P::Select => {
            let z = lit(ct, 0.0)?;
            vec![
                None,
                only(needs[1], || sel(x[0], ct, &z))?,
                only(needs[2], || sel(x[0], &z, ct))?,
            ]
        }
        P::ConvertElementType { dtype, .. } => {
            if !xa.dtype().is_floating() || !dtype.is_floating() {
                vec![None]
            } else {
                vec![Some(lax::bind(
                    P::ConvertElementType {
                        dtype: xa.dtype(),
                        weak: xa.weak_type(),
                    },
                    &[ct],
                    None,
                )?)]
            }
        }
        P::Copy => vec![Some(ct.clone())],
        P::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let axes: Vec<usize> = (0..shape.len())
                .filter(|d| match broadcast_dimensions.iter().position(|b| b == d) {
                    None => true,
                    Some(i) => xa.shape()[i] == 1 && shape[*d] != 1,
                })
                .collect();
            let s = sum_axes(ct, &axes)?;
            vec![Some(if s.shape() == xa.shape() {
                s
            } else {
                lax::reshape(&s, xa.shape())?
            })]
        }
        P::Transpose { permutation } => {
            let mut inv = vec![0; permutation.len()];
            for (i, &p) in permutation.iter().enumerate() {
                inv[p] = i;
            }
            vec![Some(lax::transpose(ct, &inv)?)]
        }
        P::Reshape { .. } => vec![Some(lax::reshape(ct, xa.shape())?)],
        P::Rev { dimensions } => vec![Some(lax::rev(ct, dimensions)?)],
        P::Reduce { op, axes } => match op {
            ReduceOp::Sum => vec![Some(unreduce(ct, xa.shape(), axes)?)],
            ReduceOp::And | ReduceOp::Or => vec![None],
            _ => {
                let d = reduce_partial(*op, xa, out, axes)?;
                vec![Some(mul(&unreduce(ct, xa.shape(), axes)?, &d)?)]
            }
        },
        P::Slice {
            start_indices,
            limit_indices,
            strides,
        } => vec![Some(slice_transpose(
            ct,
            xa.shape(),
            start_indices,
            limit_indices,
            strides,
        )?)],
        P::Concatenate { dimension } => {
            let mut start = 0;
            let mut cts = Vec::with_capacity(x.len());
            for a in x {
                let mut lo = vec![0; ct.ndim()];
                let mut hi = ct.shape().to_vec();
                lo[*dimension] = start;
                hi[*dimension] = start + a.shape()[*dimension];
                start = hi[*dimension];
                cts.push(Some(lax::slice(ct, &lo, &hi, None)?));
            }
            cts
        }
        P::Pad { low, high, value } => vec![Some(pad_transpose(
            ct,
            xa.shape(),
            low,
            high,
            value.is_none(),
        )?)],
        P::Gather { axis } => {
            let pos = gather_positions(xa.shape(), x[1], *axis)?;
            let base = zeros(xa.aval(), xa.device())?;
            vec![Some(lax::scatter(&base, &pos, ct, ScatterMode::Add)?), None]
        }
        P::BatchMatmul => vec![
            only(needs[0], || {
                lax::batch_matmul(ct, &lax::transpose(x[1], &[0, 2, 1])?)
            })?,
            only(needs[1], || {
                lax::batch_matmul(&lax::transpose(x[0], &[0, 2, 1])?, ct)
            })?,
        ],
        P::Cumulative {
            op: CumulativeOp::Sum,
            axis,
            reverse,
        } => vec![Some(lax::cumsum(ct, *axis, !*reverse)?)],
        P::Cumulative { axis, reverse, .. } => {
            vec![Some(cumprod_vjp(xa, ct, *axis, *reverse)?)]
        }
        P::Sort { indices: false } => {
            let last = xa.ndim() - 1;
            let perm = lax::sort(xa, true)?;
            let inverse = lax::sort(&perm, true)?;
            vec![Some(lax::gather(ct, &inverse, last)?)]
        }
        P::Scatter { mode } => {
            let (base, pos, vals) = (x[0], x[1], x[2]);
            match mode {
                ScatterMode::Add => vec![
                    Some(ct.clone()),
                    None,
                    only(needs[2], || gather_flat(ct, pos))?,
                ],
                ScatterMode::Set => {
                    let cleared =
                        lax::scatter(ct, pos, &zeros(vals.aval(), vals.device())?, *mode)?;
                    let won = set_winners(base.shape(), pos)?;
                    vec![
                        Some(cleared),
                        None,
                        Some(where_or_zero(&won, &gather_flat(ct, pos)?)?),
                    ]
                }
                ScatterMode::Min | ScatterMode::Max => {
                    let base_won = cmp(CompareOp::Eq, base, out)?;
                    let vals_won = cmp(CompareOp::Eq, vals, &gather_flat(out, pos)?)?;
                    vec![
                        Some(where_or_zero(&base_won, ct)?),
                        None,
                        Some(where_or_zero(&vals_won, &gather_flat(ct, pos)?)?),
                    ]
                }
                ScatterMode::Mul => return Err(not_differentiable(
                    prim,
                    "a multiplying scatter has a derivative only for unique positions (as in JAX)",
                )),
            }
        }
        P::Compare(_)
        | P::Full { .. }
        | P::Iota { .. }
        | P::Threefry { .. }
        | P::BitcastConvertType { .. }
        | P::SearchSorted { .. }
        | P::ArgReduce { .. }
        | P::Sort { indices: true } => vec![None; x.len()],
        P::TopK { .. } | P::CustomJvpCall { .. } | P::CustomVjpCall { .. } => {
            return Err(Error::arg(prim.name(), "has several outputs (vjp_rule)"))
        }
    })
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
/// exact where `x` has zeros), and its transpose runs the levels backwards.
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

/// The cotangent of `x` for the cotangent `ct` of `cumprod(x)` along `axis`.
fn cumprod_vjp(x: &Array, ct: &Array, axis: usize, reverse: bool) -> Result<Array> {
    let mut c = ct.clone();
    for (k, p, q) in cumprod_levels(x, axis, reverse)?.into_iter().rev() {
        c = add(
            &shift_along(&mul(&p, &c)?, axis, k, reverse, 0.0)?,
            &mul(&q, &c)?,
        )?;
    }
    Ok(c)
}

/// The transpose of `slice`: `ct` placed back at its window of a zero array of `shape`.
fn slice_transpose(
    ct: &Array,
    shape: &[usize],
    start: &[usize],
    limit: &[usize],
    strides: &[usize],
) -> Result<Array> {
    let mut cur = ct.clone();
    for d in 0..shape.len() {
        let s = strides[d];
        // One element (or none) needs no spreading: the padding below places it (and a
        // huge step would spread it over more elements than any array holds).
        if s == 1 || cur.shape()[d] <= 1 {
            continue;
        }
        // Interleave s - 1 zeros after each element: [.., m, ..] -> [.., m, s, ..] ->
        // [.., m*s, ..], then keep the window's length.
        let m = cur.shape()[d];
        let mut split = cur.shape().to_vec();
        split.insert(d + 1, 1);
        let mut hi = vec![0; split.len()];
        hi[d + 1] = s - 1;
        let zero = Some(Literal::from_f64(0.0, ct.dtype()));
        let spread = lax::pad(
            &lax::reshape(&cur, &split)?,
            &vec![0; split.len()],
            &hi,
            zero,
        )?;
        let mut merged = cur.shape().to_vec();
        merged[d] = m * s;
        let merged_arr = lax::reshape(&spread, &merged)?;
        let mut lim = merged.clone();
        lim[d] = limit[d] - start[d];
        cur = lax::slice(&merged_arr, &vec![0; merged.len()], &lim, None)?;
    }
    let low = start.to_vec();
    let high: Vec<usize> = (0..shape.len())
        .map(|d| shape[d] - start[d] - cur.shape()[d])
        .collect();
    if low.iter().chain(&high).all(|&p| p == 0) {
        return Ok(cur);
    }
    lax::pad(&cur, &low, &high, Some(Literal::from_f64(0.0, ct.dtype())))
}

/// The transpose of `pad`: the window of `ct` over the operand, plus (for edge padding) the
/// padded regions summed into the edge elements they copied.
fn pad_transpose(
    ct: &Array,
    shape: &[usize],
    low: &[usize],
    high: &[usize],
    edge: bool,
) -> Result<Array> {
    let mut cur = ct.clone();
    for d in 0..shape.len() {
        if low[d] + high[d] == 0 {
            continue;
        }
        let n = shape[d];
        let window = |a: &Array, from: usize, to: usize| -> Result<Array> {
            let mut lo = vec![0; a.ndim()];
            let mut hi = a.shape().to_vec();
            lo[d] = from;
            hi[d] = to;
            lax::slice(a, &lo, &hi, None)
        };
        let mut mid = window(&cur, low[d], low[d] + n)?;
        if edge && n > 0 {
            let zero = Some(Literal::from_f64(0.0, ct.dtype()));
            let mut one = cur.shape().to_vec();
            one[d] = 1;
            let r = cur.ndim();
            let onto = |region: Array, first: bool| -> Result<Array> {
                let s = lax::reshape(&lax::reduce(ReduceOp::Sum, &region, &[d])?, &one)?;
                let mut lo = vec![0; r];
                let mut hi = vec![0; r];
                if first {
                    hi[d] = n - 1;
                } else {
                    lo[d] = n - 1;
                }
                lax::pad(&s, &lo, &hi, zero)
            };
            if low[d] > 0 {
                mid = add(&mid, &onto(window(&cur, 0, low[d])?, true)?)?;
            }
            if high[d] > 0 {
                let total = cur.shape()[d];
                mid = add(&mid, &onto(window(&cur, total - high[d], total)?, false)?)?;
            }
        }
        cur = mid;
    }
    Ok(cur)
}

// ----- interpreters -----

/// Which variables carry derivatives: floating values that depend on an active input.
fn activity(graph: &Graph, active_inputs: &[bool]) -> Vec<bool> {
    let mut active = vec![false; graph.avals.len()];
    for (&v, &a) in graph.invars.iter().zip(active_inputs) {
        active[v] = a && graph.avals[v].dtype.is_floating();
    }
    for e in &graph.eqns {
        let from_inputs = e.inputs.iter().any(|&i| active[i]);
        for &o in &e.outs {
            active[o] = from_inputs && graph.avals[o].dtype.is_floating();
        }
    }
    active
}

/// Forward mode: the outputs of `graph` and their tangents (`None`: zero).
pub(crate) fn jvp_graph(
    graph: &Graph,
    consts: &[Array],
    primals: &[Array],
    tangents: &[Option<Array>],
    device: &Device,
) -> Result<(Vec<Array>, Vec<Option<Array>>)> {
    let n = graph.avals.len();
    let mut val: Vec<Option<Array>> = vec![None; n];
    let mut tan: Vec<Option<Array>> = vec![None; n];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        val[v] = Some(a.clone());
    }
    for ((&v, a), t) in graph.invars.iter().zip(primals).zip(tangents) {
        val[v] = Some(a.clone());
        if graph.avals[v].dtype.is_floating() {
            tan[v] = t.clone();
        }
    }
    for e in &graph.eqns {
        let ins = e
            .inputs
            .iter()
            .map(|&i| val[i].as_ref().ok_or_else(|| missing(i)))
            .collect::<Result<Vec<&Array>>>()?;
        let ts: Vec<Option<Array>> = e.inputs.iter().map(|&i| tan[i].clone()).collect();
        if let (Primitive::CustomJvpCall { call }, true) = (&e.prim, ts.iter().any(Option::is_some))
        {
            // The rule gives the outputs too (JAX's custom_jvp uses its primal outputs).
            let (outs, touts) = custom_jvp(call, &ins, &ts)?;
            for ((&o, a), t) in e.outs.iter().zip(outs).zip(touts) {
                if graph.avals[o].dtype.is_floating() {
                    tan[o] = Some(t);
                }
                val[o] = Some(a);
            }
            continue;
        }
        let outs = lax::bind_all(e.prim.clone(), &ins, Some(device))?;
        let floating = e.outs.iter().any(|&o| graph.avals[o].dtype.is_floating());
        if floating && ts.iter().any(Option::is_some) {
            let touts = jvp_rule(&e.prim, &ins, &outs, &ts)?;
            for (&o, t) in e.outs.iter().zip(touts) {
                if graph.avals[o].dtype.is_floating() {
                    tan[o] = t;
                }
            }
        }
        for (&o, a) in e.outs.iter().zip(outs) {
            val[o] = Some(a);
        }
    }
    let outs = graph
        .outvars
        .iter()
        .map(|&o| val[o].clone().ok_or_else(|| missing(o)))
        .collect::<Result<Vec<_>>>()?;
    let touts = graph.outvars.iter().map(|&o| tan[o].clone()).collect();
    Ok((outs, touts))
}

/// A graph evaluated forward with every intermediate value kept, ready for any number of
/// backward passes (`jax.vjp`'s residuals).
pub(crate) struct Linearized {
    graph: Graph,
    env: Vec<Option<Array>>,
    active: Vec<bool>,
    /// The residuals of each `custom_vjp` call's forward rule, by equation.
    residuals: Vec<Option<Residuals>>,
}

impl Linearized {
    /// Evaluates `graph` forward; derivatives flow from the inputs marked in `active_inputs`.
    pub(crate) fn new(
        graph: Graph,
        consts: &[Array],
        primals: &[Array],
        active_inputs: &[bool],
        device: &Device,
    ) -> Result<Linearized> {
        let active = activity(&graph, active_inputs);
        let mut env: Vec<Option<Array>> = vec![None; graph.avals.len()];
        for (&v, a) in graph.constvars.iter().zip(consts) {
            env[v] = Some(a.clone());
        }
        for (&v, a) in graph.invars.iter().zip(primals) {
            env[v] = Some(a.clone());
        }
        let mut residuals: Vec<Option<Residuals>> = vec![None; graph.eqns.len()];
        for (k, e) in graph.eqns.iter().enumerate() {
            let ins = e
                .inputs
                .iter()
                .map(|&i| env[i].as_ref().ok_or_else(|| missing(i)))
                .collect::<Result<Vec<&Array>>>()?;
            let outs = match &e.prim {
                // A custom VJP runs its forward rule, keeping its residuals.
                Primitive::CustomVjpCall { call } if e.inputs.iter().any(|&i| active[i]) => {
                    let Rules::Vjp { fwd, .. } = rules_of(call)? else {
                        return Err(Error::arg(&call.name, "a custom_vjp call without rules"));
                    };
                    let ops: Vec<Array> = ins.iter().map(|&a| a.clone()).collect();
                    let (outs, res) = fwd(&ops)?;
                    let want = call.fun.out_avals();
                    check_types(&call.name, "forward rule's outputs", &outs, &want)?;
                    residuals[k] = Some(res);
                    outs
                }
                _ => lax::bind_all(e.prim.clone(), &ins, Some(device))?,
            };
            for (&o, a) in e.outs.iter().zip(outs) {
                env[o] = Some(a);
            }
        }
        Ok(Linearized {
            graph,
            env,
            active,
            residuals,
        })
    }

    /// The outputs.
    pub(crate) fn outputs(&self) -> Result<Vec<Array>> {
        self.graph
            .outvars
            .iter()
            .map(|&o| self.env[o].clone().ok_or_else(|| missing(o)))
            .collect()
    }

    /// The output avals.
    pub(crate) fn out_avals(&self) -> Vec<Aval> {
        self.graph.out_avals()
    }

    /// Reverse mode: the cotangents of the inputs (`None`: zero) given the outputs'.
    pub(crate) fn backward(&self, cts_out: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let g = &self.graph;
        let mut ct: Vec<Option<Array>> = vec![None; g.avals.len()];
        let accumulate = |slot: &mut Option<Array>, c: Array| -> Result<()> {
            *slot = Some(match slot.take() {
                None => c,
                Some(prev) => add(&prev, &c)?,
            });
            Ok(())
        };
        for (&o, c) in g.outvars.iter().zip(cts_out) {
            if let (Some(c), true) = (c, self.active[o]) {
                accumulate(&mut ct[o], c.clone())?;
            }
        }
        for (k, e) in g.eqns.iter().enumerate().rev() {
            let c: Vec<Option<Array>> = e
                .outs
                .iter()
                .map(|&o| ct[o].take().filter(|_| self.active[o]))
                .collect();
            if c.iter().all(Option::is_none) {
                continue;
            }
            let ins = e
                .inputs
                .iter()
                .map(|&i| self.env[i].as_ref().ok_or_else(|| missing(i)))
                .collect::<Result<Vec<&Array>>>()?;
            let outs = e
                .outs
                .iter()
                .map(|&o| self.env[o].clone().ok_or_else(|| missing(o)))
                .collect::<Result<Vec<Array>>>()?;
            let needs: Vec<bool> = e.inputs.iter().map(|&i| self.active[i]).collect();
            let cts = match (&e.prim, &self.residuals[k]) {
                (Primitive::CustomVjpCall { call }, Some(res)) => {
                    let Rules::Vjp { bwd, .. } = rules_of(call)? else {
                        return Err(Error::arg(&call.name, "a custom_vjp call without rules"));
                    };
                    let full = c
                        .iter()
                        .zip(&outs)
                        .map(|(c, o)| or_zeros(c, o))
                        .collect::<Result<Vec<_>>>()?;
                    let cts = bwd(res, &full)?;
                    let got: Vec<Array> = cts.iter().flatten().cloned().collect();
                    let want: Vec<Aval> = cts
                        .iter()
                        .zip(&ins)
                        .filter(|(c, _)| c.is_some())
                        .map(|(_, a)| a.aval().clone())
                        .collect();
                    check_types(&call.name, "backward rule's cotangents", &got, &want)?;
                    cts
                }
                _ => vjp_rule(&e.prim, &ins, &outs, &c, &needs)?,
            };
            for (&i, ci) in e.inputs.iter().zip(cts) {
                if let (Some(ci), true) = (ci, self.active[i]) {
                    accumulate(&mut ct[i], ci)?;
                }
            }
        }
        Ok(g.invars.iter().map(|&v| ct[v].take()).collect())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Every primitive's JVP against central differences of the primitive itself, and its
    //! VJP against its JVP (`<ct, J t> = <Jᵀ ct, t>`), on float32 operands.

    use super::*;
    use crate::lax::ThreefryOutput;
    use rand::{Rng, SeedableRng};

    fn arr(v: &[f32], shape: &[usize]) -> Array {
        Array::from_slice(v, shape).unwrap()
    }

    fn vals(a: &Array) -> Vec<f64> {
        a.astype(DType::Float32)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(v))
            .collect()
    }

    fn dot_all(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// The primitives the tests run: every table example plus the parameter values that
    /// have rules of their own.
    /// Calls of `sin` on float32[2, 3] with real rules (the table's examples carry none):
    /// a JVP rule `cos(x) t`, and a VJP from the residual `x`.
    fn custom_calls() -> [Primitive; 2] {
        use super::super::custom::{BwdFn, FwdFn, JvpFn};
        use std::sync::Arc;
        let fun = CustomCall::example().fun;
        let jvp: Arc<JvpFn> = Arc::new(|x: &[Array], t: &[Array]| {
            Ok((
                vec![un(UnaryOp::Sin, &x[0])?],
                vec![mul(&t[0], &un(UnaryOp::Cos, &x[0])?)?],
            ))
        });
        let fwd: Arc<FwdFn> = Arc::new(|x: &[Array]| {
            let def = crate::tree::TreeDef::list(vec![crate::tree::TreeDef::leaf()]);
            let res = Residuals {
                leaves: vec![x[0].clone()],
                def,
            };
            Ok((vec![un(UnaryOp::Sin, &x[0])?], res))
        });
        let bwd: Arc<BwdFn> = Arc::new(|res: &Residuals, g: &[Array]| {
            Ok(vec![Some(mul(&g[0], &un(UnaryOp::Cos, &res.leaves[0])?)?)])
        });
        let call = |rules: Rules| CustomCall {
            name: Arc::from("sin"),
            fun: fun.clone(),
            rules: Arc::new(rules),
        };
        [
            Primitive::CustomJvpCall {
                call: call(Rules::Jvp(jvp)),
            },
            Primitive::CustomVjpCall {
                call: call(Rules::Vjp { fwd, bwd }),
            },
        ]
    }

    pub(crate) fn test_primitives() -> Vec<Primitive> {
        let mut prims: Vec<Primitive> = Primitive::examples()
            .into_iter()
            .filter(|p| {
                !matches!(
                    p,
                    Primitive::CustomJvpCall { .. } | Primitive::CustomVjpCall { .. }
                )
            })
            .collect();
        prims.extend(custom_calls());
        prims.extend([
            Primitive::Reduce {
                op: ReduceOp::Prod,
                axes: vec![1],
            },
            Primitive::Reduce {
                op: ReduceOp::Max,
                axes: vec![0, 1],
            },
            Primitive::Reduce {
                op: ReduceOp::Min,
                axes: vec![1],
            },
            Primitive::Sort { indices: false },
            Primitive::Cumulative {
                op: CumulativeOp::Sum,
                axis: 1,
                reverse: true,
            },
            Primitive::Cumulative {
                op: CumulativeOp::Prod,
                axis: 0,
                reverse: false,
            },
            Primitive::Cumulative {
                op: CumulativeOp::Prod,
                axis: 1,
                reverse: true,
            },
            Primitive::Scatter {
                mode: ScatterMode::Set,
            },
            Primitive::Scatter {
                mode: ScatterMode::Min,
            },
            Primitive::Scatter {
                mode: ScatterMode::Max,
            },
            Primitive::Pad {
                low: vec![2, 1],
                high: vec![1, 3],
                value: None,
            },
            Primitive::Slice {
                start_indices: vec![1, 0],
                limit_indices: vec![2, 3],
                strides: vec![1, 3],
            },
        ]);
        prims
    }

    /// The domain of float operands where the primitive is smooth.
    fn domain(prim: &Primitive, k: usize) -> (f32, f32) {
        use UnaryOp::*;
        match prim {
            Primitive::Unary(Acosh) => (1.5, 2.5),
            Primitive::Unary(Asin | Acos | Atanh | ErfInv) => (-0.8, 0.8),
            Primitive::Unary(Tan) => (-1.0, 1.0),
            Primitive::Binary(BinaryOp::Rem | BinaryOp::Fmod | BinaryOp::FloorDiv) => {
                if k == 0 {
                    (0.2, 0.9)
                } else {
                    (1.0, 1.5)
                }
            }
            _ => (0.5, 1.5),
        }
    }

    /// Float32 operands for `prim`, or `None` when it has no float32 form.
    pub(crate) fn operands(prim: &Primitive, r: &mut impl Rng) -> Option<Vec<Array>> {
        operands_of(prim, DType::Float32, r)
    }

    /// Operands of `dtype` for `prim` (index operands are int32), random in the
    /// primitive's smooth domain; `None` when `prim` has no form for `dtype`.
    pub(crate) fn operands_of(
        prim: &Primitive,
        dtype: DType,
        r: &mut impl Rng,
    ) -> Option<Vec<Array>> {
        let mut f = |shape: &[usize], k: usize| {
            let (lo, hi) = domain(prim, k);
            let n: usize = shape.iter().product();
            let v: Vec<f32> = (0..n)
                .map(|_| match dtype {
                    DType::Bool => r.random_range(0.0f32..2.0).floor(),
                    DType::Int32 | DType::UInt32 => r.random_range(1.0f32..9.0).floor(),
                    _ => r.random_range(lo..hi),
                })
                .collect();
            arr(&v, shape).astype(dtype).unwrap()
        };
        let s = [2, 3];
        let ops = match prim {
            Primitive::Full { .. } | Primitive::Iota { .. } => return None,
            Primitive::Select => vec![
                Array::from_slice(&[true, false, true, false, false, true], &s).unwrap(),
                f(&s, 1),
                f(&s, 2),
            ],
            Primitive::Gather { .. } => {
                vec![
                    f(&s, 0),
                    Array::from_slice(&[2i32, 0, 1, 1, 2, 0], &s).unwrap(),
                ]
            }
            // Base and update values far apart, so no difference step changes which of
            // them is the extreme.
            Primitive::Scatter {
                mode: ScatterMode::Max | ScatterMode::Min,
            } if dtype.is_floating() => {
                let mut v: Vec<f32> = (0..12).map(|i| -0.75 + 0.3 * i as f32).collect();
                for i in (1..v.len()).rev() {
                    v.swap(i, r.random_range(0..=i));
                }
                vec![
                    arr(&v[..6], &s).astype(dtype).unwrap(),
                    Array::from_slice(&[0i32, 5, 2, 2, -1, 7], &s).unwrap(),
                    arr(&v[6..], &s).astype(dtype).unwrap(),
                ]
            }
            Primitive::Scatter { .. } => vec![
                f(&s, 0),
                // A duplicate, a negative and an out-of-range position.
                Array::from_slice(&[0i32, 5, 2, 2, -1, 7], &s).unwrap(),
                f(&s, 2),
            ],
            Primitive::BatchMatmul => vec![f(&[1, 2, 3], 0), f(&[1, 3, 2], 1)],
            // Keys far apart in a random order, so no difference step crosses a swap (or a
            // change of which element is the extreme).
            Primitive::Sort { .. }
            | Primitive::TopK { .. }
            | Primitive::Reduce {
                op: ReduceOp::Max | ReduceOp::Min,
                ..
            } if dtype.is_floating() => {
                let mut v: Vec<f32> = (0..6).map(|i| -0.75 + 0.3 * i as f32).collect();
                for i in (1..v.len()).rev() {
                    v.swap(i, r.random_range(0..=i));
                }
                vec![arr(&v, &s).astype(dtype).unwrap()]
            }
            Primitive::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => {
                let operand: Vec<usize> = broadcast_dimensions.iter().map(|&d| shape[d]).collect();
                vec![f(&operand, 0)]
            }
            Primitive::Concatenate { .. } => vec![f(&s, 0), f(&s, 1), f(&s, 2)],
            p => (0..p.arity()).map(|k| f(&s, k)).collect(),
        };
        let avals: Vec<Aval> = ops.iter().map(|a| a.aval().clone()).collect();
        prim.abstract_eval_all(&avals).ok().map(|_| ops)
    }

    /// Primitives whose derivative is zero wherever it exists (or whose result is not
    /// floating).
    fn flat(prim: &Primitive) -> bool {
        use UnaryOp::*;
        matches!(
            prim,
            Primitive::Unary(
                Sign | Floor
                    | Ceil
                    | Round
                    | Trunc
                    | IsNan
                    | IsInf
                    | IsFinite
                    | SignBit
                    | StopGradient
            ) | Primitive::Binary(BinaryOp::FloorDiv)
                | Primitive::Compare(_)
                | Primitive::Sort { indices: true }
                | Primitive::SearchSorted { .. }
                | Primitive::ArgReduce { .. }
                | Primitive::ConvertElementType {
                    dtype: DType::Bool
                        | DType::Int8
                        | DType::UInt8
                        | DType::Int16
                        | DType::UInt16
                        | DType::Int32
                        | DType::UInt32,
                    ..
                }
                | Primitive::BitcastConvertType { .. }
        )
    }

    #[test]
    fn every_primitive_jvp_matches_differences_and_its_vjp_is_the_transpose() {
        let mut r = rand::rngs::StdRng::seed_from_u64(7);
        let prims = test_primitives();
        let mut checked = [false; Primitive::COUNT];
        let mut failures = Vec::new();
        for prim in &prims {
            let Some(x) = operands(prim, &mut r) else {
                // No float form: random bits, iota, constants, bitcasts to floats.
                assert!(
                    matches!(
                        prim,
                        Primitive::Full { .. }
                            | Primitive::Iota { .. }
                            | Primitive::Threefry { .. }
                            | Primitive::BitcastConvertType { .. }
                            | Primitive::Binary(_)
                            | Primitive::Unary(UnaryOp::Not | UnaryOp::PopulationCount)
                    ),
                    "{prim:?} has no float32 test operands"
                );
                continue;
            };
            if let Primitive::CustomVjpCall { .. } = prim {
                // Reverse mode only, from its forward rule's residuals (Linearized):
                // tests/core/custom.rs checks it under grad, jit and vmap.
                checked[prim.variant_index()] = true;
                continue;
            }
            let refs: Vec<&Array> = x.iter().collect();
            let outs = lax::bind_all(prim.clone(), &refs, None).unwrap();
            let t: Vec<Option<Array>> = x
                .iter()
                .map(|a| {
                    a.dtype().is_floating().then(|| {
                        let v: Vec<f32> =
                            (0..a.size()).map(|_| r.random_range(-1.0..1.0)).collect();
                        arr(&v, a.shape())
                    })
                })
                .collect();
            let floating: Vec<bool> = outs.iter().map(|o| o.dtype().is_floating()).collect();
            if !floating.contains(&true) || flat(prim) {
                if floating.contains(&true) {
                    let jv = jvp_rule(prim, &refs, &outs, &t).unwrap();
                    assert!(
                        jv.iter().all(Option::is_none),
                        "{prim:?} should have a zero derivative"
                    );
                }
                checked[prim.variant_index()] = true;
                continue;
            }
            let jvs = jvp_rule(prim, &refs, &outs, &t).unwrap();
            assert_eq!(jvs.len(), outs.len(), "{prim:?}: a tangent per output");
            // Central differences of the primitive itself, in float32. bfloat16 results
            // are 2^-6 apart near 2-4: a step of 1e-2 would see one rounding or none.
            let dtype = outs[0].dtype();
            let h = if dtype == DType::BFloat16 {
                0.125f32
            } else {
                1e-2
            };
            let moved = |sign: f32| -> Vec<Vec<f64>> {
                let xs: Vec<Array> = x
                    .iter()
                    .zip(&t)
                    .map(|(a, t)| match t {
                        Some(t) => add(a, &scale(t, f64::from(sign * h)).unwrap()).unwrap(),
                        None => a.clone(),
                    })
                    .collect();
                let refs: Vec<&Array> = xs.iter().collect();
                let outs = lax::bind_all(prim.clone(), &refs, None).unwrap();
                outs.iter().map(vals).collect()
            };
            let (up, down) = (moved(1.0), moved(-1.0));
            // Differences of float16 results are coarse (11-bit significands).
            let (tol, dot_tol) = match dtype {
                DType::Float16 => (0.1, 2e-3),
                // 8-bit significands: differences of rounded values are coarser still.
                DType::BFloat16 => (0.25, 2e-2),
                _ => (2e-2, 1e-4),
            };
            // The tangent of each floating output, checked against the differences.
            let mut got: Vec<Option<Vec<f64>>> = vec![None; outs.len()];
            for (k, out) in outs.iter().enumerate().filter(|&(k, _)| floating[k]) {
                let jv = jvs[k]
                    .as_ref()
                    .unwrap_or_else(|| panic!("{prim:?}: no tangent for output {k}"));
                assert_eq!(jv.shape(), out.shape(), "{prim:?}");
                let fd: Vec<f64> = up[k]
                    .iter()
                    .zip(&down[k])
                    .map(|(u, d)| (u - d) / (2.0 * f64::from(h)))
                    .collect();
                let g = vals(jv);
                let norm = fd.iter().map(|v| v.abs()).fold(1.0, f64::max);
                for (i, (g, w)) in g.iter().zip(&fd).enumerate() {
                    if (g - w).abs() > tol * norm {
                        failures.push(format!("{prim:?} jvp[{k}][{i}] = {g}, differences {w}"));
                    }
                }
                got[k] = Some(g);
            }
            // The VJP is the JVP's transpose.
            let ct: Vec<Option<Array>> = outs
                .iter()
                .zip(&floating)
                .map(|(out, &f)| {
                    f.then(|| {
                        let v: Vec<f32> =
                            (0..out.size()).map(|_| r.random_range(-1.0..1.0)).collect();
                        arr(&v, out.shape())
                    })
                })
                .collect();
            let needs: Vec<bool> = t.iter().map(Option::is_some).collect();
            let cts = vjp_rule(prim, &refs, &outs, &ct, &needs).unwrap();
            assert_eq!(cts.len(), x.len(), "{prim:?}");
            let lhs: f64 = ct
                .iter()
                .zip(&got)
                .filter_map(|(c, g)| Some(dot_all(&vals(c.as_ref()?), g.as_ref()?)))
                .sum();
            let mut rhs = 0.0;
            for ((c, t), a) in cts.iter().zip(&t).zip(&x) {
                if let (Some(c), Some(t)) = (c, t) {
                    assert_eq!(c.shape(), a.shape(), "{prim:?} cotangent shape");
                    assert_eq!(c.dtype(), a.dtype(), "{prim:?} cotangent dtype");
                    rhs += dot_all(&vals(c), &vals(t));
                }
            }
            let close = (lhs - rhs).abs() <= dot_tol * (1.0 + lhs.abs());
            if !close {
                failures.push(format!(
                    "{prim:?}: <ct, J t> = {lhs} but <Jᵀ ct, t> = {rhs}"
                ));
            }
            checked[prim.variant_index()] = true;
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // Every variant was checked, or has no float form at all.
        let no_float = [
            Primitive::Full {
                shape: vec![],
                value: Literal::F32(0.0),
            }
            .variant_index(),
            Primitive::Iota {
                dtype: DType::Int32,
                shape: vec![1],
                dimension: 0,
            }
            .variant_index(),
            Primitive::Threefry {
                output: ThreefryOutput::Xor,
            }
            .variant_index(),
        ];
        for (i, c) in checked.iter().enumerate() {
            assert!(
                *c || no_float.contains(&i),
                "variant {i} has no checked rule"
            );
        }
    }
}

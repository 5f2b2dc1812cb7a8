//! `jit` against eager mode on random programs: chains of pointwise ops, reductions,
//! views, pads, slices, joins, products and scans over random shapes and input layouts,
//! each run eagerly and under `jit`. Fusion promises the eager bits (a fused reduction
//! reads its values in the unfused order), so every output must match word for word
//! (NaN against NaN). The seed is printed, and a failure prints the program.

use olympus::{jit, lax, numpy as np, Array, ArrayLike, DType, Result};
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

use crate::common::{random_array, rng, words};

/// One step of a random program; indices name earlier values (inputs first).
#[derive(Clone, Debug)]
enum Op {
    Unary(usize, Unary),
    Binary(usize, usize, Binary),
    /// `where(a > 0, b, c)`.
    Where(usize, usize, usize),
    Reduce(usize, Reduce, Vec<isize>, bool),
    Transpose(usize, Vec<isize>),
    Reshape(usize, Vec<usize>),
    BroadcastTo(usize, Vec<usize>),
    /// `lax::slice` with starts, limits and strides.
    Slice(usize, Vec<usize>, Vec<usize>, Vec<usize>),
    /// Widths per axis; edge padding where `edge`, else a constant.
    Pad(usize, Vec<(usize, usize)>, bool),
    Matmul(usize, usize),
    Concat(usize, usize, isize),
    Cumsum(usize, isize),
    /// Rounded to float16 and back.
    Narrow(usize),
    /// A binary op with a weak scalar, on the left where the flag says.
    Scalar(usize, Binary, f64, bool),
    Power(usize, f64),
    /// `take` along an axis (negative and out-of-range positions included).
    Take(usize, isize, Vec<i32>),
    Flip(usize, isize),
    /// `a > b` as float32.
    Greater(usize, usize),
    Sort(usize, isize),
    /// `argmax` along an axis, as float32.
    ArgMax(usize, isize),
    /// Plus `arange` along the last axis.
    PlusIota(usize),
    /// `x.at[positions].op(values)` along the first axis, the values from an earlier
    /// value (broadcast to the update) or else a scalar.
    Update(usize, Vec<i32>, Upd, Option<usize>, f64),
    Clip(usize, f64, f64),
    Roll(usize, isize, isize),
    Diff(usize, isize),
    Cumprod(usize, isize),
    /// `quantile(x, q, axis)`, linear interpolation.
    Quantile(usize, f64, isize),
    /// `var` (or `std` where the flag says) along an axis, with `ddof`.
    Var(usize, isize, usize, bool),
    Logsumexp(usize, isize),
    /// `take_along_axis(x, argsort(x, axis), axis)`: a sort by its positions.
    SortByArgsort(usize, isize),
    Median(usize, isize),
    /// `nansum` (or `nanmax` where the flag says) along an axis.
    NanReduce(usize, isize, bool),
    /// `tril(x, k)` (rank 2 or more).
    Tril(usize, isize),
    /// `einsum` of two values by the spec.
    Einsum(usize, usize, String),
    /// `repeat(x, 2, axis)`.
    Repeat(usize, isize),
    /// `trace(x, offset)` of a matrix.
    Trace(usize, isize),
}

/// A scatter's combining op (`x.at[i].set/add/multiply/min/max`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Upd {
    Set,
    Add,
    Mul,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug)]
enum Unary {
    Neg,
    Exp,
    Tanh,
    Sin,
    SqrtAbs,
    Log1pAbs,
    Square,
    Cos,
    Expm1,
    Floor,
    Sign,
    Arctan,
    Arcsinh,
    Sinh,
    Abs,
    Reciprocal,
    Cbrt,
    Sinc,
    Rint,
    Exp2,
}

#[derive(Clone, Copy, Debug)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Arctan2,
    Hypot,
    Logaddexp,
    Copysign,
    Fmod,
    Remainder,
    /// `power(abs(x), y)`.
    PowerAbs,
}

#[derive(Clone, Copy, Debug)]
enum Reduce {
    Sum,
    Max,
    Min,
    Mean,
    Prod,
}

fn unary(x: &Array, u: Unary) -> Result<Array> {
    match u {
        Unary::Neg => np::negative(x),
        Unary::Exp => np::exp(x),
        Unary::Tanh => np::tanh(x),
        Unary::Sin => np::sin(x),
        Unary::SqrtAbs => np::sqrt(np::abs(x)?),
        Unary::Log1pAbs => np::log1p(np::abs(x)?),
        Unary::Square => np::square(x),
        Unary::Cos => np::cos(x),
        Unary::Expm1 => np::expm1(x),
        Unary::Floor => np::floor(x),
        Unary::Sign => np::sign(x),
        Unary::Arctan => np::arctan(x),
        Unary::Arcsinh => np::arcsinh(x),
        Unary::Sinh => np::sinh(x),
        Unary::Abs => np::abs(x),
        Unary::Reciprocal => np::reciprocal(x),
        Unary::Cbrt => np::cbrt(x),
        Unary::Sinc => np::sinc(x),
        Unary::Rint => np::rint(x),
        Unary::Exp2 => np::exp2(x),
    }
}

fn binary(x: impl ArrayLike, y: impl ArrayLike, f: Binary) -> Result<Array> {
    match f {
        Binary::Add => np::add(x, y),
        Binary::Sub => np::subtract(x, y),
        Binary::Mul => np::multiply(x, y),
        Binary::Div => np::divide(x, y),
        Binary::Max => np::maximum(x, y),
        Binary::Min => np::minimum(x, y),
        Binary::Arctan2 => np::arctan2(x, y),
        Binary::Hypot => np::hypot(x, y),
        Binary::Logaddexp => np::logaddexp(x, y),
        Binary::Copysign => np::copysign(x, y),
        Binary::Fmod => np::fmod(x, y),
        Binary::Remainder => np::remainder(x, y),
        Binary::PowerAbs => np::power(np::abs(x)?, y),
    }
}

fn apply(op: &Op, v: &[Array]) -> Result<Array> {
    match op {
        Op::Unary(a, u) => unary(&v[*a], *u),
        Op::Binary(a, b, f) => binary(&v[*a], &v[*b], *f),
        Op::Scalar(a, f, c, left) => {
            if *left {
                binary(*c, &v[*a], *f)
            } else {
                binary(&v[*a], *c, *f)
            }
        }
        Op::Power(a, p) => np::power(&v[*a], *p),
        Op::Take(a, axis, idx) => {
            let idx = Array::from_slice(idx, &[idx.len()])?;
            np::take(&v[*a], &idx, Some(*axis))
        }
        Op::Flip(a, axis) => np::flip(&v[*a], Some(&[*axis])),
        Op::Greater(a, b) => np::astype(np::greater(&v[*a], &v[*b])?, DType::Float32),
        Op::Sort(a, axis) => np::sort(&v[*a], Some(*axis)),
        Op::ArgMax(a, axis) => np::astype(np::argmax(&v[*a], Some(*axis), false)?, DType::Float32),
        Op::PlusIota(a) => {
            let n = *v[*a].shape().last().unwrap_or(&1);
            np::add(&v[*a], np::arange(n as f32)?)
        }
        Op::Where(c, a, b) => np::r#where(np::greater(&v[*c], 0.0)?, &v[*a], &v[*b]),
        Op::Reduce(a, r, axes, keep) => {
            let axes = Some(axes.as_slice());
            match r {
                Reduce::Sum => np::sum(&v[*a], axes, *keep),
                Reduce::Max => np::max(&v[*a], axes, *keep),
                Reduce::Min => np::min(&v[*a], axes, *keep),
                Reduce::Mean => np::mean(&v[*a], axes, *keep),
                Reduce::Prod => np::prod(&v[*a], axes, *keep),
            }
        }
        Op::Transpose(a, perm) => np::transpose(&v[*a], Some(perm)),
        Op::Reshape(a, shape) => np::reshape(&v[*a], shape.as_slice()),
        Op::BroadcastTo(a, shape) => np::broadcast_to(&v[*a], shape),
        Op::Slice(a, start, limit, step) => lax::slice(&v[*a], start, limit, Some(step)),
        Op::Pad(a, widths, edge) => {
            let mode = if *edge {
                np::PadMode::Edge
            } else {
                np::PadMode::Constant(1.5)
            };
            np::pad(&v[*a], widths, mode)
        }
        Op::Matmul(a, b) => np::matmul(&v[*a], &v[*b]),
        Op::Concat(a, b, axis) => np::concatenate([&v[*a], &v[*b]], *axis),
        Op::Cumsum(a, axis) => np::cumsum(&v[*a], Some(*axis)),
        Op::Narrow(a) => np::astype(np::astype(&v[*a], DType::Float16)?, DType::Float32),
        Op::Update(a, idx, u, src, c) => {
            let at = v[*a].at(idx.clone());
            let src = match src {
                Some(b) => v[*b].clone(),
                None => Array::from_slice(&[*c as f32], &[])?,
            };
            match u {
                Upd::Set => at.set(&src),
                Upd::Add => at.add(&src),
                Upd::Mul => at.multiply(&src),
                Upd::Min => at.min(&src),
                Upd::Max => at.max(&src),
            }
        }
        Op::Clip(a, lo, hi) => np::clip(&v[*a], *lo, *hi),
        Op::Roll(a, shift, axis) => np::roll(&v[*a], &[*shift], Some(&[*axis])),
        Op::Diff(a, axis) => np::diff(&v[*a], 1, *axis, None, None),
        Op::Cumprod(a, axis) => np::cumprod(&v[*a], Some(*axis)),
        Op::Quantile(a, q, axis) => np::quantile(
            &v[*a],
            *q,
            Some(&[*axis]),
            np::QuantileMethod::Linear,
            false,
        ),
        Op::Var(a, axis, ddof, std) => {
            if *std {
                np::std(&v[*a], Some(&[*axis]), *ddof, false)
            } else {
                np::var(&v[*a], Some(&[*axis]), *ddof, false)
            }
        }
        Op::Logsumexp(a, axis) => np::logsumexp(&v[*a], Some(&[*axis]), false),
        Op::SortByArgsort(a, axis) => {
            let order = np::argsort(&v[*a], Some(*axis))?;
            np::take_along_axis(&v[*a], &order, *axis)
        }
        Op::Median(a, axis) => np::median(&v[*a], Some(&[*axis]), false),
        Op::NanReduce(a, axis, max) => {
            if *max {
                np::nanmax(&v[*a], Some(&[*axis]), false)
            } else {
                np::nansum(&v[*a], Some(&[*axis]), false)
            }
        }
        Op::Tril(a, k) => np::tril(&v[*a], *k),
        Op::Einsum(a, b, spec) => np::einsum(spec, [&v[*a], &v[*b]]),
        Op::Repeat(a, axis) => np::repeat(&v[*a], 2, Some(*axis)),
        Op::Trace(a, k) => np::trace(&v[*a], *k, 0, 1),
    }
}

/// A random program: its ops and the values it returns.
#[derive(Clone, Debug)]
struct Program {
    ops: Vec<Op>,
    outputs: Vec<usize>,
}

/// The values an op reads.
fn operands(op: &Op) -> Vec<usize> {
    match op {
        Op::Binary(a, b, _)
        | Op::Matmul(a, b)
        | Op::Concat(a, b, _)
        | Op::Greater(a, b)
        | Op::Einsum(a, b, _) => vec![*a, *b],
        Op::Where(a, b, c) => vec![*a, *b, *c],
        Op::Update(a, _, _, u, _) => std::iter::once(*a).chain(*u).collect(),
        Op::Unary(a, _)
        | Op::Reduce(a, ..)
        | Op::Transpose(a, _)
        | Op::Reshape(a, _)
        | Op::BroadcastTo(a, _)
        | Op::Slice(a, ..)
        | Op::Pad(a, ..)
        | Op::Cumsum(a, _)
        | Op::Narrow(a)
        | Op::Scalar(a, ..)
        | Op::Power(a, _)
        | Op::Take(a, ..)
        | Op::Flip(a, _)
        | Op::Sort(a, _)
        | Op::ArgMax(a, _)
        | Op::PlusIota(a)
        | Op::Clip(a, ..)
        | Op::Roll(a, ..)
        | Op::Diff(a, _)
        | Op::Cumprod(a, _)
        | Op::Quantile(a, ..)
        | Op::Var(a, ..)
        | Op::Logsumexp(a, _)
        | Op::SortByArgsort(a, _)
        | Op::Median(a, _)
        | Op::NanReduce(a, ..)
        | Op::Tril(a, _)
        | Op::Repeat(a, _)
        | Op::Trace(a, _) => vec![*a],
    }
}

/// Which values' tangents may be rounding noise: a quotient of a value by itself (its
/// tangent `t / x - t * x * x^-2` is zero but for roundings) and every value computed
/// from one.
fn noisy_tangents(p: &Program, inputs: usize) -> Vec<bool> {
    let mut noisy = vec![false; inputs];
    for op in &p.ops {
        let own = matches!(op, Op::Binary(a, b, Binary::Div) if a == b);
        noisy.push(own || operands(op).iter().any(|&k| noisy[k]));
    }
    noisy
}

fn run(p: &Program, inputs: Vec<Array>) -> Result<Vec<Array>> {
    let mut v = inputs;
    for op in &p.ops {
        let r = apply(op, &v)?;
        v.push(r);
    }
    Ok(p.outputs.iter().map(|&i| v[i].clone()).collect())
}

/// NumPy's broadcast of two shapes, if they broadcast.
pub(crate) fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let y = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            match (x, y) {
                (x, y) if x == y => Some(x),
                (1, y) => Some(y),
                (x, 1) => Some(x),
                _ => None,
            }
        })
        .collect()
}

/// The shape of `a @ b` under NumPy's rules, if they multiply.
pub(crate) fn matmul_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    match (a.len(), b.len()) {
        (0, _) | (_, 0) => None,
        (1, 1) => (a[0] == b[0]).then(Vec::new),
        (1, _) => (a[0] == b[b.len() - 2]).then(|| {
            let mut s = b[..b.len() - 2].to_vec();
            s.push(b[b.len() - 1]);
            s
        }),
        (_, 1) => (a[a.len() - 1] == b[0]).then(|| a[..a.len() - 1].to_vec()),
        _ => {
            if a[a.len() - 1] != b[b.len() - 2] {
                return None;
            }
            let mut s = broadcast(&a[..a.len() - 2], &b[..b.len() - 2])?;
            s.push(a[a.len() - 2]);
            s.push(b[b.len() - 1]);
            Some(s)
        }
    }
}

const DIMS: [usize; 12] = [1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 33, 0];

fn random_shape(r: &mut StdRng) -> Vec<usize> {
    let rank = r.random_range(0..=3);
    // Mostly small, now and then long enough for reductions of several passes.
    let mut s: Vec<usize> = (0..rank)
        .map(|_| {
            if r.random_bool(0.97) {
                DIMS[r.random_range(0..DIMS.len() - 1)]
            } else {
                DIMS[DIMS.len() - 1]
            }
        })
        .collect();
    if rank > 0 && r.random_bool(0.08) {
        let i = r.random_range(0..rank);
        s[i] = [300, 1100, 5000][r.random_range(0..3)];
    }
    s
}

/// A random input of `shape` and `dtype`: contiguous, a transposed view, a broadcast view
/// or a strided slice.
fn random_input(r: &mut StdRng, shape: &[usize], dtype: DType) -> Array {
    match r.random_range(0..4) {
        1 => random_array(r, shape, dtype, true).0,
        2 if !shape.is_empty() => {
            let mut small = shape.to_vec();
            small[0] = 1;
            let a = random_array(r, &small, dtype, false).0;
            np::broadcast_to(&a, shape).unwrap()
        }
        3 if !shape.is_empty() => {
            // Every other row of a taller array, from the second.
            let mut tall = shape.to_vec();
            tall[0] = 2 * shape[0] + 1;
            let a = random_array(r, &tall, dtype, false).0;
            let mut start = vec![0; shape.len()];
            start[0] = 1;
            let mut step = vec![1; shape.len()];
            step[0] = 2;
            lax::slice(&a, &start, &tall, Some(&step)).unwrap()
        }
        _ => random_array(r, shape, dtype, false).0,
    }
}

/// A random op over the values of `shapes`, with the shape it makes, or `None` where the
/// op drawn does not apply.
fn random_op(r: &mut StdRng, shapes: &[Vec<usize>]) -> Option<(Op, Vec<usize>)> {
    let n = shapes.len();
    // Recent values are likelier operands, so chains grow.
    let pick = |r: &mut StdRng| n - 1 - r.random_range(0..n.min(4)).min(n - 1);
    let a = if r.random_bool(0.7) {
        pick(r)
    } else {
        r.random_range(0..n)
    };
    let s = shapes[a].clone();
    let rank = s.len();
    let size: usize = s.iter().product();
    let compatible = |r: &mut StdRng, ok: &dyn Fn(&[usize]) -> bool| -> Option<usize> {
        let c: Vec<usize> = (0..n).filter(|&i| ok(&shapes[i])).collect();
        c.choose(r).copied()
    };
    match r.random_range(0..27) {
        0..=2 => {
            let u = [
                Unary::Neg,
                Unary::Exp,
                Unary::Tanh,
                Unary::Sin,
                Unary::SqrtAbs,
                Unary::Log1pAbs,
                Unary::Square,
                Unary::Cos,
                Unary::Expm1,
                Unary::Floor,
                Unary::Sign,
                Unary::Arctan,
                Unary::Arcsinh,
                Unary::Sinh,
                Unary::Abs,
                Unary::Reciprocal,
                Unary::Cbrt,
                Unary::Sinc,
                Unary::Rint,
                Unary::Exp2,
            ];
            Some((Op::Unary(a, *u.choose(r)?), s))
        }
        3..=5 => {
            let b = compatible(r, &|t| broadcast(&s, t).is_some())?;
            let f = [
                Binary::Add,
                Binary::Sub,
                Binary::Mul,
                Binary::Div,
                Binary::Max,
                Binary::Min,
                Binary::Arctan2,
                Binary::Hypot,
                Binary::Logaddexp,
                Binary::Copysign,
                Binary::Fmod,
                Binary::Remainder,
                Binary::PowerAbs,
            ];
            let out = broadcast(&s, &shapes[b])?;
            let (x, y) = if r.random_bool(0.5) { (a, b) } else { (b, a) };
            Some((Op::Binary(x, y, *f.choose(r)?), out))
        }
        6 => {
            let b = compatible(r, &|t| t == s.as_slice())?;
            let c = compatible(r, &|t| broadcast(&s, t).is_some())?;
            let out = broadcast(&s, &shapes[c])?;
            Some((Op::Where(a, b, c), out))
        }
        7 => {
            let mut axes: Vec<isize> = (0..rank as isize).filter(|_| r.random_bool(0.5)).collect();
            if axes.is_empty() && rank > 0 {
                axes.push(r.random_range(0..rank) as isize);
            }
            // Max and min of nothing are errors.
            let empty = axes.iter().any(|&i| s[i as usize] == 0);
            let ops = if empty {
                vec![Reduce::Sum, Reduce::Mean, Reduce::Prod]
            } else {
                vec![
                    Reduce::Sum,
                    Reduce::Max,
                    Reduce::Min,
                    Reduce::Mean,
                    Reduce::Prod,
                ]
            };
            let keep = r.random_bool(0.3);
            let out: Vec<usize> = s
                .iter()
                .enumerate()
                .filter_map(|(i, &d)| {
                    if !axes.contains(&(i as isize)) {
                        Some(d)
                    } else if keep {
                        Some(1)
                    } else {
                        None
                    }
                })
                .collect();
            Some((Op::Reduce(a, *ops.choose(r)?, axes, keep), out))
        }
        8 => {
            if rank < 2 {
                return None;
            }
            let mut perm: Vec<isize> = (0..rank as isize).collect();
            perm.shuffle(r);
            let out = perm.iter().map(|&p| s[p as usize]).collect();
            Some((Op::Transpose(a, perm), out))
        }
        9 => {
            // Merge two neighbours, split one, or flatten.
            let out = match r.random_range(0..3) {
                0 if rank >= 2 => {
                    let i = r.random_range(0..rank - 1);
                    let mut t = s.clone();
                    let m = t.remove(i + 1);
                    t[i] *= m;
                    t
                }
                1 if (1..4).contains(&rank) => {
                    let i = r.random_range(0..rank);
                    let d = s[i];
                    let f = (2..d).find(|&f| d.is_multiple_of(f))?;
                    let mut t = s.clone();
                    t[i] = f;
                    t.insert(i + 1, d / f);
                    t
                }
                _ => vec![size],
            };
            Some((Op::Reshape(a, out.clone()), out))
        }
        10 => {
            // A new leading axis, or a unit axis stretched.
            let mut out = s.clone();
            match s.iter().position(|&d| d == 1) {
                Some(i) if r.random_bool(0.5) => out[i] = 3,
                _ if rank < 4 => out.insert(0, r.random_range(2..=3)),
                _ => return None,
            }
            Some((Op::BroadcastTo(a, out.clone()), out))
        }
        11 => {
            if rank == 0 {
                return None;
            }
            if r.random_bool(0.5) {
                let mut start = vec![0; rank];
                let mut limit = s.clone();
                let mut step = vec![1; rank];
                let i = r.random_range(0..rank);
                start[i] = r.random_range(0..=s[i]);
                limit[i] = r.random_range(start[i]..=s[i]);
                step[i] = r.random_range(1..=3);
                let mut out = s.clone();
                out[i] = (limit[i] - start[i]).div_ceil(step[i]);
                Some((Op::Slice(a, start, limit, step), out))
            } else {
                let widths: Vec<(usize, usize)> = (0..rank)
                    .map(|_| (r.random_range(0..3), r.random_range(0..3)))
                    .collect();
                let edge = size > 0 && r.random_bool(0.5);
                let out = s
                    .iter()
                    .zip(&widths)
                    .map(|(d, (lo, hi))| d + lo + hi)
                    .collect();
                Some((Op::Pad(a, widths, edge), out))
            }
        }
        12 => {
            if r.random_bool(0.5) {
                let b = compatible(r, &|t| matmul_shape(&s, t).is_some())?;
                let out = matmul_shape(&s, &shapes[b])?;
                Some((Op::Matmul(a, b), out))
            } else {
                let b = compatible(r, &|t| {
                    t.len() == rank
                        && rank > 0
                        && t.iter().zip(&s).filter(|(x, y)| x != y).count() <= 1
                })?;
                let axis = (0..rank)
                    .find(|&i| shapes[b][i] != s[i])
                    .unwrap_or_else(|| r.random_range(0..rank));
                let mut out = s.clone();
                out[axis] += shapes[b][axis];
                Some((Op::Concat(a, b, axis as isize), out))
            }
        }
        13 => {
            if rank > 0 && r.random_bool(0.4) {
                Some((Op::Cumsum(a, r.random_range(0..rank) as isize), s))
            } else {
                Some((Op::Narrow(a), s))
            }
        }
        14 | 15 => {
            let f = [
                Binary::Add,
                Binary::Sub,
                Binary::Mul,
                Binary::Div,
                Binary::Max,
                Binary::Min,
            ];
            let c = [0.0, -0.0, 2.5, -1.0, 0.5, 1e30, 3.0][r.random_range(0..7)];
            if r.random_bool(0.3) {
                let p = [2.0, 3.0, 0.5, -1.0][r.random_range(0..4)];
                return Some((Op::Power(a, p), s));
            }
            Some((Op::Scalar(a, *f.choose(r)?, c, r.random_bool(0.5)), s))
        }
        16 => {
            if rank == 0 {
                return Some((Op::PlusIota(a), vec![1]));
            }
            let axis = r.random_range(0..rank);
            let mut out = s.clone();
            match r.random_range(0..4) {
                0 => {
                    let len = s[axis] as i32;
                    let n = r.random_range(0..=5);
                    // In range, from the end, and (rarely) past either end.
                    let idx = (0..n)
                        .map(|_| r.random_range(-len - 1..=len))
                        .collect::<Vec<i32>>();
                    if len == 0 && !idx.is_empty() {
                        return None;
                    }
                    out[axis] = idx.len();
                    Some((Op::Take(a, axis as isize, idx), out))
                }
                1 => Some((Op::Flip(a, axis as isize), s)),
                2 => Some((Op::Sort(a, axis as isize), s)),
                _ if s[axis] > 0 => {
                    out.remove(axis);
                    Some((Op::ArgMax(a, axis as isize), out))
                }
                _ => None,
            }
        }
        17 => {
            let b = compatible(r, &|t| broadcast(&s, t).is_some())?;
            Some((Op::Greater(a, b), broadcast(&s, &shapes[b])?))
        }
        19 => {
            if rank == 0 {
                return None;
            }
            let len = s[0] as i32;
            let k = r.random_range(0..=5);
            let idx: Vec<i32> = (0..k).map(|_| r.random_range(-len - 1..=len)).collect();
            let u = [Upd::Set, Upd::Add, Upd::Mul, Upd::Min, Upd::Max][r.random_range(0..5)];
            // Repeated positions make `set` keep one of the writes, unspecified in JAX.
            let mut at: Vec<i32> = idx
                .iter()
                .map(|&i| if i < 0 { i + len } else { i })
                .filter(|&i| (0..len).contains(&i))
                .collect();
            at.sort_unstable();
            if u == Upd::Set && at.windows(2).any(|w| w[0] == w[1]) {
                return None;
            }
            let mut upd = s.clone();
            upd[0] = idx.len();
            let src = if r.random_bool(0.5) {
                Some(compatible(r, &|t| {
                    broadcast(t, &upd).as_deref() == Some(upd.as_slice())
                })?)
            } else {
                None
            };
            let c = [0.0, -1.5, 2.0, 0.5][r.random_range(0..4)];
            Some((Op::Update(a, idx, u, src, c), s))
        }
        20 => {
            let lo = [-1.0, 0.0, 0.5, -3.0][r.random_range(0..4)];
            let hi = [1.0, 0.0, 2.0, -0.5][r.random_range(0..4)];
            Some((Op::Clip(a, lo, hi), s))
        }
        21 => {
            if rank == 0 {
                return None;
            }
            let axis = r.random_range(0..rank);
            match r.random_range(0..3) {
                0 => {
                    let shift = r.random_range(-9i32..=9) as isize;
                    Some((Op::Roll(a, shift, axis as isize), s))
                }
                1 => {
                    let mut out = s.clone();
                    out[axis] = out[axis].saturating_sub(1);
                    Some((Op::Diff(a, axis as isize), out))
                }
                _ => Some((Op::Cumprod(a, axis as isize), s)),
            }
        }
        22 => {
            if rank == 0 || s.iter().product::<usize>() == 0 {
                return None;
            }
            let axis = r.random_range(0..rank);
            let mut out = s.clone();
            out.remove(axis);
            match r.random_range(0..3) {
                0 => {
                    let q = [0.5, 0.0, 1.0, 0.3][r.random_range(0..4)];
                    Some((Op::Quantile(a, q, axis as isize), out))
                }
                1 => {
                    let ddof = r.random_range(0..=1);
                    Some((Op::Var(a, axis as isize, ddof, r.random_bool(0.5)), out))
                }
                _ => Some((Op::Logsumexp(a, axis as isize), out)),
            }
        }
        23 => {
            if rank == 0 {
                return None;
            }
            let axis = r.random_range(0..rank);
            let mut out = s.clone();
            out.remove(axis);
            match r.random_range(0..4) {
                0 => Some((Op::SortByArgsort(a, axis as isize), s)),
                1 if s[axis] > 0 => Some((Op::Median(a, axis as isize), out)),
                2 if s[axis] > 0 => Some((Op::NanReduce(a, axis as isize, true), out)),
                _ => Some((Op::NanReduce(a, axis as isize, false), out)),
            }
        }
        24 => {
            if rank < 2 {
                return None;
            }
            if r.random_bool(0.5) {
                Some((Op::Tril(a, r.random_range(-2i32..=2) as isize), s))
            } else if rank == 2 {
                Some((Op::Trace(a, r.random_range(-2i32..=2) as isize), vec![]))
            } else {
                None
            }
        }
        25 => {
            // A contraction with another value: all but the first axis of two equal
            // shapes, or a matrix product with the output transposed.
            const L: &[u8] = b"abcde";
            let letters = |n: usize| String::from_utf8(L[..n].to_vec()).unwrap();
            if rank >= 1 && r.random_bool(0.5) {
                let b = compatible(r, &|t| t == s.as_slice())?;
                let spec = format!("{0},{0}->{1}", letters(rank), letters(1));
                Some((Op::Einsum(a, b, spec), vec![s[0]]))
            } else if rank == 2 {
                let b = compatible(r, &|t| t.len() == 2 && t[0] == s[1])?;
                let spec = "ij,jk->ki".to_string();
                Some((Op::Einsum(a, b, spec), vec![shapes[b][1], s[0]]))
            } else {
                None
            }
        }
        26 => {
            if rank == 0 {
                return None;
            }
            let axis = r.random_range(0..rank);
            let mut out = s.clone();
            out[axis] *= 2;
            Some((Op::Repeat(a, axis as isize), out))
        }
        _ => Some((Op::PlusIota(a), if rank == 0 { vec![1] } else { s })),
    }
}

/// A random program over random input shapes, every value at most `max` elements.
fn random_program(r: &mut StdRng, max: usize) -> (Program, Vec<Vec<usize>>) {
    let inputs: Vec<Vec<usize>> = (0..r.random_range(1..=3))
        .map(|_| loop {
            let s = random_shape(r);
            if s.iter().product::<usize>() <= max {
                break s;
            }
        })
        .collect();
    let mut shapes = inputs.clone();
    let mut ops = Vec::new();
    let len = r.random_range(3..=10);
    while ops.len() < len {
        if let Some((op, shape)) = random_op(r, &shapes) {
            // Bounded sizes: products and broadcasts of long axes grow fast.
            if shape.iter().product::<usize>() <= max {
                ops.push(op);
                shapes.push(shape);
            }
        }
    }
    let last = shapes.len() - 1;
    let mut outputs = vec![last];
    for _ in 0..r.random_range(0..=2) {
        outputs.push(r.random_range(0..last));
    }
    (Program { ops, outputs }, inputs)
}

/// An array's words, with every NaN as one word (fusion promises values, not payloads).
fn canonical(a: &Array) -> Vec<u32> {
    let nan = |w: u32| match a.dtype() {
        DType::Float32 => f32::from_bits(w).is_nan(),
        DType::Float16 => half::f16::from_bits(w as u16).is_nan(),
        DType::BFloat16 => half::bf16::from_bits(w as u16).is_nan(),
        _ => false,
    };
    words(a)
        .into_iter()
        .map(|w| if nan(w) { u32::MAX } else { w })
        .collect()
}

/// The program's outputs folded into one scalar to differentiate.
fn loss(p: &Program, xs: Vec<Array>) -> Result<Array> {
    let mut total = np::zeros(&[], DType::Float32)?;
    for (i, o) in run(p, xs)?.iter().enumerate() {
        let weighted = np::multiply(np::sum(o, None, false)?, 1.0 / (i + 1) as f64)?;
        total = np::add(total, weighted)?;
    }
    Ok(total)
}

/// `got` has `want`'s shape, dtype and words (NaN against NaN).
fn assert_same(got: &[Array], want: &[Array], what: &dyn Fn() -> String) {
    assert_eq!(got.len(), want.len(), "{}", what());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "output {i}: {}", what());
        assert_eq!(g.dtype(), w.dtype(), "output {i}: {}", what());
        let (gw, ww) = (canonical(g), canonical(w));
        if let Some(at) = (0..gw.len()).find(|&j| gw[j] != ww[j]) {
            panic!(
                "output {i}: {}\nfirst difference at flat index {at}: jit {:?} eager {:?}",
                what(),
                np::ravel(g).unwrap().slice(olympus::s![at]).unwrap(),
                np::ravel(w).unwrap().slice(olympus::s![at]).unwrap(),
            );
        }
    }
}

/// Random programs give the eager bits under `jit`, with their shapes and dtypes, and so
/// do their gradients (inputs of float32 alone).
#[test]
fn random_programs_give_the_eager_bits_under_jit() {
    let mut r = rng();
    for case in 0..60 {
        let (program, shapes) = random_program(&mut r, 1 << 18);
        let dtypes: Vec<DType> = shapes
            .iter()
            .map(|_| match r.random_range(0..12) {
                0 => DType::Int32,
                1 => DType::Float16,
                2 => DType::BFloat16,
                _ => DType::Float32,
            })
            .collect();
        let inputs: Vec<Array> = shapes
            .iter()
            .zip(&dtypes)
            .map(|(s, &d)| random_input(&mut r, s, d))
            .collect();
        let what = || format!("case {case}: {program:#?} over {shapes:?} {dtypes:?}");
        let want =
            run(&program, inputs.clone()).unwrap_or_else(|e| panic!("eager {}: {e}", what()));
        let p = program.clone();
        let got = jit(move |xs: Vec<Array>| run(&p, xs))
            .call(inputs.clone())
            .unwrap_or_else(|e| panic!("jit {}: {e}", what()));
        assert_same(&got, &want, &what);
        // (A scatter's product has no derivative with respect to its updates, as in JAX.)
        let scatter_product = program
            .ops
            .iter()
            .any(|op| matches!(op, Op::Update(_, _, Upd::Mul, Some(_), _)));
        if dtypes.iter().any(|&d| d != DType::Float32) || scatter_product {
            continue;
        }
        let p = program.clone();
        let want = olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(inputs.clone())
            .unwrap_or_else(|e| panic!("eager grad {}: {e}", what()));
        let p = program.clone();
        let got = jit(move |xs: Vec<Array>| {
            let p = p.clone();
            olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(xs)
        })
        .call(inputs)
        .unwrap_or_else(|e| panic!("jit grad {}: {e}", what()));
        let grad_what = || format!("gradient, {}", what());
        assert_same(&got, &want, &grad_what);
    }
}

/// Operations a shader compiler could fold (`x - x`, `(x + x) - x`, a sum's first `0.0 +`)
/// give JAX 0.10.2's words on special values, eagerly and under `jit`; reductions over one
/// element keep it (`-0.0`). Values from `python3 tests/data/gen_folds.py`.
#[test]
fn operations_are_computed_as_written() {
    type Expr = fn(Array) -> Result<Array>;
    let exprs: [(&str, Expr); 9] = [
        ("x-x", |x| np::subtract(&x, &x)),
        ("x*(x-x)", |x| np::multiply(&x, np::subtract(&x, &x)?)),
        ("(x+x)-x", |x| np::subtract(np::add(&x, &x)?, &x)),
        ("x*x-x*x", |x| {
            np::subtract(np::multiply(&x, &x)?, np::multiply(&x, &x)?)
        }),
        ("x/x", |x| np::divide(&x, &x)),
        ("x+(-x)", |x| np::add(&x, np::negative(&x)?)),
        ("min(x,x)-x", |x| np::subtract(np::minimum(&x, &x)?, &x)),
        ("exp(log(|x|))", |x| np::exp(np::log(np::abs(&x)?)?)),
        ("x*0", |x| np::multiply(&x, 0.0)),
    ];
    type Reduction = fn(Array, Option<isize>) -> Result<Array>;
    let reductions: [(&str, Reduction); 3] = [
        ("sum", |z, ax| {
            np::sum(&z, ax.as_ref().map(std::slice::from_ref), false)
        }),
        ("mean", |z, ax| {
            np::mean(&z, ax.as_ref().map(std::slice::from_ref), false)
        }),
        ("cumsum", |z, ax| np::cumsum(&z, ax)),
    ];
    let x = Array::from_slice(
        &[
            -1.5f32,
            2.0,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3e38,
            1e-30,
            -7.25,
        ],
        &[10],
    )
    .unwrap();
    let mut checked = 0;
    for line in include_str!("../data/folds.txt").lines() {
        if line.starts_with('#') {
            continue;
        }
        let (case, want) = line.split_once(" | ").unwrap();
        let want: Vec<u32> = want
            .split(' ')
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        let mut parts = case.splitn(3, ' ');
        let (kind, name) = (parts.next().unwrap(), parts.next().unwrap());
        let (f, input): (Box<dyn Fn(Array) -> Result<Array>>, Array) = match kind {
            "expr" => {
                let Some((_, f)) = exprs.iter().find(|(n, _)| *n == name) else {
                    continue;
                };
                (Box::new(*f), x.clone())
            }
            "matmul" => {
                let d: Vec<usize> = name.split('x').map(|d| d.parse().unwrap()).collect();
                let b = np::ones(&[d[1], d[2]], DType::Float32).unwrap();
                let f = move |a: Array| np::matmul(&a, &b);
                (
                    Box::new(f),
                    np::negative(np::zeros(&[d[0], d[1]], DType::Float32).unwrap()).unwrap(),
                )
            }
            op => {
                let f = reductions.iter().find(|(n, _)| *n == op).unwrap().1;
                let shape: Vec<usize> = name.split('x').map(|d| d.parse().unwrap()).collect();
                let axis = parts.next().unwrap().parse::<isize>().ok();
                let z = np::negative(np::zeros(&shape, DType::Float32).unwrap()).unwrap();
                (Box::new(move |z: Array| f(z, axis)), z)
            }
        };
        let f = std::rc::Rc::new(f);
        let g = f.clone();
        let eager = f(input.clone()).unwrap();
        let jitted = jit(move |a: Array| g(a)).call(input).unwrap();
        for (mode, got) in [("eager", eager), ("jit", jitted)] {
            let got = words(&got);
            let same = got.len() == want.len()
                && got.iter().zip(&want).all(|(&g, &w)| {
                    g == w || (f32::from_bits(g).is_nan() && f32::from_bits(w).is_nan())
                });
            assert!(same, "{case} ({mode}): {got:08x?}, JAX {want:08x?}");
        }
        checked += 1;
    }
    let cases = include_str!("../data/folds.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count();
    assert_eq!(checked, cases, "every case of the table is known");
}

// ----- The same programs against JAX -----

pub(crate) fn list<T: ToString>(v: &[T]) -> String {
    if v.is_empty() {
        "-".to_string()
    } else {
        v.iter().map(T::to_string).collect::<Vec<_>>().join(",")
    }
}

pub(crate) fn parse_list<T: std::str::FromStr>(s: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if s == "-" {
        Vec::new()
    } else {
        s.split(',').map(|t| t.parse().unwrap()).collect()
    }
}

const UNARIES: [(&str, Unary); 20] = [
    ("neg", Unary::Neg),
    ("exp", Unary::Exp),
    ("tanh", Unary::Tanh),
    ("sin", Unary::Sin),
    ("sqrt_abs", Unary::SqrtAbs),
    ("log1p_abs", Unary::Log1pAbs),
    ("square", Unary::Square),
    ("cos", Unary::Cos),
    ("expm1", Unary::Expm1),
    ("floor", Unary::Floor),
    ("sign", Unary::Sign),
    ("arctan", Unary::Arctan),
    ("arcsinh", Unary::Arcsinh),
    ("sinh", Unary::Sinh),
    ("abs", Unary::Abs),
    ("reciprocal", Unary::Reciprocal),
    ("cbrt", Unary::Cbrt),
    ("sinc", Unary::Sinc),
    ("rint", Unary::Rint),
    ("exp2", Unary::Exp2),
];
const BINARIES: [(&str, Binary); 13] = [
    ("add", Binary::Add),
    ("sub", Binary::Sub),
    ("mul", Binary::Mul),
    ("div", Binary::Div),
    ("max", Binary::Max),
    ("min", Binary::Min),
    ("arctan2", Binary::Arctan2),
    ("hypot", Binary::Hypot),
    ("logaddexp", Binary::Logaddexp),
    ("copysign", Binary::Copysign),
    ("fmod", Binary::Fmod),
    ("remainder", Binary::Remainder),
    ("power_abs", Binary::PowerAbs),
];
const REDUCES: [(&str, Reduce); 5] = [
    ("sum", Reduce::Sum),
    ("max", Reduce::Max),
    ("min", Reduce::Min),
    ("mean", Reduce::Mean),
    ("prod", Reduce::Prod),
];

pub(crate) fn name_of<T: Copy + std::fmt::Debug>(
    table: &[(&'static str, T)],
    v: T,
) -> &'static str {
    let want = format!("{v:?}");
    table
        .iter()
        .find(|(_, t)| format!("{t:?}") == want)
        .unwrap()
        .0
}

pub(crate) fn named<T: Copy>(table: &[(&str, T)], name: &str) -> T {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("unknown {name}"))
        .1
}

/// Pad widths written `lo:hi,lo:hi` (`-` for none).
pub(crate) fn parse_widths(s: &str) -> Vec<(usize, usize)> {
    parse_list::<String>(s)
        .iter()
        .map(|p| {
            let (l, h) = p.split_once(':').unwrap();
            (l.parse().unwrap(), h.parse().unwrap())
        })
        .collect()
}

pub(crate) const UPDS: [(&str, Upd); 5] = [
    ("set", Upd::Set),
    ("add", Upd::Add),
    ("multiply", Upd::Mul),
    ("min", Upd::Min),
    ("max", Upd::Max),
];

/// One line of text per op (read back by [`decode`] and by `tests/data/gen_jax_programs.py`).
fn encode(op: &Op) -> String {
    match op {
        Op::Unary(a, u) => format!("unary {a} {}", name_of(&UNARIES, *u)),
        Op::Binary(a, b, f) => format!("binary {a} {b} {}", name_of(&BINARIES, *f)),
        Op::Where(c, a, b) => format!("where {c} {a} {b}"),
        Op::Reduce(a, f, axes, keep) => {
            format!(
                "reduce {a} {} {} {}",
                name_of(&REDUCES, *f),
                list(axes),
                u8::from(*keep)
            )
        }
        Op::Transpose(a, perm) => format!("transpose {a} {}", list(perm)),
        Op::Reshape(a, s) => format!("reshape {a} {}", list(s)),
        Op::BroadcastTo(a, s) => format!("broadcast {a} {}", list(s)),
        Op::Slice(a, lo, hi, st) => format!("slice {a} {} {} {}", list(lo), list(hi), list(st)),
        Op::Pad(a, w, edge) => {
            let w: Vec<String> = w.iter().map(|(l, h)| format!("{l}:{h}")).collect();
            format!(
                "pad {a} {} {}",
                list(&w),
                if *edge { "edge" } else { "const" }
            )
        }
        Op::Matmul(a, b) => format!("matmul {a} {b}"),
        Op::Concat(a, b, axis) => format!("concat {a} {b} {axis}"),
        Op::Cumsum(a, axis) => format!("cumsum {a} {axis}"),
        Op::Narrow(a) => format!("narrow {a}"),
        Op::Scalar(a, f, c, left) => format!(
            "scalar {a} {} {c:?} {}",
            name_of(&BINARIES, *f),
            if *left { "left" } else { "right" }
        ),
        Op::Power(a, p) => format!("power {a} {p:?}"),
        Op::Take(a, axis, idx) => format!("take {a} {axis} {}", list(idx)),
        Op::Flip(a, axis) => format!("flip {a} {axis}"),
        Op::Greater(a, b) => format!("greater {a} {b}"),
        Op::Sort(a, axis) => format!("sort {a} {axis}"),
        Op::ArgMax(a, axis) => format!("argmax {a} {axis}"),
        Op::PlusIota(a) => format!("iota {a}"),
        Op::Update(a, idx, u, src, c) => {
            let u = name_of(&UPDS, *u);
            let src = src.map_or(format!("{c:?}"), |b| format!("v{b}"));
            format!("update {a} {} {u} {src}", list(idx))
        }
        Op::Clip(a, lo, hi) => format!("clip {a} {lo:?} {hi:?}"),
        Op::Roll(a, shift, axis) => format!("roll {a} {shift} {axis}"),
        Op::Diff(a, axis) => format!("diff {a} {axis}"),
        Op::Cumprod(a, axis) => format!("cumprod {a} {axis}"),
        Op::Quantile(a, q, axis) => format!("quantile {a} {q:?} {axis}"),
        Op::Var(a, axis, ddof, std) => {
            format!("{} {a} {axis} {ddof}", if *std { "std" } else { "var" })
        }
        Op::Logsumexp(a, axis) => format!("logsumexp {a} {axis}"),
        Op::SortByArgsort(a, axis) => format!("sort_by_argsort {a} {axis}"),
        Op::Median(a, axis) => format!("median {a} {axis}"),
        Op::NanReduce(a, axis, max) => {
            format!("{} {a} {axis}", if *max { "nanmax" } else { "nansum" })
        }
        Op::Tril(a, k) => format!("tril {a} {k}"),
        Op::Einsum(a, b, spec) => format!("einsum {a} {b} {spec}"),
        Op::Repeat(a, axis) => format!("repeat {a} {axis}"),
        Op::Trace(a, k) => format!("trace {a} {k}"),
    }
}

fn decode(line: &str) -> Op {
    let t: Vec<&str> = line.split(' ').collect();
    let i = |k: usize| t[k].parse::<usize>().unwrap();
    match t[0] {
        "unary" => Op::Unary(i(1), named(&UNARIES, t[2])),
        "binary" => Op::Binary(i(1), i(2), named(&BINARIES, t[3])),
        "where" => Op::Where(i(1), i(2), i(3)),
        "reduce" => Op::Reduce(i(1), named(&REDUCES, t[2]), parse_list(t[3]), t[4] == "1"),
        "transpose" => Op::Transpose(i(1), parse_list(t[2])),
        "reshape" => Op::Reshape(i(1), parse_list(t[2])),
        "broadcast" => Op::BroadcastTo(i(1), parse_list(t[2])),
        "slice" => Op::Slice(i(1), parse_list(t[2]), parse_list(t[3]), parse_list(t[4])),
        "pad" => Op::Pad(i(1), parse_widths(t[2]), t[3] == "edge"),
        "matmul" => Op::Matmul(i(1), i(2)),
        "concat" => Op::Concat(i(1), i(2), t[3].parse().unwrap()),
        "cumsum" => Op::Cumsum(i(1), t[2].parse().unwrap()),
        "narrow" => Op::Narrow(i(1)),
        "scalar" => Op::Scalar(
            i(1),
            named(&BINARIES, t[2]),
            t[3].parse().unwrap(),
            t[4] == "left",
        ),
        "power" => Op::Power(i(1), t[2].parse().unwrap()),
        "take" => Op::Take(i(1), t[2].parse().unwrap(), parse_list(t[3])),
        "flip" => Op::Flip(i(1), t[2].parse().unwrap()),
        "greater" => Op::Greater(i(1), i(2)),
        "sort" => Op::Sort(i(1), t[2].parse().unwrap()),
        "argmax" => Op::ArgMax(i(1), t[2].parse().unwrap()),
        "iota" => Op::PlusIota(i(1)),
        "update" => {
            let u = named(&UPDS, t[3]);
            let (src, c) = match t[4].strip_prefix('v') {
                Some(b) => (Some(b.parse().unwrap()), 0.0),
                None => (None, t[4].parse().unwrap()),
            };
            Op::Update(i(1), parse_list(t[2]), u, src, c)
        }
        "clip" => Op::Clip(i(1), t[2].parse().unwrap(), t[3].parse().unwrap()),
        "roll" => Op::Roll(i(1), t[2].parse().unwrap(), t[3].parse().unwrap()),
        "diff" => Op::Diff(i(1), t[2].parse().unwrap()),
        "cumprod" => Op::Cumprod(i(1), t[2].parse().unwrap()),
        "quantile" => Op::Quantile(i(1), t[2].parse().unwrap(), t[3].parse().unwrap()),
        "var" | "std" => Op::Var(i(1), t[2].parse().unwrap(), i(3), t[0] == "std"),
        "logsumexp" => Op::Logsumexp(i(1), t[2].parse().unwrap()),
        "sort_by_argsort" => Op::SortByArgsort(i(1), t[2].parse().unwrap()),
        "median" => Op::Median(i(1), t[2].parse().unwrap()),
        "nanmax" | "nansum" => Op::NanReduce(i(1), t[2].parse().unwrap(), t[0] == "nanmax"),
        "tril" => Op::Tril(i(1), t[2].parse().unwrap()),
        "einsum" => Op::Einsum(i(1), i(2), t[3].to_string()),
        "repeat" => Op::Repeat(i(1), t[2].parse().unwrap()),
        "trace" => Op::Trace(i(1), t[2].parse().unwrap()),
        other => panic!("unknown op {other}"),
    }
}

fn dtype_named(name: &str) -> DType {
    [
        DType::Float32,
        DType::Float16,
        DType::BFloat16,
        DType::Int32,
        DType::Bool,
    ]
    .into_iter()
    .find(|d| d.name() == name)
    .unwrap_or_else(|| panic!("dtype {name}"))
}

/// Writes programs for `tests/data/gen_jax_programs.py` to run in JAX (see there): random
/// programs over small random inputs with special values among them.
#[test]
#[ignore = "writes the programs tests/data/gen_jax_programs.py evaluates"]
fn write_programs_for_jax() {
    use rand::SeedableRng;
    let path = std::env::var("OLYMPUS_JAX_PROGRAMS").unwrap_or("/tmp/jax_programs_in.txt".into());
    // Another seed (`OLYMPUS_JAX_SEED`) writes other programs, to look for differences
    // beyond the committed ones.
    let seed = std::env::var("OLYMPUS_JAX_SEED").map_or(20261128, |s| s.parse().unwrap());
    let mut r = StdRng::seed_from_u64(seed);
    let mut text = String::new();
    // (Not ±3e38: their reciprocals are subnormal, which XLA:CPU flushes to zero and
    // Olympus keeps, and a comparison after one takes the other branch.)
    let specials = [-0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    for case in 0..200 {
        let (program, shapes) = random_program(&mut r, 1024);
        text += &format!("program {case}\n");
        for s in &shapes {
            let d = [
                DType::Float32,
                DType::Float32,
                DType::Float32,
                DType::Int32,
                DType::Float16,
                DType::BFloat16,
            ][r.random_range(0..6)];
            let n: usize = s.iter().product();
            let v: Vec<String> = crate::common::random_values(&mut r, d, n)
                .into_iter()
                .map(|x| {
                    let x = if d == DType::Int32 {
                        (x as i64 % 9) as f64
                    } else if r.random_bool(0.05) {
                        specials[r.random_range(0..specials.len())]
                    } else {
                        x
                    };
                    let x = crate::common::stored(&[x], d)[0];
                    format!("{x:?}")
                })
                .collect();
            text += &format!("input {} {} | {}\n", d.name(), list(s), v.join(" "));
        }
        for op in &program.ops {
            text += &format!("op {}\n", encode(op));
        }
        text += &format!("outputs {}\n", list(&program.outputs));
    }
    std::fs::write(&path, text).unwrap();
}

/// Whether float `got` is close enough to JAX's `want` in an output whose finite values
/// average `scale` in magnitude: NaN for NaN, the same infinity, finite values within a
/// relative `tol` (of the value or the output's scale, for values left by cancellation).
pub(crate) fn close(got: f64, want: f64, scale: f64, tol: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol * (want.abs() + scale)
}

/// 200 programs of [`random_programs_give_the_eager_bits_under_jit`]'s generator (over
/// inputs with ±0, ±inf and NaN among them, in float32, float16, bfloat16 and
/// int32) give JAX 0.10.2's shapes, dtypes and values, eagerly and under `jit`: integers
/// and booleans exactly, floats within a few units of their precision (the programs
/// chain up to ten operations, each within an ulp or two of XLA's). Programs over float32
/// inputs alone also give JAX's gradients of their outputs' sums and its Hessian-vector
/// products (forward over reverse) of the same sums. Values from
/// `tests/data/gen_jax_programs.py`.
#[test]
fn random_programs_give_jax_values() {
    let mut r = rng();
    let text = include_str!("../data/jax_programs.txt");
    let (mut checked, mut differentiated, mut curved, mut noisy) = (0, 0, 0, 0);
    for block in text.split("program ").filter(|b| !b.is_empty()) {
        let mut lines = block.lines();
        let case = lines.next().unwrap();
        let (mut inputs, mut ops, mut outputs, mut want) = (vec![], vec![], vec![], vec![]);
        let mut grads: Vec<(DType, Vec<usize>, Vec<Vec<u32>>)> = vec![];
        let mut hvps: Vec<(DType, Vec<usize>, Vec<Vec<u32>>)> = vec![];
        let mut tangents: Vec<(DType, Vec<usize>, Vec<Vec<u32>>)> = vec![];
        for line in lines {
            let (kind, rest) = line.split_once(' ').unwrap();
            match kind {
                "input" => {
                    let (head, vals) = rest.split_once(" | ").unwrap_or((rest, ""));
                    let (d, shape) = head.split_once(' ').unwrap();
                    let (d, shape) = (dtype_named(d), parse_list::<usize>(shape));
                    let v: Vec<f64> = vals
                        .split(' ')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().unwrap())
                        .collect();
                    let a = crate::common::make(&v, &shape, d);
                    // Now and then a transposed view of the same values.
                    let a = if shape.len() >= 2 && r.random_bool(0.3) {
                        let t = lax::copy(&np::transpose(&a, None).unwrap()).unwrap();
                        np::transpose(&t, None).unwrap()
                    } else {
                        a
                    };
                    inputs.push(a);
                }
                "op" => ops.push(decode(rest)),
                "outputs" => outputs = parse_list(rest),
                "out" | "alt" | "grad" | "hvp" | "tangent" => {
                    let (head, words) = rest.split_once(" | ").unwrap_or((rest, ""));
                    let (d, shape) = head.split_once(' ').unwrap();
                    let w: Vec<u32> = words
                        .split(' ')
                        .filter(|s| !s.is_empty())
                        .map(|s| u32::from_str_radix(s, 16).unwrap())
                        .collect();
                    if kind == "alt" {
                        // JAX's eager words for the line before.
                        let last: &mut (DType, Vec<usize>, Vec<Vec<u32>>) = if !tangents.is_empty()
                        {
                            tangents.last_mut().unwrap()
                        } else if !hvps.is_empty() {
                            hvps.last_mut().unwrap()
                        } else if !grads.is_empty() {
                            grads.last_mut().unwrap()
                        } else {
                            want.last_mut().unwrap()
                        };
                        last.2.push(w);
                    } else if kind == "tangent" {
                        tangents.push((dtype_named(d), parse_list::<usize>(shape), vec![w]));
                    } else if kind == "hvp" {
                        hvps.push((dtype_named(d), parse_list::<usize>(shape), vec![w]));
                    } else if kind == "grad" {
                        grads.push((dtype_named(d), parse_list::<usize>(shape), vec![w]));
                    } else {
                        want.push((dtype_named(d), parse_list::<usize>(shape), vec![w]));
                    }
                }
                other => panic!("unknown line {other}"),
            }
        }
        let program = Program { ops, outputs };
        let narrow = block.contains("float16") || block.contains("narrow");
        let what = || format!("program {case}: {program:#?}");
        let eager =
            run(&program, inputs.clone()).unwrap_or_else(|e| panic!("eager {}: {e}", what()));
        let p = program.clone();
        let jitted = jit(move |xs: Vec<Array>| run(&p, xs))
            .call(inputs.clone())
            .unwrap_or_else(|e| panic!("jit {}: {e}", what()));
        // For each floating output (as the tangents are listed), whether its tangent may be
        // rounding noise.
        let noisy_values = noisy_tangents(&program, inputs.len());
        let noise_prone: Vec<bool> = program
            .outputs
            .iter()
            .zip(&want)
            .filter(|(_, (d, _, _))| d.is_floating())
            .map(|(&o, _)| noisy_values[o])
            .collect();
        let mut results = vec![("eager", eager, &want), ("jit", jitted, &want)];
        if !grads.is_empty() {
            let p = program.clone();
            let eager = olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(inputs.clone())
                .unwrap_or_else(|e| panic!("eager grad {}: {e}", what()));
            let p = program.clone();
            let jitted = jit(move |xs: Vec<Array>| {
                let p = p.clone();
                olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(xs)
            })
            .call(inputs.clone())
            .unwrap_or_else(|e| panic!("jit grad {}: {e}", what()));
            results.push(("eager gradient", eager, &grads));
            results.push(("jit gradient", jitted, &grads));
            differentiated += 1;
        }
        // The directions of forward mode: `cos(0.7 i + k)` for element `i` of input `k`.
        let dirs: Vec<Array> = inputs
            .iter()
            .enumerate()
            .map(|(k, x)| {
                let v: Vec<f32> = (0..x.size())
                    .map(|i| (i as f64 * 0.7 + k as f64).cos() as f32)
                    .collect();
                Array::from_slice(&v, x.shape()).unwrap()
            })
            .collect();
        if !tangents.is_empty() {
            // The floating outputs' tangents by forward mode.
            let p = program.clone();
            let forward = move |(xs, vs): (Vec<Array>, Vec<Array>)| {
                let p = p.clone();
                let (outs, tangents) = olympus::jvp(move |xs: Vec<Array>| run(&p, xs), xs, vs)?;
                Ok(outs
                    .iter()
                    .zip(tangents)
                    .filter(|(o, _)| o.dtype().is_floating())
                    .map(|(_, t)| t)
                    .collect::<Vec<Array>>())
            };
            let eager = forward((inputs.clone(), dirs.clone()))
                .unwrap_or_else(|e: olympus::Error| panic!("eager jvp {}: {e}", what()));
            let jitted = jit(forward)
                .call((inputs.clone(), dirs.clone()))
                .unwrap_or_else(|e| panic!("jit jvp {}: {e}", what()));
            results.push(("eager forward derivative", eager, &tangents));
            results.push(("jit forward derivative", jitted, &tangents));
        }
        if !hvps.is_empty() {
            // Hessian-vector products: forward over reverse, along the same directions.
            let p = program.clone();
            let hvp = move |(xs, vs): (Vec<Array>, Vec<Array>)| {
                let p = p.clone();
                let g = move |xs: Vec<Array>| {
                    let p = p.clone();
                    olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(xs)
                };
                Ok(olympus::jvp(g, xs, vs)?.1)
            };
            let eager = hvp((inputs.clone(), dirs.clone()))
                .unwrap_or_else(|e: olympus::Error| panic!("eager hvp {}: {e}", what()));
            let jitted = jit(hvp)
                .call((inputs, dirs))
                .unwrap_or_else(|e| panic!("jit hvp {}: {e}", what()));
            results.push(("eager Hessian-vector product", eager, &hvps));
            results.push(("jit Hessian-vector product", jitted, &hvps));
            let nonzero = |w: &[u32]| w.iter().any(|&x| x != 0 && x != 0x8000_0000);
            if hvps.iter().any(|(_, _, w)| nonzero(&w[0])) {
                curved += 1;
            }
        }
        for (mode, got, want) in &results {
            assert_eq!(got.len(), want.len(), "{mode}: {}", what());
            for (i, (g, (d, shape, w))) in got.iter().zip(want.iter()).enumerate() {
                assert_eq!(
                    (g.dtype(), g.shape()),
                    (*d, shape.as_slice()),
                    "{mode} output {i}: {}",
                    what()
                );
                let gw = words(g);
                let value = |w: u32| match d {
                    DType::Float32 => f64::from(f32::from_bits(w)),
                    DType::Float16 => half::f16::from_bits(w as u16).to_f64(),
                    DType::BFloat16 => half::bf16::from_bits(w as u16).to_f64(),
                    DType::Int32 => f64::from(w as i32),
                    _ => f64::from(w),
                };
                let tol = match d {
                    DType::Float32 if !narrow => 1e-4,
                    DType::Float32 | DType::Float16 | DType::BFloat16 => 3e-2,
                    _ => 0.0,
                };
                // Second derivatives at infinities: NaN against an infinity passes (they
                // follow from the rules' order of operations), a finite value must match.
                let second = mode.contains("Hessian");
                let f32s = |w: &[u32]| -> Vec<f64> {
                    w.iter().map(|&x| f64::from(f32::from_bits(x))).collect()
                };
                let mean = |v: &[f64]| {
                    let finite: Vec<f64> = v
                        .iter()
                        .map(|x| x.abs())
                        .filter(|x| x.is_finite())
                        .collect();
                    finite.iter().sum::<f64>() / finite.len().max(1) as f64
                };
                // This input's gradient, whose rounding a second derivative inherits.
                let gradient = if second { f32s(&grads[i].2[0]) } else { vec![] };
                if second {
                    // Where JAX's own jitted and eager gradients differ beyond the
                    // tolerance, the gradient is rounding noise (the derivative of
                    // `x / x`), and its derivative noise of the rules' order of
                    // operations: nothing to compare (counted, and bounded below).
                    if let [jitted, eager] = &grads[i].2[..] {
                        let scale = mean(&gradient);
                        let (jitted, eager) = (f32s(jitted), f32s(eager));
                        if jitted
                            .iter()
                            .zip(&eager)
                            .any(|(&a, &b)| !close(a, b, scale, tol))
                        {
                            noisy += 1;
                            continue;
                        }
                    }
                }
                // A tangent that may be rounding noise (of `x / x`) is compared against the
                // program's tangents: the floor is a ten-millionth of their mean magnitude.
                let floor = if mode.contains("forward") && noise_prone[i] {
                    let all: Vec<f64> = want
                        .iter()
                        .flat_map(|(_, _, w)| w[0].iter().map(|&x| value(x)))
                        .collect();
                    1e-3 * mean(&all)
                } else {
                    0.0
                };
                // JAX's jitted words, or its eager ones where they differ.
                let near = |w: &[u32]| {
                    let expected: Vec<f64> = w.iter().map(|&x| value(x)).collect();
                    let scale = mean(&expected).max(floor);
                    gw.iter().zip(w).enumerate().position(|(j, (&g, &w))| {
                        let (g, w) = (value(g), value(w));
                        let nan_for_inf =
                            (g.is_nan() && w.is_infinite()) || (g.is_infinite() && w.is_nan());
                        // A product that is rounding noise (the curvature of a piecewise
                        // linear function, such as `hypot(x, x)`) may differ by a few
                        // roundings of the element's gradient.
                        let noise = if second {
                            64.0 * f64::from(f32::EPSILON) * gradient[j].abs()
                        } else {
                            0.0
                        };
                        let within = (g - w).abs() <= noise;
                        !(close(g, w, scale, tol) || within || (second && nan_for_inf))
                    })
                };
                if w.iter().all(|w| near(w).is_some()) {
                    let j = near(&w[0]).unwrap();
                    panic!(
                        "{mode} output {i} at {j}: {} where JAX gives {}: {}",
                        value(gw[j]),
                        value(w[0][j]),
                        what()
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 200, "{checked} programs");
    assert!(differentiated >= 50, "{differentiated} gradients");
    // Many programs are piecewise linear: their Hessians vanish.
    assert!(curved >= 15, "{curved} non-zero Hessian-vector products");
    assert!(
        noisy <= 12,
        "{noisy} Hessian-vector products of noisy gradients skipped"
    );
}

/// Example `i` of `x`, whose batch axis is `axis`.
pub(crate) fn example(x: &Array, axis: usize, i: usize) -> Array {
    let mut start = vec![0; x.ndim()];
    let mut limit = x.shape().to_vec();
    start[axis] = i;
    limit[axis] = i + 1;
    let mut shape = x.shape().to_vec();
    shape.remove(axis);
    np::reshape(
        lax::slice(x, &start, &limit, None).unwrap(),
        shape.as_slice(),
    )
    .unwrap()
}

/// `vmap` of random programs (float32 inputs each mapped over its first or last axis or
/// not mapped, batches of 1 to 3), and `jit` of it, give each example's results and
/// gradients as the program run on that example alone: shapes and dtypes, NaN for NaN,
/// the same infinities, finite values within 1e-4 of their output's scale (batched
/// reductions and products may add in another order).
#[test]
fn random_programs_under_vmap_match_each_example() {
    use olympus::{vmap, Axes};
    let mut r = rng();
    for case in 0..40 {
        let (program, shapes) = random_program(&mut r, 1 << 14);
        let batch = r.random_range(1..=3);
        let axes: Vec<Option<usize>> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| match r.random_range(0..4) {
                _ if i == 0 => Some(0),
                0 => None,
                1 => Some(s.len()),
                _ => Some(0),
            })
            .collect();
        let inputs: Vec<Array> = shapes
            .iter()
            .zip(&axes)
            .map(|(s, a)| match a {
                None => random_input(&mut r, s, DType::Float32),
                Some(ax) => {
                    let mut s = s.clone();
                    s.insert(*ax, batch);
                    random_input(&mut r, &s, DType::Float32)
                }
            })
            .collect();
        let what =
            || format!("case {case}: {program:#?} over {shapes:?}, axes {axes:?}, batch {batch}");
        let in_axes = Axes::Tree(
            axes.iter()
                .map(|a| a.map_or(Axes::Unmapped, |ax| Axes::At(ax as isize)))
                .collect(),
        );
        let p = program.clone();
        let batched = if case % 2 == 0 {
            vmap(move |xs: Vec<Array>| run(&p, xs), in_axes.clone(), 0)(inputs.clone())
        } else {
            let f = vmap(move |xs: Vec<Array>| run(&p, xs), in_axes.clone(), 0);
            jit(f).call(inputs.clone())
        }
        .unwrap_or_else(|e| panic!("vmap {}: {e}", what()));
        // Per-example gradients (every input's, mapped or not), as DP-SGD takes them.
        let scatter_product = program
            .ops
            .iter()
            .any(|op| matches!(op, Op::Update(_, _, Upd::Mul, Some(_), _)));
        let p = program.clone();
        let grads = (!scatter_product).then(|| {
            let g = move |xs: Vec<Array>| {
                let p = p.clone();
                olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(xs)
            };
            if case % 2 == 0 {
                vmap(g, in_axes, 0)(inputs.clone())
            } else {
                jit(vmap(g, in_axes, 0)).call(inputs.clone())
            }
            .unwrap_or_else(|e| panic!("vmap of grad {}: {e}", what()))
        });
        let tol = if block_narrow(&program) { 3e-2 } else { 1e-4 };
        for i in 0..batch {
            let one: Vec<Array> = inputs
                .iter()
                .zip(&axes)
                .map(|(x, a)| a.map_or_else(|| x.clone(), |ax| example(x, ax, i)))
                .collect();
            let want = run(&program, one.clone())
                .unwrap_or_else(|e| panic!("example {i} of {}: {e}", what()));
            let mut checks = vec![("output", &batched, want)];
            if let Some(grads) = &grads {
                let p = program.clone();
                let want = olympus::grad(move |xs: Vec<Array>| loss(&p, xs))(one)
                    .unwrap_or_else(|e| panic!("gradient of example {i} of {}: {e}", what()));
                checks.push(("gradient", grads, want));
            }
            for (kind, batched, want) in checks {
                assert_eq!(batched.len(), want.len(), "{kind}s: {}", what());
                for (j, (b, w)) in batched.iter().zip(&want).enumerate() {
                    let g = example(b, 0, i);
                    assert_eq!(
                        (g.dtype(), g.shape()),
                        (w.dtype(), w.shape()),
                        "{kind} {j}, example {i}: {}",
                        what()
                    );
                    let (gv, wv) = (
                        np::astype(&g, DType::Float32)
                            .unwrap()
                            .to_vec::<f32>()
                            .unwrap(),
                        np::astype(w, DType::Float32)
                            .unwrap()
                            .to_vec::<f32>()
                            .unwrap(),
                    );
                    let finite: Vec<f64> = wv
                        .iter()
                        .map(|v| f64::from(v.abs()))
                        .filter(|v| v.is_finite())
                        .collect();
                    let scale = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
                    if let Some(k) = (0..gv.len())
                        .find(|&k| !close(f64::from(gv[k]), f64::from(wv[k]), scale, tol))
                    {
                        panic!(
                            "{kind} {j}, example {i}, at {k}: {} batched, {} alone: {}",
                            gv[k],
                            wv[k],
                            what()
                        );
                    }
                }
            }
        }
    }
}

/// Whether a program rounds to float16 on the way (its values then differ by float16's
/// precision where an input to the rounding differs by an ulp).
fn block_narrow(p: &Program) -> bool {
    p.ops.iter().any(|op| matches!(op, Op::Narrow(_)))
}

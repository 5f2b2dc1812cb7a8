//! Random programs over all ten dtypes: integer arithmetic that wraps, divides by zero
//! and shifts past the width, bitwise and logical ops, casts between every pair of dtypes
//! (NaN, infinities and out-of-range floats into integers), weak scalars on either side,
//! mixed-dtype promotion, reductions that widen small integers, arg-reductions, scans,
//! sorts, gathers in three index modes (fill, clip, wrap) and scatters with repeated and out-of-range
//! positions, over views of packed (8- and 16-bit) storage. Each program runs eagerly,
//! under `jit` and under `vmap`; a table of 300 programs gives JAX 0.10.2's answers.
//!
//! Against eager mode every value must match to the bit (NaN for NaN). Against JAX,
//! integers and booleans must match exactly and floats within a few units of their
//! precision. The generator tracks which float values are exact (made without float
//! arithmetic, so every implementation has their bits) and lets only those reach a cast to
//! an integer, a comparison, a sign or an arg-reduction, where a last-bit difference would
//! become another integer.

use olympus::numpy::{IndexMode, PadMode};
use olympus::{jit, lax, numpy as np, Array, ArrayLike, DType, Result};
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

use crate::common::rng;
use crate::jit_programs::{
    broadcast, close, example, list, matmul_shape, name_of, named, parse_list, parse_widths, Upd,
    UPDS,
};

/// A weak (Python) scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lit {
    Int(i32),
    Float(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Bin {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Rem,
    Max,
    Min,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    TrueDiv,
    Eq,
    Lt,
    Ge,
    Ne,
    Power,
    Fmod,
    Heaviside,
    LogicalXor,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Un {
    Neg,
    Abs,
    Sign,
    Invert,
    Square,
    Not,
    Floor,
    Ceil,
    Trunc,
    Rint,
    BitwiseCount,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Red {
    Sum,
    Prod,
    Max,
    Min,
    Any,
    All,
    Mean,
}

/// What a scatter writes: an earlier value (broadcast to the update) or a weak scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    Value(usize),
    Lit(Lit),
}

/// One step of a program; indices name earlier values (inputs first).
#[derive(Clone, Debug, PartialEq)]
enum Op {
    Cast(usize, DType),
    Binary(usize, usize, Bin),
    /// A binary op with a weak scalar, on the left where the flag says.
    Scalar(usize, Bin, Lit, bool),
    Unary(usize, Un),
    /// `where(astype(c, bool), a, b)`.
    Where(usize, usize, usize),
    Reduce(usize, Red, Vec<isize>, bool),
    /// `argmax` (or `argmin`) along an axis.
    Arg(usize, bool, isize),
    /// `cumsum` (or `cumprod`) along an axis.
    Cum(usize, bool, isize),
    Transpose(usize, Vec<isize>),
    Reshape(usize, Vec<usize>),
    Broadcast(usize, Vec<usize>),
    Slice(usize, Vec<usize>, Vec<usize>, Vec<usize>),
    Flip(usize, isize),
    Concat(usize, usize, isize),
    /// Widths per axis; edge padding, or a constant.
    Pad(usize, Vec<(usize, usize)>, Option<i32>),
    /// `take` along an axis in an index mode.
    Take(usize, isize, Vec<i32>, IndexMode),
    /// `x.at[positions].op(source)` along the first axis (JAX's default: out-of-range
    /// positions dropped).
    Update(usize, Vec<i32>, Upd, Source),
    Matmul(usize, usize),
    /// `sort` along an axis, descending where the flag says.
    Sort(usize, isize, bool),
    Clip(usize, i32, i32),
    /// Stable `argsort` along an axis, descending where the flag says.
    Argsort(usize, isize, bool),
    /// `sum` (0), `mean` (1) over all axes, or `cumsum` (2) along the last, in a dtype.
    Accumulate(usize, u8, DType),
    /// `unique` of the flattened value, padded to `size` with a fill value.
    Unique(usize, usize, i32),
    /// The first index array of `nonzero(x, size=)`.
    Nonzero(usize, usize),
    /// `bincount(x, length=)` (negative values count at 0, values past the end drop).
    Bincount(usize, usize),
    /// `searchsorted(sort(ravel(a)), v)`, on the right where the flag says.
    Searchsorted(usize, usize, bool),
    Roll(usize, isize, isize),
    Diff(usize, isize),
    CountNonzero(usize, Vec<isize>),
}

fn binary(x: impl ArrayLike, y: impl ArrayLike, f: Bin) -> Result<Array> {
    match f {
        Bin::Add => np::add(x, y),
        Bin::Sub => np::subtract(x, y),
        Bin::Mul => np::multiply(x, y),
        Bin::FloorDiv => np::floor_divide(x, y),
        Bin::Rem => np::remainder(x, y),
        Bin::Max => np::maximum(x, y),
        Bin::Min => np::minimum(x, y),
        Bin::And => np::bitwise_and(x, y),
        Bin::Or => np::bitwise_or(x, y),
        Bin::Xor => np::bitwise_xor(x, y),
        Bin::Shl => np::left_shift(x, y),
        Bin::Shr => np::right_shift(x, y),
        Bin::TrueDiv => np::true_divide(x, y),
        Bin::Eq => np::equal(x, y),
        Bin::Lt => np::less(x, y),
        Bin::Ge => np::greater_equal(x, y),
        Bin::Ne => np::not_equal(x, y),
        Bin::Power => np::power(x, y),
        Bin::Fmod => np::fmod(x, y),
        Bin::Heaviside => np::heaviside(x, y),
        Bin::LogicalXor => np::logical_xor(x, y),
    }
}

fn update(x: &Array, idx: &[i32], u: Upd, src: impl ArrayLike) -> Result<Array> {
    let at = x.at(idx.to_vec());
    match u {
        Upd::Set => at.set(src),
        Upd::Add => at.add(src),
        Upd::Mul => at.multiply(src),
        Upd::Min => at.min(src),
        Upd::Max => at.max(src),
    }
}

fn apply(op: &Op, v: &[Array]) -> Result<Array> {
    match op {
        Op::Cast(a, d) => np::astype(&v[*a], *d),
        Op::Binary(a, b, f) => binary(&v[*a], &v[*b], *f),
        Op::Scalar(a, f, c, left) => match (*c, *left) {
            (Lit::Int(c), true) => binary(c, &v[*a], *f),
            (Lit::Int(c), false) => binary(&v[*a], c, *f),
            (Lit::Float(c), true) => binary(c, &v[*a], *f),
            (Lit::Float(c), false) => binary(&v[*a], c, *f),
        },
        Op::Unary(a, u) => {
            let x = &v[*a];
            match u {
                Un::Neg => np::negative(x),
                Un::Abs => np::abs(x),
                Un::Sign => np::sign(x),
                Un::Invert => np::invert(x),
                Un::Square => np::square(x),
                Un::Not => np::logical_not(x),
                Un::Floor => np::floor(x),
                Un::Ceil => np::ceil(x),
                Un::Trunc => np::trunc(x),
                Un::Rint => np::rint(x),
                Un::BitwiseCount => np::bitwise_count(x),
            }
        }
        Op::Where(c, a, b) => np::r#where(np::astype(&v[*c], DType::Bool)?, &v[*a], &v[*b]),
        Op::Reduce(a, r, axes, keep) => {
            let (x, axes, keep) = (&v[*a], Some(axes.as_slice()), *keep);
            match r {
                Red::Sum => np::sum(x, axes, keep),
                Red::Prod => np::prod(x, axes, keep),
                Red::Max => np::max(x, axes, keep),
                Red::Min => np::min(x, axes, keep),
                Red::Any => np::any(x, axes, keep),
                Red::All => np::all(x, axes, keep),
                Red::Mean => np::mean(x, axes, keep),
            }
        }
        Op::Arg(a, max, axis) => {
            if *max {
                np::argmax(&v[*a], Some(*axis), false)
            } else {
                np::argmin(&v[*a], Some(*axis), false)
            }
        }
        Op::Cum(a, prod, axis) => {
            if *prod {
                np::cumprod(&v[*a], Some(*axis))
            } else {
                np::cumsum(&v[*a], Some(*axis))
            }
        }
        Op::Transpose(a, perm) => np::transpose(&v[*a], Some(perm)),
        Op::Reshape(a, shape) => np::reshape(&v[*a], shape.as_slice()),
        Op::Broadcast(a, shape) => np::broadcast_to(&v[*a], shape),
        Op::Slice(a, start, limit, step) => lax::slice(&v[*a], start, limit, Some(step)),
        Op::Flip(a, axis) => np::flip(&v[*a], Some(&[*axis])),
        Op::Concat(a, b, axis) => np::concatenate([&v[*a], &v[*b]], *axis),
        Op::Pad(a, widths, c) => {
            let mode = c.map_or(PadMode::Edge, |c| PadMode::Constant(f64::from(c)));
            np::pad(&v[*a], widths, mode)
        }
        Op::Take(a, axis, idx, mode) => {
            let idx = Array::from_slice(idx, &[idx.len()])?;
            np::take_with(&v[*a], &idx, Some(*axis), *mode, None)
        }
        Op::Update(a, idx, u, src) => match src {
            Source::Value(s) => update(&v[*a], idx, *u, &v[*s]),
            Source::Lit(Lit::Int(c)) => update(&v[*a], idx, *u, *c),
            Source::Lit(Lit::Float(c)) => update(&v[*a], idx, *u, *c),
        },
        Op::Matmul(a, b) => np::matmul(&v[*a], &v[*b]),
        Op::Sort(a, axis, desc) => np::sort_with(&v[*a], Some(*axis), *desc, true),
        Op::Clip(a, lo, hi) => np::clip(&v[*a], *lo, *hi),
        Op::Argsort(a, axis, desc) => np::argsort_with(&v[*a], Some(*axis), *desc, true),
        Op::Accumulate(a, k, d) => match k {
            0 => np::sum_with(&v[*a], None, false, Some(*d)),
            1 => np::mean_with(&v[*a], None, false, Some(*d)),
            _ => np::cumsum_with(&v[*a], Some(-1), Some(*d)),
        },
        Op::Unique(a, size, fill) => np::unique(&v[*a], Some(*size), Some(f64::from(*fill))),
        Op::Nonzero(a, size) => Ok(np::nonzero(&v[*a], Some(*size), None)?.remove(0)),
        Op::Bincount(a, length) => np::bincount(&v[*a], None, 0, Some(*length)),
        Op::Searchsorted(a, b, right) => {
            let side = if *right {
                np::Side::Right
            } else {
                np::Side::Left
            };
            np::searchsorted(np::sort(np::ravel(&v[*a])?, Some(0))?, &v[*b], side, None)
        }
        Op::Roll(a, shift, axis) => np::roll(&v[*a], &[*shift], Some(&[*axis])),
        Op::Diff(a, axis) => np::diff(&v[*a], 1, *axis, None, None),
        Op::CountNonzero(a, axes) => np::count_nonzero(&v[*a], Some(axes), false),
    }
}

/// A random program: its ops and the values it returns.
#[derive(Clone, Debug)]
struct Program {
    ops: Vec<Op>,
    outputs: Vec<usize>,
}

fn run(p: &Program, inputs: Vec<Array>) -> Result<Vec<Array>> {
    let mut v = inputs;
    for op in &p.ops {
        let r = apply(op, &v)?;
        v.push(r);
    }
    Ok(p.outputs.iter().map(|&i| v[i].clone()).collect())
}

// ----- The generator -----

/// Values of `dtype` with the edges of its range, zero, ±1 and small values among them
/// (floats: ±0, ±inf, NaN, ±3e38, halves, and values past every integer range).
fn edge_values(r: &mut StdRng, dtype: DType, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match dtype.integer_range() {
            _ if dtype.is_bool() => f64::from(u8::from(r.random_bool(0.5))),
            Some((lo, hi)) => {
                let (lo, hi) = (lo as f64, hi as f64);
                match r.random_range(0..10) {
                    0 => *[lo, hi, lo + 1.0, hi - 1.0, 0.0, 1.0].choose(r).unwrap(),
                    1 => r.random_range(lo..=hi).floor(),
                    _ => r.random_range(-9i32..=9).into(),
                }
                .clamp(lo, hi)
            }
            None => {
                let x: f64 = match r.random_range(0..12) {
                    0 => *[
                        0.0,
                        -0.0,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                        3e38,
                        -3e38,
                        2.5,
                        -2.5,
                        0.5,
                        -0.5,
                        65504.0,
                        3e9,
                        -3e9,
                        300.0,
                        -129.0,
                        70000.0,
                    ]
                    .choose(r)
                    .unwrap(),
                    1 => r.random_range(-100i32..=100).into(),
                    _ => f64::from(r.random_range(-8.0f32..8.0)),
                };
                crate::common::round_to(x, dtype)
            }
        })
        .collect()
}

const DTYPES: [DType; 10] = DType::ALL;

/// An input of `shape` and `dtype` holding `values`: contiguous, a transposed view, or a
/// strided slice of a taller array (packed dtypes then start mid-word).
fn input_view(r: &mut StdRng, values: &[f64], shape: &[usize], dtype: DType) -> Array {
    let a = crate::common::make(values, shape, dtype);
    match r.random_range(0..3) {
        1 if shape.len() >= 2 => {
            let t = lax::copy(&np::transpose(&a, None).unwrap()).unwrap();
            np::transpose(&t, None).unwrap()
        }
        2 if !shape.is_empty() => {
            // Rows 1, 3, 5, ... of a taller array whose other rows hold other values.
            let row: usize = shape[1..].iter().product();
            let junk = edge_values(r, dtype, row);
            let mut tall = junk.clone();
            for v in values.chunks(row.max(1)).take(shape[0]) {
                tall.extend_from_slice(&v[..row]);
                tall.extend_from_slice(&junk);
            }
            let mut tshape = shape.to_vec();
            tshape[0] = 2 * shape[0] + 1;
            let t = crate::common::make(&tall, &tshape, dtype);
            let mut start = vec![0; shape.len()];
            start[0] = 1;
            let mut step = vec![1; shape.len()];
            step[0] = 2;
            lax::slice(&t, &start, &tshape, Some(&step)).unwrap()
        }
        _ => a,
    }
}

/// A small random shape (rank 0 to 3), now and then with a longer axis.
fn small_shape(r: &mut StdRng, long: bool) -> Vec<usize> {
    let rank = r.random_range(0..=3);
    let mut s: Vec<usize> = (0..rank)
        .map(|_| *[1, 2, 3, 4, 5, 7, 8, 1, 2, 3].choose(r).unwrap())
        .collect();
    // Empty axes now and then (an empty value stays empty through most ops).
    if rank > 0 && r.random_bool(0.04) {
        let i = r.random_range(0..rank);
        s[i] = 0;
    }
    if long && rank > 0 && r.random_bool(0.15) {
        let i = r.random_range(0..rank);
        s[i] = *[33, 130, 1100, 4100].choose(r).unwrap();
    }
    s
}

/// The values a program has made so far: shapes, dtypes, and whether each float value is
/// exact (made without float arithmetic, so every implementation has its bits).
struct Vals {
    arrays: Vec<Array>,
    exact: Vec<bool>,
}

fn pick_lit(r: &mut StdRng) -> Lit {
    if r.random_bool(0.25) {
        Lit::Float(*[2.5, -0.5, 0.0, 3.0, 1e10].choose(r).unwrap())
    } else {
        // JAX wraps weak integers outside the array's range (`uint8 - 1` subtracts 1).
        Lit::Int(
            *[0, 1, 2, 3, 7, 100, -1, -3, 300, -200, 70000]
                .choose(r)
                .unwrap(),
        )
    }
}

/// Whether JAX accepts `f` between dtypes `a` and `b` (a weak scalar's kind for `b`).
fn binary_ok(f: Bin, a: DType, b: DType) -> bool {
    let int_or_bool = |d: DType| d.is_integer() || d.is_bool();
    match f {
        Bin::And | Bin::Or | Bin::Xor => int_or_bool(a) && int_or_bool(b),
        Bin::Shl | Bin::Shr => a.is_integer() && b.is_integer(),
        Bin::Sub | Bin::FloorDiv | Bin::Rem | Bin::Fmod | Bin::Heaviside => {
            !(a.is_bool() && b.is_bool())
        }
        Bin::Power => !a.is_bool() && !b.is_bool(),
        _ => true,
    }
}

/// Binary ops whose float results are exact (selections and comparisons).
fn keeps_exact(f: Bin) -> bool {
    matches!(
        f,
        Bin::Max
            | Bin::Min
            | Bin::Eq
            | Bin::Lt
            | Bin::Ge
            | Bin::Ne
            | Bin::Heaviside
            | Bin::LogicalXor
    )
}

/// A random op over `vals`, with whether its value is exact, or `None` where the op drawn
/// does not apply.
fn random_op(r: &mut StdRng, vals: &Vals) -> Option<(Op, bool)> {
    let n = vals.arrays.len();
    let pick = |r: &mut StdRng| n - 1 - r.random_range(0..n.min(4)).min(n - 1);
    let a = if r.random_bool(0.7) {
        pick(r)
    } else {
        r.random_range(0..n)
    };
    let x = &vals.arrays[a];
    let (s, d) = (x.shape().to_vec(), x.dtype());
    let exact = vals.exact[a];
    // Whether `i`'s value may reach an op that turns a last-bit difference into another
    // integer.
    let sharp = |i: usize| vals.exact[i] || !vals.arrays[i].dtype().is_floating();
    let rank = s.len();
    let compatible = |r: &mut StdRng, ok: &dyn Fn(usize) -> bool| -> Option<usize> {
        let c: Vec<usize> = (0..n).filter(|&i| ok(i)).collect();
        c.choose(r).copied()
    };
    let bins = [
        Bin::Add,
        Bin::Sub,
        Bin::Mul,
        Bin::FloorDiv,
        Bin::Rem,
        Bin::Max,
        Bin::Min,
        Bin::And,
        Bin::Or,
        Bin::Xor,
        Bin::Shl,
        Bin::Shr,
        Bin::TrueDiv,
        Bin::Eq,
        Bin::Lt,
        Bin::Ge,
        Bin::Ne,
        Bin::Power,
        Bin::Fmod,
        Bin::Heaviside,
        Bin::LogicalXor,
    ];
    let needs_sharp = |f: Bin| {
        matches!(
            f,
            Bin::FloorDiv
                | Bin::Rem
                | Bin::Fmod
                | Bin::Eq
                | Bin::Lt
                | Bin::Ge
                | Bin::Ne
                | Bin::Heaviside
                | Bin::LogicalXor
        )
    };
    match r.random_range(0..23) {
        0 | 1 => {
            let to = *DTYPES.choose(r)?;
            if d.is_floating() && !to.is_floating() && !exact {
                return None;
            }
            Some((Op::Cast(a, to), exact))
        }
        2..=4 => {
            let f = *bins.choose(r)?;
            let b = compatible(r, &|i| {
                let t = &vals.arrays[i];
                broadcast(&s, t.shape()).is_some() && binary_ok(f, d, t.dtype())
            })?;
            // Integer powers by integer arrays: JAX reads the exponent's low 6 bits, where
            // Olympus computes NumPy's modular power (`np::power`'s documented difference).
            // XLA turns a bool mask divided by a scalar into a select (`false / 0` is 0).
            let mask_div = f == Bin::TrueDiv && (d.is_bool() || vals.arrays[b].dtype().is_bool());
            let int_pow =
                f == Bin::Power && !d.is_floating() && !vals.arrays[b].dtype().is_floating();
            if mask_div || int_pow || (needs_sharp(f) && !(sharp(a) && sharp(b))) {
                return None;
            }
            let (x, y) = if r.random_bool(0.5) { (a, b) } else { (b, a) };
            let ex = vals.exact[a] && vals.exact[b] && keeps_exact(f);
            Some((Op::Binary(x, y, f), ex))
        }
        5 | 6 => {
            let f = *bins.choose(r)?;
            let c = if matches!(f, Bin::Shl | Bin::Shr) {
                Lit::Int(*[0, 1, 3, 7, 8, 15, 16, 31, 32, 40].choose(r)?)
            } else if f == Bin::Power {
                Lit::Int(r.random_range(0..=9))
            } else {
                pick_lit(r)
            };
            let cd = match c {
                Lit::Int(_) => DType::Int32,
                Lit::Float(_) => DType::Float32,
            };
            let mask_div = f == Bin::TrueDiv && d.is_bool();
            if mask_div || !binary_ok(f, d, cd) || (needs_sharp(f) && !sharp(a)) {
                return None;
            }
            // Weak floats with bool or integer arrays make float32 from exact values.
            let ex = exact && keeps_exact(f);
            // (A literal base raised to an integer array is a power by an array.)
            let left = r.random_bool(0.5) && (f != Bin::Power || d.is_floating());
            Some((Op::Scalar(a, f, c, left), ex))
        }
        7 => {
            let u = *[
                Un::Neg,
                Un::Abs,
                Un::Sign,
                Un::Invert,
                Un::Square,
                Un::Not,
                Un::Floor,
                Un::Ceil,
                Un::Trunc,
                Un::Rint,
                Un::BitwiseCount,
            ]
            .choose(r)?;
            let ok = match u {
                Un::Neg | Un::Sign | Un::Square => !d.is_bool(),
                Un::Invert => !d.is_floating(),
                Un::BitwiseCount => d.is_integer(),
                _ => true,
            };
            let steps = matches!(
                u,
                Un::Sign | Un::Not | Un::Floor | Un::Ceil | Un::Trunc | Un::Rint
            );
            if !ok || (steps && !sharp(a)) {
                return None;
            }
            Some((Op::Unary(a, u), exact && u != Un::Square))
        }
        8 => {
            if !sharp(a) {
                return None;
            }
            let b = compatible(r, &|i| broadcast(&s, vals.arrays[i].shape()).is_some())?;
            let c = compatible(r, &|i| {
                broadcast(&s, vals.arrays[i].shape())
                    .and_then(|t| broadcast(&t, vals.arrays[b].shape()))
                    .is_some()
            })?;
            Some((Op::Where(a, b, c), vals.exact[b] && vals.exact[c]))
        }
        9 | 10 => {
            let mut axes: Vec<isize> = (0..rank as isize).filter(|_| r.random_bool(0.5)).collect();
            if axes.is_empty() && rank > 0 {
                axes.push(r.random_range(0..rank) as isize);
            }
            let empty = axes.iter().any(|&i| s[i as usize] == 0);
            let red = *[
                Red::Sum,
                Red::Prod,
                Red::Max,
                Red::Min,
                Red::Any,
                Red::All,
                Red::Mean,
            ]
            .choose(r)?;
            if (empty && matches!(red, Red::Max | Red::Min))
                || (matches!(red, Red::Any | Red::All) && !sharp(a))
            {
                return None;
            }
            if r.random_bool(0.3) && rank > 0 && s.iter().all(|&k| k > 0) {
                let axis = r.random_range(0..rank) as isize;
                if !sharp(a) {
                    return None;
                }
                return Some((Op::Arg(a, r.random_bool(0.5), axis), true));
            }
            if r.random_bool(0.25) && rank > 0 {
                let axis = r.random_range(0..rank) as isize;
                return Some((Op::Cum(a, r.random_bool(0.3), axis), !d.is_floating()));
            }
            let ex = match red {
                Red::Max | Red::Min => exact,
                Red::Any | Red::All => true,
                // Sums of integers wrap the same in any order; of floats they round.
                Red::Sum | Red::Prod => !d.is_floating(),
                Red::Mean => false,
            };
            Some((Op::Reduce(a, red, axes, r.random_bool(0.3)), ex))
        }
        11 => {
            if rank < 2 {
                return None;
            }
            let mut perm: Vec<isize> = (0..rank as isize).collect();
            perm.shuffle(r);
            Some((Op::Transpose(a, perm), exact))
        }
        12 => {
            let size: usize = s.iter().product();
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
                    let k = s[i];
                    let f = (2..k).find(|&f| k.is_multiple_of(f))?;
                    let mut t = s.clone();
                    t[i] = f;
                    t.insert(i + 1, k / f);
                    t
                }
                _ => vec![size],
            };
            Some((Op::Reshape(a, out), exact))
        }
        13 => {
            let mut out = s.clone();
            match s.iter().position(|&k| k == 1) {
                Some(i) if r.random_bool(0.5) => out[i] = 3,
                _ if rank < 4 => out.insert(0, r.random_range(2..=3)),
                _ => return None,
            }
            Some((Op::Broadcast(a, out), exact))
        }
        14 => {
            if rank == 0 {
                return None;
            }
            let i = r.random_range(0..rank);
            match r.random_range(0..3) {
                0 => {
                    let mut start = vec![0; rank];
                    let mut limit = s.clone();
                    let mut step = vec![1; rank];
                    start[i] = r.random_range(0..=s[i]);
                    limit[i] = r.random_range(start[i]..=s[i]);
                    step[i] = r.random_range(1..=3);
                    Some((Op::Slice(a, start, limit, step), exact))
                }
                1 => Some((Op::Flip(a, i as isize), exact)),
                _ => {
                    let widths: Vec<(usize, usize)> = (0..rank)
                        .map(|_| (r.random_range(0..3), r.random_range(0..4)))
                        .collect();
                    let size: usize = s.iter().product();
                    let c = if size > 0 && r.random_bool(0.5) {
                        None
                    } else {
                        Some(*[-1, 0, 7, 300].choose(r).unwrap())
                    };
                    Some((Op::Pad(a, widths, c), exact))
                }
            }
        }
        15 => {
            let b = compatible(r, &|i| {
                let t = vals.arrays[i].shape();
                t.len() == rank && rank > 0 && t.iter().zip(&s).filter(|(p, q)| p != q).count() <= 1
            })?;
            let t = vals.arrays[b].shape();
            let axis = (0..rank)
                .find(|&i| t[i] != s[i])
                .unwrap_or_else(|| r.random_range(0..rank));
            Some((Op::Concat(a, b, axis as isize), exact && vals.exact[b]))
        }
        16 => {
            if rank == 0 {
                return None;
            }
            let axis = r.random_range(0..rank);
            let len = s[axis] as i32;
            let k = r.random_range(0..=6);
            let idx: Vec<i32> = (0..k).map(|_| r.random_range(-len - 2..=len + 1)).collect();
            let mode = *[IndexMode::Fill, IndexMode::Clip, IndexMode::Wrap].choose(r)?;
            // JAX raises for a non-empty take from an empty axis, in every mode.
            if len == 0 && !idx.is_empty() {
                return None;
            }
            Some((Op::Take(a, axis as isize, idx, mode), exact))
        }
        17 => {
            if rank == 0 {
                return None;
            }
            let len = s[0] as i32;
            let k = r.random_range(0..=6);
            let idx: Vec<i32> = (0..k).map(|_| r.random_range(-len - 2..=len + 1)).collect();
            let u = *[Upd::Set, Upd::Add, Upd::Mul, Upd::Min, Upd::Max].choose(r)?;
            // Repeated positions make `set` pick one of the writes: unspecified in JAX.
            let mut seen: Vec<i32> = idx
                .iter()
                .map(|&i| if i < 0 { i + len } else { i })
                .collect();
            seen.sort_unstable();
            if u == Upd::Set
                && seen
                    .windows(2)
                    .any(|w| w[0] == w[1] && w[0] >= 0 && w[0] < len)
            {
                return None;
            }
            // JAX has no product of bools, nor a sum of bool updates into bools.
            if (d.is_bool() && matches!(u, Upd::Mul))
                || (u == Upd::Mul && !exact && d.is_floating())
            {
                return None;
            }
            let mut upd_shape = s.clone();
            upd_shape[0] = idx.len();
            let src = if r.random_bool(0.5) {
                let l = pick_lit(r);
                Source::Lit(l)
            } else {
                let b = compatible(r, &|i| {
                    let t = &vals.arrays[i];
                    broadcast(t.shape(), &upd_shape).as_deref() == Some(upd_shape.as_slice())
                        && !(d.is_bool() && u == Upd::Add && t.dtype().is_bool())
                        && (sharp(i) || d.is_floating())
                })?;
                Source::Value(b)
            };
            let ex = exact
                && match src {
                    Source::Value(b) => vals.exact[b],
                    Source::Lit(_) => true,
                }
                && matches!(u, Upd::Set | Upd::Min | Upd::Max);
            Some((Op::Update(a, idx, u, src), ex || !d.is_floating()))
        }
        18 => {
            if r.random_bool(0.5) {
                let b = compatible(r, &|i| matmul_shape(&s, vals.arrays[i].shape()).is_some())?;
                if d.is_bool() && vals.arrays[b].dtype().is_bool() {
                    return None;
                }
                let float = d.is_floating() || vals.arrays[b].dtype().is_floating();
                Some((Op::Matmul(a, b), !float))
            } else if rank > 0 {
                let axis = r.random_range(0..rank) as isize;
                Some((Op::Sort(a, axis, r.random_bool(0.3)), exact))
            } else {
                None
            }
        }
        19 => {
            if d.is_bool() {
                return None;
            }
            let (lo, hi) = if d.is_unsigned_integer() {
                (r.random_range(-3..=5), r.random_range(0..=9))
            } else {
                (r.random_range(-5..=5), r.random_range(-5..=9))
            };
            Some((Op::Clip(a, lo, hi), exact))
        }
        20 => {
            if !sharp(a) {
                return None;
            }
            let size: usize = s.iter().product();
            match r.random_range(0..5) {
                0 if rank > 0 => {
                    let axis = r.random_range(0..rank) as isize;
                    Some((Op::Argsort(a, axis, r.random_bool(0.4)), true))
                }
                1 => Some((
                    Op::Unique(a, r.random_range(0..=size + 2), r.random_range(0..=9)),
                    exact,
                )),
                2 if rank > 0 => Some((Op::Nonzero(a, r.random_range(0..=size + 2)), true)),
                3 if rank == 1 && !d.is_floating() => {
                    Some((Op::Bincount(a, r.random_range(1..=10)), true))
                }
                _ => {
                    let b = compatible(r, &|i| sharp(i) && vals.arrays[i].ndim() <= 2)?;
                    Some((Op::Searchsorted(a, b, r.random_bool(0.5)), true))
                }
            }
        }
        22 => {
            // A dtype for the accumulation: integers wrap in it, floats round in it.
            let k = r.random_range(0..3u8);
            let to = *DTYPES[1..].choose(r)?;
            if (k == 1 && !to.is_floating()) || (k == 2 && rank == 0) {
                return None;
            }
            if d.is_floating() && !to.is_floating() && !exact {
                return None;
            }
            Some((Op::Accumulate(a, k, to), !to.is_floating()))
        }
        _ => {
            if rank == 0 {
                return None;
            }
            let axis = r.random_range(0..rank) as isize;
            match r.random_range(0..3) {
                0 => Some((Op::Roll(a, r.random_range(-9i32..=9) as isize, axis), exact)),
                1 if !d.is_bool() => Some((Op::Diff(a, axis), !d.is_floating())),
                _ if sharp(a) => {
                    let axes = (0..rank as isize).filter(|_| r.random_bool(0.5)).collect();
                    Some((Op::CountNonzero(a, axes), true))
                }
                _ => None,
            }
        }
    }
}

/// A random program over random inputs (eager values alongside), every value at most
/// `max` elements; `long` allows axes past a workgroup's reach. Every op the generator
/// draws must run eagerly: an error is a failure (JAX accepts it).
fn random_program(r: &mut StdRng, max: usize, long: bool) -> (Program, Vec<Array>, Vec<Vec<f64>>) {
    let mut vals = Vals {
        arrays: vec![],
        exact: vec![],
    };
    let mut values = vec![];
    for _ in 0..r.random_range(1..=3) {
        let s = loop {
            let s = small_shape(r, long);
            if s.iter().product::<usize>() <= max {
                break s;
            }
        };
        let d = *DTYPES.choose(r).unwrap();
        let v = edge_values(r, d, s.iter().product());
        vals.arrays.push(input_view(r, &v, &s, d));
        vals.exact.push(true);
        values.push(v);
    }
    let inputs = vals.arrays.clone();
    let mut ops = Vec::new();
    let len = r.random_range(3..=10);
    let mut tries = 0;
    while ops.len() < len && tries < 1000 {
        tries += 1;
        let Some((op, exact)) = random_op(r, &vals) else {
            continue;
        };
        let value = apply(&op, &vals.arrays).unwrap_or_else(|e| {
            panic!(
                "eager {op:?} over {:?}: {e}",
                vals.arrays
                    .iter()
                    .map(|a| (a.dtype(), a.shape().to_vec()))
                    .collect::<Vec<_>>()
            )
        });
        if value.size() <= max {
            ops.push(op);
            vals.arrays.push(value);
            vals.exact.push(exact);
        }
    }
    // The eager values are never all read: let their kernels finish, so that no test
    // leaves lavapipe compiling when the process exits (see `Device::synchronize`).
    olympus::Device::default_device()
        .and_then(|d| d.synchronize())
        .unwrap();
    let last = vals.arrays.len() - 1;
    let mut outputs = vec![last];
    for _ in 0..r.random_range(0..=2) {
        outputs.push(r.random_range(0..last));
    }
    (Program { ops, outputs }, inputs, values)
}

/// An array's values with every NaN as one value and the sign of zero kept.
fn canonical(a: &Array) -> Vec<u64> {
    a.to_f64_vec()
        .unwrap()
        .into_iter()
        .map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() })
        .collect()
}

/// Random programs over every dtype give the eager values under `jit` (shapes, dtypes,
/// and every value: integers exactly, floats to the bit, NaN for NaN).
#[test]
fn dtype_programs_give_the_eager_values_under_jit() {
    let mut r = rng();
    for case in 0..80 {
        let (program, inputs, _) = random_program(&mut r, 1 << 16, true);
        let what = || {
            let ins: Vec<_> = inputs
                .iter()
                .map(|a| (a.dtype(), a.shape().to_vec()))
                .collect();
            format!("case {case}: {program:#?} over {ins:?}")
        };
        let want =
            run(&program, inputs.clone()).unwrap_or_else(|e| panic!("eager {}: {e}", what()));
        let p = program.clone();
        let got = jit(move |xs: Vec<Array>| run(&p, xs))
            .call(inputs.clone())
            .unwrap_or_else(|e| panic!("jit {}: {e}", what()));
        assert_eq!(got.len(), want.len(), "{}", what());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                (g.dtype(), g.shape()),
                (w.dtype(), w.shape()),
                "output {i}: {}",
                what()
            );
            let (gv, wv) = (canonical(g), canonical(w));
            if let Some(at) = (0..gv.len()).find(|&j| gv[j] != wv[j]) {
                panic!(
                    "output {i} at {at}: jit {} eager {}: {}",
                    g.to_f64_vec().unwrap()[at],
                    w.to_f64_vec().unwrap()[at],
                    what()
                );
            }
        }
    }
}

/// `vmap` of random programs over every dtype (each input mapped over its first axis or
/// not mapped), and `jit` of it, give each example's values as the program run on that
/// example alone.
#[test]
fn dtype_programs_under_vmap_match_each_example() {
    use olympus::{vmap, Axes};
    let mut r = rng();
    for case in 0..40 {
        let (program, one, _) = random_program(&mut r, 1 << 12, false);
        let batch = r.random_range(1..=3);
        let mapped: Vec<bool> = (0..one.len())
            .map(|i| i == 0 || r.random_bool(0.6))
            .collect();
        // Each example is the program's own input plus a multiple of its position (for
        // floats) or the input rolled by its position (every dtype keeps its edges).
        let inputs: Vec<Array> = one
            .iter()
            .zip(&mapped)
            .map(|(x, &m)| {
                if !m {
                    return x.clone();
                }
                let flat = np::ravel(x).unwrap();
                let ex: Vec<Array> = (0..batch)
                    .map(|i| {
                        np::reshape(np::roll(&flat, &[i as isize], None).unwrap(), x.shape())
                            .unwrap()
                    })
                    .collect();
                np::stack(&ex, 0).unwrap()
            })
            .collect();
        let what = || {
            let ins: Vec<_> = one
                .iter()
                .map(|a| (a.dtype(), a.shape().to_vec()))
                .collect();
            format!("case {case}: {program:#?} over {ins:?}, mapped {mapped:?}, batch {batch}")
        };
        let in_axes = Axes::Tree(
            mapped
                .iter()
                .map(|&m| if m { Axes::At(0) } else { Axes::Unmapped })
                .collect(),
        );
        let p = program.clone();
        let batched = if case % 2 == 0 {
            vmap(move |xs: Vec<Array>| run(&p, xs), in_axes, 0)(inputs.clone())
        } else {
            jit(vmap(move |xs: Vec<Array>| run(&p, xs), in_axes, 0)).call(inputs.clone())
        }
        .unwrap_or_else(|e| panic!("vmap {}: {e}", what()));
        for i in 0..batch {
            let xs: Vec<Array> = inputs
                .iter()
                .zip(&mapped)
                .map(|(x, &m)| if m { example(x, 0, i) } else { x.clone() })
                .collect();
            let want = run(&program, xs).unwrap_or_else(|e| panic!("example {i}: {e}: {}", what()));
            for (j, (b, w)) in batched.iter().zip(&want).enumerate() {
                let g = example(b, 0, i);
                assert_eq!(
                    (g.dtype(), g.shape()),
                    (w.dtype(), w.shape()),
                    "output {j}, example {i}: {}",
                    what()
                );
                let (gv, wv) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
                assert_eq!(gv.len(), wv.len(), "output {j}, example {i}: {}", what());
                let scale = scale_of(&wv);
                let tol = match w.dtype() {
                    DType::Float32 => 1e-5,
                    DType::Float16 | DType::BFloat16 => 1e-2,
                    _ => 0.0,
                };
                if let Some(k) = (0..gv.len()).find(|&k| !same(gv[k], wv[k], scale, tol)) {
                    panic!(
                        "output {j}, example {i}, at {k}: {} batched, {} alone: {}",
                        gv[k],
                        wv[k],
                        what()
                    );
                }
            }
        }
    }
}

/// The typical magnitude of an output's finite values (their median: a few huge edge
/// values must not widen the tolerance for the rest).
fn scale_of(w: &[f64]) -> f64 {
    let mut m: Vec<f64> = w
        .iter()
        .filter(|x| x.is_finite())
        .map(|x| x.abs())
        .collect();
    m.sort_by(f64::total_cmp);
    m.get(m.len() / 2).copied().unwrap_or(0.0)
}

/// [`close`], with the sign of zero where both are zero. Float32 subnormals match zero:
/// XLA:CPU flushes them, where Olympus keeps them.
fn same(got: f64, want: f64, scale: f64, tol: f64) -> bool {
    let tiny = f64::from(f32::MIN_POSITIVE);
    if got.abs() < tiny && want.abs() < tiny && (got != 0.0 || want != 0.0) {
        return true;
    }
    close(got, want, scale, tol)
        && !(got == 0.0 && want == 0.0 && got.is_sign_negative() != want.is_sign_negative())
}

// ----- The same programs against JAX -----

fn lit_text(l: Lit) -> String {
    match l {
        Lit::Int(i) => format!("i{i}"),
        Lit::Float(x) => format!("f{x:?}"),
    }
}

fn lit_parse(s: &str) -> Lit {
    match s.split_at(1) {
        ("i", v) => Lit::Int(v.parse().unwrap()),
        ("f", v) => Lit::Float(v.parse().unwrap()),
        _ => panic!("literal {s}"),
    }
}

fn mode_text(m: IndexMode) -> &'static str {
    match m {
        IndexMode::Fill => "fill",
        IndexMode::Clip => "clip",
        IndexMode::Wrap => "wrap",
        _ => unreachable!(),
    }
}

const BINS: [(&str, Bin); 21] = [
    ("add", Bin::Add),
    ("subtract", Bin::Sub),
    ("multiply", Bin::Mul),
    ("floor_divide", Bin::FloorDiv),
    ("remainder", Bin::Rem),
    ("maximum", Bin::Max),
    ("minimum", Bin::Min),
    ("bitwise_and", Bin::And),
    ("bitwise_or", Bin::Or),
    ("bitwise_xor", Bin::Xor),
    ("left_shift", Bin::Shl),
    ("right_shift", Bin::Shr),
    ("true_divide", Bin::TrueDiv),
    ("equal", Bin::Eq),
    ("less", Bin::Lt),
    ("greater_equal", Bin::Ge),
    ("not_equal", Bin::Ne),
    ("power", Bin::Power),
    ("fmod", Bin::Fmod),
    ("heaviside", Bin::Heaviside),
    ("logical_xor", Bin::LogicalXor),
];
const UNS: [(&str, Un); 11] = [
    ("negative", Un::Neg),
    ("abs", Un::Abs),
    ("sign", Un::Sign),
    ("invert", Un::Invert),
    ("square", Un::Square),
    ("logical_not", Un::Not),
    ("floor", Un::Floor),
    ("ceil", Un::Ceil),
    ("trunc", Un::Trunc),
    ("rint", Un::Rint),
    ("bitwise_count", Un::BitwiseCount),
];
const REDS: [(&str, Red); 7] = [
    ("sum", Red::Sum),
    ("prod", Red::Prod),
    ("max", Red::Max),
    ("min", Red::Min),
    ("any", Red::Any),
    ("all", Red::All),
    ("mean", Red::Mean),
];
/// One line per op (read back by [`decode`] and by `tests/data/gen_dtype_programs.py`).
fn encode(op: &Op) -> String {
    match op {
        Op::Cast(a, d) => format!("cast {a} {}", d.name()),
        Op::Binary(a, b, f) => format!("binary {a} {b} {}", name_of(&BINS, *f)),
        Op::Scalar(a, f, c, left) => format!(
            "scalar {a} {} {} {}",
            name_of(&BINS, *f),
            lit_text(*c),
            if *left { "left" } else { "right" }
        ),
        Op::Unary(a, u) => format!("unary {a} {}", name_of(&UNS, *u)),
        Op::Where(c, a, b) => format!("where {c} {a} {b}"),
        Op::Reduce(a, f, axes, keep) => {
            format!(
                "reduce {a} {} {} {}",
                name_of(&REDS, *f),
                list(axes),
                u8::from(*keep)
            )
        }
        Op::Arg(a, max, axis) => format!("arg {a} {} {axis}", if *max { "max" } else { "min" }),
        Op::Cum(a, prod, axis) => {
            format!("cum {a} {} {axis}", if *prod { "prod" } else { "sum" })
        }
        Op::Transpose(a, p) => format!("transpose {a} {}", list(p)),
        Op::Reshape(a, s) => format!("reshape {a} {}", list(s)),
        Op::Broadcast(a, s) => format!("broadcast {a} {}", list(s)),
        Op::Slice(a, lo, hi, st) => format!("slice {a} {} {} {}", list(lo), list(hi), list(st)),
        Op::Flip(a, axis) => format!("flip {a} {axis}"),
        Op::Concat(a, b, axis) => format!("concat {a} {b} {axis}"),
        Op::Pad(a, w, c) => {
            let w: Vec<String> = w.iter().map(|(l, h)| format!("{l}:{h}")).collect();
            let c = c.map_or("edge".to_string(), |c| c.to_string());
            format!("pad {a} {} {c}", list(&w))
        }
        Op::Take(a, axis, idx, mode) => {
            format!("take {a} {axis} {} {}", list(idx), mode_text(*mode))
        }
        Op::Update(a, idx, u, src) => {
            let src = match src {
                Source::Value(b) => format!("v{b}"),
                Source::Lit(l) => lit_text(*l),
            };
            format!("update {a} {} {} {src}", list(idx), name_of(&UPDS, *u))
        }
        Op::Matmul(a, b) => format!("matmul {a} {b}"),
        Op::Sort(a, axis, desc) => format!("sort {a} {axis} {}", u8::from(*desc)),
        Op::Clip(a, lo, hi) => format!("clip {a} {lo} {hi}"),
        Op::Argsort(a, axis, desc) => format!("argsort {a} {axis} {}", u8::from(*desc)),
        Op::Accumulate(a, k, d) => format!("accumulate {a} {k} {}", d.name()),
        Op::Unique(a, size, fill) => format!("unique {a} {size} {fill}"),
        Op::Nonzero(a, size) => format!("nonzero {a} {size}"),
        Op::Bincount(a, length) => format!("bincount {a} {length}"),
        Op::Searchsorted(a, b, right) => {
            format!(
                "searchsorted {a} {b} {}",
                if *right { "right" } else { "left" }
            )
        }
        Op::Roll(a, shift, axis) => format!("roll {a} {shift} {axis}"),
        Op::Diff(a, axis) => format!("diff {a} {axis}"),
        Op::CountNonzero(a, axes) => format!("count_nonzero {a} {}", list(axes)),
    }
}

fn decode(line: &str) -> Op {
    let t: Vec<&str> = line.split(' ').collect();
    let i = |k: usize| t[k].parse::<usize>().unwrap();
    let ax = |k: usize| t[k].parse::<isize>().unwrap();
    match t[0] {
        "cast" => Op::Cast(i(1), DType::from_name(t[2]).unwrap()),
        "binary" => Op::Binary(i(1), i(2), named(&BINS, t[3])),
        "scalar" => Op::Scalar(i(1), named(&BINS, t[2]), lit_parse(t[3]), t[4] == "left"),
        "unary" => Op::Unary(i(1), named(&UNS, t[2])),
        "where" => Op::Where(i(1), i(2), i(3)),
        "reduce" => Op::Reduce(i(1), named(&REDS, t[2]), parse_list(t[3]), t[4] == "1"),
        "arg" => Op::Arg(i(1), t[2] == "max", ax(3)),
        "cum" => Op::Cum(i(1), t[2] == "prod", ax(3)),
        "transpose" => Op::Transpose(i(1), parse_list(t[2])),
        "reshape" => Op::Reshape(i(1), parse_list(t[2])),
        "broadcast" => Op::Broadcast(i(1), parse_list(t[2])),
        "slice" => Op::Slice(i(1), parse_list(t[2]), parse_list(t[3]), parse_list(t[4])),
        "flip" => Op::Flip(i(1), ax(2)),
        "concat" => Op::Concat(i(1), i(2), ax(3)),
        "pad" => Op::Pad(
            i(1),
            parse_widths(t[2]),
            (t[3] != "edge").then(|| t[3].parse().unwrap()),
        ),
        "take" => {
            let mode = match t[4] {
                "fill" => IndexMode::Fill,
                "clip" => IndexMode::Clip,
                "wrap" => IndexMode::Wrap,
                m => panic!("index mode {m}"),
            };
            Op::Take(i(1), ax(2), parse_list(t[3]), mode)
        }
        "update" => {
            let src = match t[4].strip_prefix('v') {
                Some(b) => Source::Value(b.parse().unwrap()),
                None => Source::Lit(lit_parse(t[4])),
            };
            Op::Update(i(1), parse_list(t[2]), named(&UPDS, t[3]), src)
        }
        "matmul" => Op::Matmul(i(1), i(2)),
        "sort" => Op::Sort(i(1), ax(2), t[3] == "1"),
        "clip" => Op::Clip(i(1), t[2].parse().unwrap(), t[3].parse().unwrap()),
        "argsort" => Op::Argsort(i(1), ax(2), t[3] == "1"),
        "accumulate" => {
            Op::Accumulate(i(1), t[2].parse().unwrap(), DType::from_name(t[3]).unwrap())
        }
        "unique" => Op::Unique(i(1), i(2), t[3].parse().unwrap()),
        "nonzero" => Op::Nonzero(i(1), i(2)),
        "bincount" => Op::Bincount(i(1), i(2)),
        "searchsorted" => Op::Searchsorted(i(1), i(2), t[3] == "right"),
        "roll" => Op::Roll(i(1), ax(2), ax(3)),
        "diff" => Op::Diff(i(1), ax(2)),
        "count_nonzero" => Op::CountNonzero(i(1), parse_list(t[2])),
        other => panic!("unknown op {other}"),
    }
}

fn value_text(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else {
        format!("{x:?}")
    }
}

/// Writes programs for `tests/data/gen_dtype_programs.py` to run in JAX (see there).
#[test]
#[ignore = "writes the programs tests/data/gen_dtype_programs.py evaluates"]
fn write_dtype_programs_for_jax() {
    use rand::SeedableRng;
    let path = std::env::var("OLYMPUS_JAX_PROGRAMS").unwrap_or("/tmp/dtype_programs_in.txt".into());
    // The committed table's seed, or another to explore with.
    let seed = std::env::var("OLYMPUS_JAX_SEED").map_or(20261128, |s| s.parse().unwrap());
    let mut r = StdRng::seed_from_u64(seed);
    let mut text = String::new();
    for case in 0..300 {
        let (program, inputs, values) = random_program(&mut r, 256, false);
        text += &format!("program {case}\n");
        for (a, v) in inputs.iter().zip(&values) {
            let v: Vec<String> = v.iter().map(|&x| value_text(x)).collect();
            text += &format!(
                "input {} {} | {}\n",
                a.dtype().name(),
                list(a.shape()),
                v.join(" ")
            );
        }
        for op in &program.ops {
            text += &format!("op {}\n", encode(op));
        }
        text += &format!("outputs {}\n", list(&program.outputs));
    }
    std::fs::write(&path, text).unwrap();
}

/// 300 random programs over every dtype give JAX 0.10.2's shapes, dtypes and values,
/// eagerly and under `jit`: integers and booleans exactly, floats within a few units of
/// their precision (NaN for NaN, the same infinities). Values
/// from `tests/data/gen_dtype_programs.py`.
#[test]
fn dtype_programs_give_jax_values() {
    let text = include_str!("../data/dtype_programs.txt");
    let mut checked = 0;
    for block in text.split("program ").filter(|b| !b.is_empty()) {
        let mut lines = block.lines();
        let case = lines.next().unwrap();
        let (mut inputs, mut ops, mut outputs, mut want) = (vec![], vec![], vec![], vec![]);
        let mut skipped = false;
        for line in lines {
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            match kind {
                "input" => {
                    let (head, vals) = rest.split_once(" | ").unwrap_or((rest, ""));
                    let (d, shape) = head.split_once(' ').unwrap();
                    let (d, shape) = (DType::from_name(d).unwrap(), parse_list::<usize>(shape));
                    let v: Vec<f64> = vals
                        .split(' ')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().unwrap())
                        .collect();
                    inputs.push(crate::common::make(&v, &shape, d));
                }
                "op" => ops.push(decode(rest)),
                "outputs" => outputs = parse_list(rest),
                "skip" => skipped = true,
                "out" | "alt" => {
                    let (head, vals) = rest.split_once(" | ").unwrap_or((rest, ""));
                    let (d, shape) = head.split_once(' ').unwrap();
                    let v: Vec<f64> = vals
                        .split(' ')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().unwrap())
                        .collect();
                    if kind == "alt" {
                        let last: &mut (DType, Vec<usize>, Vec<Vec<f64>>) =
                            want.last_mut().unwrap();
                        last.2.push(v);
                    } else {
                        want.push((
                            DType::from_name(d).unwrap(),
                            parse_list::<usize>(shape),
                            vec![v],
                        ));
                    }
                }
                other => panic!("unknown line {other}"),
            }
        }
        if skipped {
            continue;
        }
        let program = Program { ops, outputs };
        let what = || format!("program {case}: {program:#?}");
        let eager =
            run(&program, inputs.clone()).unwrap_or_else(|e| panic!("eager {}: {e}", what()));
        let p = program.clone();
        let jitted = jit(move |xs: Vec<Array>| run(&p, xs))
            .call(inputs.clone())
            .unwrap_or_else(|e| panic!("jit {}: {e}", what()));
        for (mode, got) in [("eager", eager), ("jit", jitted)] {
            assert_eq!(got.len(), want.len(), "{mode}: {}", what());
            for (i, (g, (d, shape, w))) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    (g.dtype(), g.shape()),
                    (*d, shape.as_slice()),
                    "{mode} output {i}: {}",
                    what()
                );
                let gv = g.to_f64_vec().unwrap();
                let tol = match d {
                    DType::Float32 => 1e-5,
                    DType::Float16 | DType::BFloat16 => 1e-2,
                    _ => 0.0,
                };
                let near = |w: &[f64]| {
                    assert_eq!(gv.len(), w.len(), "{mode} output {i}: {}", what());
                    let scale = scale_of(w);
                    gv.iter()
                        .zip(w)
                        .position(|(&g, &w)| !same(g, w, scale, tol))
                };
                if w.iter().all(|w| near(w).is_some()) {
                    let j = near(&w[0]).unwrap();
                    panic!(
                        "{mode} output {i} at {j}: {} where JAX gives {}: {}",
                        gv[j],
                        w[0][j],
                        what()
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 250, "{checked} programs");
}

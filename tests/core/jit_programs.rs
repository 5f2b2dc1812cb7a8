//! `jit` against eager mode on random programs: chains of pointwise ops, reductions,
//! views, pads, slices, joins, products and scans over random shapes and input layouts,
//! each run eagerly and under `jit`. Fusion promises the eager bits (a fused reduction
//! reads its values in the unfused order), so every output must match word for word
//! (NaN against NaN). The seed is printed, and a failure prints the program.

use olympus::{jit, lax, numpy as np, Array, DType, Result};
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
}

#[derive(Clone, Copy, Debug)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
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
    }
}

fn apply(op: &Op, v: &[Array]) -> Result<Array> {
    match op {
        Op::Unary(a, u) => unary(&v[*a], *u),
        Op::Binary(a, b, f) => {
            let (x, y) = (&v[*a], &v[*b]);
            match f {
                Binary::Add => np::add(x, y),
                Binary::Sub => np::subtract(x, y),
                Binary::Mul => np::multiply(x, y),
                Binary::Div => np::divide(x, y),
                Binary::Max => np::maximum(x, y),
                Binary::Min => np::minimum(x, y),
            }
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

/// NumPy's broadcast of two shapes, if they broadcast.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
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
fn matmul_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
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
    match r.random_range(0..14) {
        0..=2 => {
            let u = [
                Unary::Neg,
                Unary::Exp,
                Unary::Tanh,
                Unary::Sin,
                Unary::SqrtAbs,
                Unary::Log1pAbs,
                Unary::Square,
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
        _ => {
            if rank > 0 && r.random_bool(0.4) {
                Some((Op::Cumsum(a, r.random_range(0..rank) as isize), s))
            } else {
                Some((Op::Narrow(a), s))
            }
        }
    }
}

fn random_program(r: &mut StdRng) -> (Program, Vec<Vec<usize>>) {
    let inputs: Vec<Vec<usize>> = (0..r.random_range(1..=3))
        .map(|_| random_shape(r))
        .collect();
    let mut shapes = inputs.clone();
    let mut ops = Vec::new();
    let len = r.random_range(3..=10);
    while ops.len() < len {
        if let Some((op, shape)) = random_op(r, &shapes) {
            // Bounded sizes: products and broadcasts of long axes grow fast.
            if shape.iter().product::<usize>() <= 1 << 18 {
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
        let (program, shapes) = random_program(&mut r);
        let dtypes: Vec<DType> = shapes
            .iter()
            .map(|_| match r.random_range(0..10) {
                0 => DType::Int32,
                1 => DType::Float16,
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
        if dtypes.iter().any(|&d| d != DType::Float32) {
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
    assert!(checked >= 45, "{checked} cases");
}

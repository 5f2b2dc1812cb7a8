//! Automatic differentiation: `grad`, `value_and_grad`, `vjp`, `jvp` and their composition
//! with `jit` and `vmap`, against f64 references on the CPU.
//!
//! Gradients computed by the library (float32 on the device) are compared with central
//! differences `(f(x+h) - f(x-h)) / 2h`, `h = 1e-6`, of f64 reference functions evaluated at
//! the float32 inputs promoted to f64. The f64 differences are accurate to about 1e-9, so the
//! tolerance, relative 2e-3 plus absolute 1e-4, is the error of evaluating the derivative
//! formula in float32 (a few ulps of each factor, amplified where the formula divides by a
//! small quantity, e.g. `1/sqrt(1-x²)` near the ends of the safe domains below), and the
//! absolute part covers derivatives that cross zero. Gradients that are exactly
//! representable (piecewise-constant functions, ties, products with zeros, float16 `2x`)
//! are compared exactly. A NaN or infinite gradient never passes where the reference is
//! finite.

#![allow(clippy::needless_range_loop)]

use half::f16;
use olympus::numpy::{self as np, PadMode};
use olympus::{
    grad, grad_argnums, jit, jvp, s, value_and_grad, value_and_grad_argnums, vjp, vmap, Arg, Array,
    Axes, DType, Error, Result,
};
use rand::rngs::StdRng;
use rand::Rng;

use crate::common::{make, map_ref, ravel_c, rng, unravel_c};

/// The finite-difference step.
const H: f64 = 1e-6;
/// Relative tolerance: float32 evaluation of the derivative formula.
const RTOL: f64 = 2e-3;
/// Absolute tolerance: derivatives near zero.
const ATOL: f64 = 1e-4;

// ---------------------------------------------------------------- helpers

fn f32a(v: &[f64], shape: &[usize]) -> Array {
    make(v, shape, DType::Float32)
}

fn vals(a: &Array) -> Vec<f64> {
    a.to_f64_vec().expect("readback")
}

/// `v` rounded to float32 (the value the device will hold).
fn r32(v: f64) -> f64 {
    f64::from(v as f32)
}

/// Uniform in `[lo, hi)`, rounded to float32.
fn u(r: &mut StdRng, lo: f64, hi: f64) -> f64 {
    r32(r.random_range(lo..hi))
}

fn uniform(r: &mut StdRng, lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n).map(|_| u(r, lo, hi)).collect()
}

/// Magnitude in `[lo, hi)` with a random sign, rounded to float32.
fn signed(r: &mut StdRng, lo: f64, hi: f64) -> f64 {
    let m = u(r, lo, hi);
    if r.random::<bool>() {
        m
    } else {
        -m
    }
}

fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    (f(x + H) - f(x - H)) / (2.0 * H)
}

/// Central differences of a scalar function of several flat inputs, per input.
fn fd_grads(f: &dyn Fn(&[Vec<f64>]) -> f64, xs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for k in 0..xs.len() {
        let mut g = Vec::with_capacity(xs[k].len());
        for i in 0..xs[k].len() {
            let mut p = xs.to_vec();
            p[k][i] += H;
            let fp = f(&p);
            p[k][i] -= 2.0 * H;
            let fm = f(&p);
            g.push((fp - fm) / (2.0 * H));
        }
        out.push(g);
    }
    out
}

fn dot64(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `got` within `atol + rtol |want|` of `want`, elementwise; a non-finite `got` fails where
/// `want` is finite.
fn check_close(what: &str, got: &[f64], want: &[f64], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(w.is_finite(), "{what}: element {i}: the reference is {w}");
        assert!(
            g.is_finite() && (g - w).abs() <= atol + rtol * w.abs(),
            "{what}: element {i}: got {g}, want {w} (|diff| {:e})",
            (g - w).abs()
        );
    }
}

fn check_grad(what: &str, got: &[f64], want: &[f64]) {
    check_close(what, got, want, RTOL, ATOL);
}

/// Exact equality (for gradients that are exactly representable).
fn check_exact(what: &str, got: &Array, want: &[f64]) {
    let g = vals(got);
    assert_eq!(g, want, "{what}");
}

// ---------------------------------------------------------------- 1. unary

type NpUnary = fn(&Array) -> Result<Array>;

struct Smooth {
    name: &'static str,
    f: NpUnary,
    reference: fn(f64) -> f64,
    lo: f64,
    hi: f64,
    /// Magnitudes in `[lo, hi)` with a random sign (a kink or a pole at 0).
    signed: bool,
}

macro_rules! smooth {
    ($name:ident, $r:expr, $lo:expr, $hi:expr) => {
        smooth!(@ $name, $r, $lo, $hi, false)
    };
    ($name:ident, $r:expr, $lo:expr, $hi:expr, signed) => {
        smooth!(@ $name, $r, $lo, $hi, true)
    };
    (@ $name:ident, $r:expr, $lo:expr, $hi:expr, $signed:expr) => {
        Smooth {
            name: stringify!($name),
            f: |a| np::$name(a),
            reference: $r,
            lo: $lo,
            hi: $hi,
            signed: $signed,
        }
    };
}

/// Every differentiable unary float function, with a domain away from its singularities.
const SMOOTH: &[Smooth] = &[
    smooth!(negative, |x| -x, -5.0, 5.0),
    smooth!(positive, |x| x, -5.0, 5.0),
    smooth!(abs, f64::abs, 0.1, 5.0, signed),
    smooth!(absolute, f64::abs, 0.1, 5.0, signed),
    smooth!(sqrt, f64::sqrt, 0.1, 10.0),
    smooth!(cbrt, f64::cbrt, 0.2, 8.0, signed),
    smooth!(square, |x| x * x, -5.0, 5.0),
    smooth!(reciprocal, |x| 1.0 / x, 0.2, 5.0, signed),
    smooth!(exp, f64::exp, -4.0, 4.0),
    smooth!(exp2, f64::exp2, -6.0, 6.0),
    smooth!(expm1, f64::exp_m1, -4.0, 4.0),
    smooth!(log, f64::ln, 0.1, 10.0),
    smooth!(log2, f64::log2, 0.1, 10.0),
    smooth!(log10, f64::log10, 0.1, 10.0),
    smooth!(log1p, f64::ln_1p, -0.8, 10.0),
    smooth!(sin, f64::sin, -6.0, 6.0),
    smooth!(cos, f64::cos, -6.0, 6.0),
    smooth!(tan, f64::tan, -1.3, 1.3),
    smooth!(arcsin, f64::asin, -0.9, 0.9),
    smooth!(arccos, f64::acos, -0.9, 0.9),
    smooth!(arctan, f64::atan, -5.0, 5.0),
    smooth!(sinh, f64::sinh, -4.0, 4.0),
    smooth!(cosh, f64::cosh, -4.0, 4.0),
    smooth!(tanh, f64::tanh, -3.0, 3.0),
    smooth!(arcsinh, f64::asinh, -5.0, 5.0),
    smooth!(arccosh, f64::acosh, 1.1, 10.0),
    smooth!(arctanh, f64::atanh, -0.9, 0.9),
    smooth!(deg2rad, f64::to_radians, -360.0, 360.0),
    smooth!(rad2deg, f64::to_degrees, -6.0, 6.0),
    Smooth {
        name: "nan_to_num",
        f: |a| np::nan_to_num(a, 0.0, None, None),
        reference: |x| x,
        lo: -5.0,
        hi: 5.0,
        signed: false,
    },
];

#[test]
fn gradients_of_unary_functions_match_f64_finite_differences() {
    let mut r = rng();
    for fun in SMOOTH {
        let x: Vec<f64> = (0..7)
            .map(|_| {
                if fun.signed {
                    signed(&mut r, fun.lo, fun.hi)
                } else {
                    u(&mut r, fun.lo, fun.hi)
                }
            })
            .collect();
        let f = fun.f;
        let g = grad(|x: Array| np::sum(f(&x)?, None, false))(f32a(&x, &[7]))
            .unwrap_or_else(|e| panic!("grad {}: {e}", fun.name));
        assert_eq!(g.dtype(), DType::Float32, "{}", fun.name);
        assert_eq!(g.shape(), &[7], "{}", fun.name);
        let want: Vec<f64> = x.iter().map(|&v| central(fun.reference, v)).collect();
        assert!(want.iter().any(|v| v.abs() > 1e-3), "{}: vacuous", fun.name);
        check_grad(&format!("d{}/dx at {x:?}", fun.name), &vals(&g), &want);
    }

    // Piecewise-constant functions: exactly zero.
    let steps: &[(&str, NpUnary)] = &[
        ("floor", |a| np::floor(a)),
        ("ceil", |a| np::ceil(a)),
        ("trunc", |a| np::trunc(a)),
        ("rint", |a| np::rint(a)),
        ("sign", |a| np::sign(a)),
        ("round", |a| np::round(a, 0)),
        ("round(decimals=2)", |a| np::round(a, 2)),
        ("floor_divide", |a| np::floor_divide(a, 0.7)),
    ];
    for (name, f) in steps {
        let x = uniform(&mut r, -5.0, 5.0, 7);
        let g = grad(|x: Array| np::sum(f(&x)?, None, false))(f32a(&x, &[7]))
            .unwrap_or_else(|e| panic!("grad {name}: {e}"));
        assert_eq!(g.dtype(), DType::Float32, "{name}");
        check_exact(&format!("d{name}/dx at {x:?}"), &g, &[0.0; 7]);
    }
}

// ---------------------------------------------------------------- 2. binary

type NpBinary = fn(&Array, &Array) -> Result<Array>;

struct Pair {
    name: &'static str,
    f: NpBinary,
    reference: fn(f64, f64) -> f64,
    /// One input pair inside the smooth domain.
    domain: fn(&mut StdRng) -> (f64, f64),
}

macro_rules! pair {
    ($name:ident, $r:expr, $domain:expr) => {
        Pair {
            name: stringify!($name),
            f: |a, b| np::$name(a, b),
            reference: $r,
            domain: $domain,
        }
    };
}

fn anywhere(r: &mut StdRng) -> (f64, f64) {
    (u(r, -3.0, 3.0), u(r, -3.0, 3.0))
}

/// `|x - y| > 0.1`: away from the kink of max/min.
fn apart(r: &mut StdRng) -> (f64, f64) {
    let y = u(r, -3.0, 3.0);
    (r32(y + signed(r, 0.1, 2.0)), y)
}

/// Away from the origin (atan2, hypot, copysign).
fn off_axes(r: &mut StdRng) -> (f64, f64) {
    (signed(r, 0.3, 3.0), signed(r, 0.3, 3.0))
}

/// `x / y` at least 0.05 from an integer (the jumps of remainder, fmod, floor_divide).
fn between_multiples(r: &mut StdRng) -> (f64, f64) {
    loop {
        let (x, y) = (u(r, -5.0, 5.0), signed(r, 0.7, 2.0));
        let q = x / y;
        if (q - q.round()).abs() > 0.05 {
            return (x, y);
        }
    }
}

fn python_mod(x: f64, y: f64) -> f64 {
    x - y * (x / y).floor()
}

const PAIRS: &[Pair] = &[
    pair!(add, |x, y| x + y, anywhere),
    pair!(subtract, |x, y| x - y, anywhere),
    pair!(multiply, |x, y| x * y, anywhere),
    pair!(divide, |x, y| x / y, |r| (
        u(r, -3.0, 3.0),
        signed(r, 0.5, 3.0)
    )),
    pair!(true_divide, |x, y| x / y, |r| (
        u(r, -3.0, 3.0),
        signed(r, 0.5, 3.0)
    )),
    pair!(power, f64::powf, |r| (u(r, 0.5, 3.0), u(r, -2.5, 2.5))),
    pair!(maximum, f64::max, apart),
    pair!(minimum, f64::min, apart),
    pair!(fmax, f64::max, apart),
    pair!(fmin, f64::min, apart),
    pair!(arctan2, f64::atan2, off_axes),
    pair!(hypot, f64::hypot, off_axes),
    pair!(copysign, f64::copysign, off_axes),
    pair!(
        logaddexp,
        |x: f64, y: f64| (x.exp() + y.exp()).ln(),
        anywhere
    ),
    pair!(
        logaddexp2,
        |x: f64, y: f64| (x.exp2() + y.exp2()).log2(),
        anywhere
    ),
    pair!(remainder, python_mod, between_multiples),
    pair!(r#mod, python_mod, between_multiples),
    pair!(fmod, |x, y| x % y, between_multiples),
    pair!(
        floor_divide,
        |x: f64, y: f64| (x / y).floor(),
        between_multiples
    ),
];

#[test]
fn gradients_of_binary_functions_match_f64_finite_differences() {
    let mut r = rng();
    for (k, p) in PAIRS.iter().enumerate() {
        let (x, y): (Vec<f64>, Vec<f64>) = (0..7).map(|_| (p.domain)(&mut r)).unzip();
        let f = p.f;
        let args = (f32a(&x, &[7]), f32a(&y, &[7]));
        let loss = |(x, y): (Array, Array)| np::sum(f(&x, &y)?, None, false);
        // Both forms: the gradient over the whole tuple, and argnums selecting both.
        let (gx, gy) = if k % 2 == 0 {
            grad(loss)(args)
        } else {
            grad_argnums(loss, (Arg::<0>, Arg::<1>))(args)
        }
        .unwrap_or_else(|e| panic!("grad {}: {e}", p.name));
        assert_eq!((gx.shape(), gy.shape()), (&[7usize][..], &[7usize][..]));
        let f64f = p.reference;
        let wx: Vec<f64> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| central(|t| f64f(t, b), a))
            .collect();
        let wy: Vec<f64> = x
            .iter()
            .zip(&y)
            .map(|(&a, &b)| central(|t| f64f(a, t), b))
            .collect();
        let at = format!("x = {x:?}, y = {y:?}");
        check_grad(&format!("∂{}/∂x at {at}", p.name), &vals(&gx), &wx);
        check_grad(&format!("∂{}/∂y at {at}", p.name), &vals(&gy), &wy);
    }

    // y only, through argnums.
    let (x, y) = (vec![1.5, -2.0, 0.5], vec![2.0, 0.5, -3.0]);
    let gy = grad_argnums(
        |(x, y): (Array, Array)| np::sum(np::divide(&x, &y)?, None, false),
        Arg::<1>,
    )((f32a(&x, &[3]), f32a(&y, &[3])))
    .unwrap();
    let want: Vec<f64> = x.iter().zip(&y).map(|(a, b)| -a / (b * b)).collect();
    check_close("∂(x/y)/∂y", &vals(&gy), &want, 1e-6, 0.0);
}

// ---------------------------------------------------------------- 3. broadcasting

#[test]
fn gradients_sum_over_broadcast_axes() {
    let mut r = rng();
    // [3, 1] * [1, 4]: each gradient sums the other operand over the broadcast axis.
    let (x, y) = (uniform(&mut r, -2.0, 2.0, 3), uniform(&mut r, -2.0, 2.0, 4));
    let (gx, gy) = grad(|(x, y): (Array, Array)| np::sum(np::multiply(&x, &y)?, None, false))((
        f32a(&x, &[3, 1]),
        f32a(&y, &[1, 4]),
    ))
    .unwrap();
    assert_eq!(gx.shape(), &[3, 1]);
    assert_eq!(gy.shape(), &[1, 4]);
    let (sx, sy): (f64, f64) = (x.iter().sum(), y.iter().sum());
    check_close("∂/∂x of x[3,1]·y[1,4]", &vals(&gx), &[sy; 3], 1e-5, 1e-6);
    check_close("∂/∂y of x[3,1]·y[1,4]", &vals(&gy), &[sx; 4], 1e-5, 1e-6);

    // Rank extension: x [3] against y [2, 3], through a nonlinearity.
    let (x, y) = (uniform(&mut r, -1.0, 1.0, 3), uniform(&mut r, -2.0, 2.0, 6));
    let (gx, gy) =
        grad(|(x, y): (Array, Array)| np::sum(np::multiply(np::exp(&x)?, &y)?, None, false))((
            f32a(&x, &[3]),
            f32a(&y, &[2, 3]),
        ))
        .unwrap();
    assert_eq!((gx.shape(), gy.shape()), (&[3usize][..], &[2usize, 3][..]));
    let wx: Vec<f64> = (0..3).map(|j| x[j].exp() * (y[j] + y[3 + j])).collect();
    let wy: Vec<f64> = (0..6).map(|i| x[i % 3].exp()).collect();
    check_grad("∂/∂x of exp(x[3])·y[2,3]", &vals(&gx), &wx);
    check_grad("∂/∂y of exp(x[3])·y[2,3]", &vals(&gy), &wy);

    // A 0-d input broadcast against a vector, and a 0-d function of a 0-d input.
    let y = uniform(&mut r, -2.0, 2.0, 5);
    let (g0, gy) = grad(|(x, y): (Array, Array)| np::sum(np::multiply(&x, &y)?, None, false))((
        Array::scalar(1.5f32).unwrap(),
        f32a(&y, &[5]),
    ))
    .unwrap();
    assert_eq!(g0.shape(), &[] as &[usize]);
    check_close(
        "∂/∂x of x[]·y[5]",
        &vals(&g0),
        &[y.iter().sum()],
        1e-5,
        1e-6,
    );
    check_exact("∂/∂y of x[]·y[5]", &gy, &[1.5; 5]);
    let g = grad(|x: Array| np::multiply(&x, &x))(Array::scalar(-3.0f32).unwrap()).unwrap();
    assert_eq!(g.shape(), &[] as &[usize]);
    assert_eq!(g.item::<f32>().unwrap(), -6.0);

    // Weak Rust scalars do not promote and get no gradient.
    let x = uniform(&mut r, -2.0, 2.0, 4);
    let g = grad(|x: Array| np::sum(np::multiply(&x, 2.0)?, None, false))(f32a(&x, &[4])).unwrap();
    assert_eq!(g.dtype(), DType::Float32);
    check_exact("d(2x)/dx", &g, &[2.0; 4]);
    let g = grad(|x: Array| {
        let y = ((2.0 * &x)? + 1)?; // operators with scalars on both sides
        np::sum(np::multiply(&y, &x)?, None, false)
    })(f32a(&x, &[4]))
    .unwrap();
    let want: Vec<f64> = x.iter().map(|v| 4.0 * v + 1.0).collect();
    check_close("d((2x+1)x)/dx", &vals(&g), &want, 1e-6, 1e-6);
}

// ---------------------------------------------------------------- 4. reductions, shapes

/// Checks the gradient of `sum(w * f(xs))` (random weights `w`) w.r.t. every input against
/// central differences of `w · reference(xs)` in f64; also checks the forward values
/// against the reference, so the reference is known to describe `f`.
fn check_op(
    name: &str,
    r: &mut StdRng,
    inputs: &[(Vec<f64>, Vec<usize>)],
    f: impl Fn(&[Array]) -> Result<Array>,
    reference: impl Fn(&[Vec<f64>]) -> Vec<f64>,
) {
    let arrays: Vec<Array> = inputs.iter().map(|(v, s)| f32a(v, s)).collect();
    let xs: Vec<Vec<f64>> = inputs.iter().map(|(v, _)| v.clone()).collect();
    let y = f(&arrays).unwrap_or_else(|e| panic!("{name}: {e}"));
    let want_y = reference(&xs);
    assert_eq!(y.size(), want_y.len(), "{name}: forward size");
    check_close(&format!("{name}: forward"), &vals(&y), &want_y, 1e-4, 1e-5);
    // Weights of magnitude 0.5..1, so no reference gradient (mean()'s is w/n) vanishes.
    let w: Vec<f64> = (0..y.size()).map(|_| signed(r, 0.5, 1.0)).collect();
    let wa = f32a(&w, y.shape());
    let g = grad(|xs: Vec<Array>| np::sum(np::multiply(f(&xs)?, &wa)?, None, false))(arrays)
        .unwrap_or_else(|e| panic!("grad {name}: {e}"));
    let want = fd_grads(&|p| dot64(&w, &reference(p)), &xs);
    assert!(
        want.iter().flatten().any(|v| v.abs() > 1e-3),
        "{name}: the reference gradient is zero, so the check would be vacuous"
    );
    assert_eq!(g.len(), inputs.len());
    for (k, (gk, (_, shape))) in g.iter().zip(inputs).enumerate() {
        assert_eq!(gk.shape(), shape.as_slice(), "{name}: gradient {k} shape");
        assert_eq!(gk.dtype(), DType::Float32, "{name}: gradient {k} dtype");
        check_grad(
            &format!("{name}: gradient {k} at {:?}", xs[k]),
            &vals(gk),
            &want[k],
        );
    }
}

/// [`check_op`] for a function of one array.
fn check1(
    name: &str,
    r: &mut StdRng,
    x: Vec<f64>,
    shape: &[usize],
    f: impl Fn(&Array) -> Result<Array>,
    reference: impl Fn(&[f64]) -> Vec<f64>,
) {
    check_op(
        name,
        r,
        &[(x, shape.to_vec())],
        |a| f(&a[0]),
        |v| reference(&v[0]),
    );
}

/// Reduces each group of elements sharing their indices outside `axes` with `g`
/// (output in C order).
fn reduce_ref(x: &[f64], shape: &[usize], axes: &[usize], g: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    let out: Vec<usize> = (0..shape.len())
        .map(|d| if axes.contains(&d) { 1 } else { shape[d] })
        .collect();
    let mut groups = vec![Vec::new(); out.iter().product()];
    for (i, &v) in x.iter().enumerate() {
        let mut idx = unravel_c(i, shape);
        for &a in axes {
            idx[a] = 0;
        }
        groups[ravel_c(&idx, &out)].push(v);
    }
    groups.iter().map(|gr| g(gr)).collect()
}

fn sum64(v: &[f64]) -> f64 {
    v.iter().sum()
}

fn mean64(v: &[f64]) -> f64 {
    sum64(v) / v.len() as f64
}

fn var64(v: &[f64], ddof: usize) -> f64 {
    let m = mean64(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - ddof) as f64
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

#[test]
fn gradients_of_reductions_match_f64_finite_differences() {
    let mut r = rng();
    let r = &mut r;
    let s234 = [2usize, 3, 4];
    let x = uniform(r, -2.0, 2.0, 24);
    check1(
        "sum(axis=1)",
        r,
        x.clone(),
        &s234,
        |a| np::sum(a, Some(&[1]), false),
        |v| reduce_ref(v, &s234, &[1], sum64),
    );
    check1(
        "sum(axis=(0, -1), keepdims)",
        r,
        x.clone(),
        &s234,
        |a| np::sum(a, Some(&[0, -1]), true),
        |v| reduce_ref(v, &s234, &[0, 2], sum64),
    );
    check1(
        "mean(axis=-1)",
        r,
        x.clone(),
        &s234,
        |a| np::mean(a, Some(&[-1]), false),
        |v| reduce_ref(v, &s234, &[2], mean64),
    );
    check1(
        "mean()",
        r,
        x.clone(),
        &s234,
        |a| np::mean(a, None, false),
        |v| vec![mean64(v)],
    );
    let xp: Vec<f64> = (0..12).map(|_| signed(r, 0.5, 1.5)).collect();
    check1(
        "prod(axis=1)",
        r,
        xp.clone(),
        &[3, 4],
        |a| np::prod(a, Some(&[1]), false),
        |v| reduce_ref(v, &[3, 4], &[1], |g| g.iter().product()),
    );
    check1(
        "max(axis=0)",
        r,
        x.clone(),
        &[6, 4],
        |a| np::max(a, Some(&[0]), false),
        |v| {
            reduce_ref(v, &[6, 4], &[0], |g| {
                g.iter().copied().fold(f64::MIN, f64::max)
            })
        },
    );
    check1(
        "min()",
        r,
        x[..7].to_vec(),
        &[7],
        |a| np::min(a, None, false),
        |v| vec![v.iter().copied().fold(f64::MAX, f64::min)],
    );
    check1(
        "logsumexp(axis=1)",
        r,
        x[..8].to_vec(),
        &[2, 4],
        |a| np::logsumexp(a, Some(&[1]), false),
        |v| {
            reduce_ref(v, &[2, 4], &[1], |g| {
                g.iter().map(|t| t.exp()).sum::<f64>().ln()
            })
        },
    );
    check1(
        "var(axis=1)",
        r,
        x[..10].to_vec(),
        &[2, 5],
        |a| np::var(a, Some(&[1]), 0, false),
        |v| reduce_ref(v, &[2, 5], &[1], |g| var64(g, 0)),
    );
    check1(
        "std(ddof=1)",
        r,
        x[..6].to_vec(),
        &[6],
        |a| np::std(a, None, 1, false),
        |v| vec![var64(v, 1).sqrt()],
    );
    check1(
        "median(axis=1)",
        r,
        x[..10].to_vec(),
        &[2, 5],
        |a| np::median(a, Some(&[1]), false),
        |v| reduce_ref(v, &[2, 5], &[1], |g| sorted(g)[2]),
    );
    check1(
        "median(even)",
        r,
        x[..6].to_vec(),
        &[6],
        |a| np::median(a, None, false),
        |v| {
            let s = sorted(v);
            vec![(s[2] + s[3]) / 2.0]
        },
    );
    check1(
        "cumsum(axis=1)",
        r,
        x[..8].to_vec(),
        &[2, 4],
        |a| np::cumsum(a, Some(1)),
        |v| map_ref(&[2, 4], |o| (0..=o[1]).map(|k| v[o[0] * 4 + k]).sum()),
    );
    check1(
        "cumsum(flat)",
        r,
        x[..6].to_vec(),
        &[2, 3],
        |a| np::cumsum(a, None),
        |v| (0..6).map(|i| v[..=i].iter().sum()).collect(),
    );
    check1(
        "cumprod",
        r,
        xp[..5].to_vec(),
        &[5],
        |a| np::cumprod(a, Some(0)),
        |v| (0..5).map(|i| v[..=i].iter().product()).collect(),
    );

    // prod with zeros: the gradient is the product of the others, exactly.
    let dprod = grad(|x: Array| np::prod(&x, None, false));
    check_exact(
        "d prod/dx with one zero",
        &dprod(f32a(&[2.0, 0.0, 3.0, 4.0], &[4])).unwrap(),
        &[0.0, 24.0, 0.0, 0.0],
    );
    check_exact(
        "d prod/dx with two zeros",
        &dprod(f32a(&[2.0, 0.0, 3.0, 0.0], &[4])).unwrap(),
        &[0.0; 4],
    );
    check_exact(
        "d prod/dx without zeros",
        &dprod(f32a(&[2.0, -0.5, 3.0, 4.0], &[4])).unwrap(),
        &[-6.0, 24.0, -4.0, -3.0],
    );
    let g = grad(|x: Array| np::sum(np::prod(&x, Some(&[1]), false)?, None, false))(f32a(
        &[0.0, 5.0, 2.0, 3.0, 0.0, 0.0],
        &[2, 3],
    ))
    .unwrap();
    check_exact(
        "d prod(axis=1)/dx with zeros",
        &g,
        &[10.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    );

    // max and min with ties split the gradient equally (JAX's rule).
    let g = grad(|x: Array| np::max(&x, None, false))(f32a(&[1.0, 3.0, 3.0, 2.0], &[4])).unwrap();
    check_exact("d max/dx with a tie", &g, &[0.0, 0.5, 0.5, 0.0]);
    let g = grad(|x: Array| np::sum(np::min(&x, Some(&[1]), false)?, None, false))(f32a(
        &[-1.0, -1.0, -1.0, 0.0, 2.0, 0.0],
        &[2, 3],
    ))
    .unwrap();
    let third = f64::from(1.0f32 / 3.0);
    check_exact(
        "d min(axis=1)/dx with ties",
        &g,
        &[third, third, third, 0.5, 0.0, 0.5],
    );
    let g =
        grad(|x: Array| np::sum(np::maximum(&x, 1.0)?, None, false))(f32a(&[1.0, 0.5, 2.0], &[3]))
            .unwrap();
    check_exact("d maximum(x, 1)/dx with a tie", &g, &[0.5, 0.0, 1.0]);
}

#[test]
fn gradients_of_shape_and_indexing_ops_match_f64_finite_differences() {
    let mut r = rng();
    let r = &mut r;
    let x = uniform(r, -2.0, 2.0, 24);
    let x6 = x[..6].to_vec();
    check1(
        "reshape",
        r,
        x[..12].to_vec(),
        &[2, 6],
        |a| np::reshape(a, &[3, -1, 2]),
        |v| v.to_vec(),
    );
    check1(
        "transpose",
        r,
        x.clone(),
        &[2, 3, 4],
        |a| np::transpose(a, Some(&[2, 0, 1])),
        |v| map_ref(&[4, 2, 3], |o| v[ravel_c(&[o[1], o[2], o[0]], &[2, 3, 4])]),
    );
    check1(
        "moveaxis",
        r,
        x.clone(),
        &[2, 3, 4],
        |a| np::moveaxis(a, &[0], &[-1]),
        |v| map_ref(&[3, 4, 2], |o| v[ravel_c(&[o[2], o[0], o[1]], &[2, 3, 4])]),
    );
    check1(
        "expand_dims + squeeze + ravel",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::ravel(np::squeeze(np::expand_dims(a, &[1])?, Some(&[1]))?),
        |v| v.to_vec(),
    );
    check1(
        "broadcast_to",
        r,
        x[..3].to_vec(),
        &[3],
        |a| np::broadcast_to(a, &[2, 3]),
        |v| map_ref(&[2, 3], |o| v[o[1]]),
    );
    check1(
        "concatenate (x used twice)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::concatenate([a.clone(), np::square(a)?], 1),
        |v| {
            map_ref(&[2, 6], |o| {
                let e = v[o[0] * 3 + o[1] % 3];
                if o[1] < 3 {
                    e
                } else {
                    e * e
                }
            })
        },
    );
    check_op(
        "concatenate (two inputs)",
        r,
        &[(x6.clone(), vec![2, 3]), (x[6..10].to_vec(), vec![2, 2])],
        |a| np::concatenate([&a[0], &a[1]], -1),
        |v| {
            map_ref(&[2, 5], |o| {
                if o[1] < 3 {
                    v[0][o[0] * 3 + o[1]]
                } else {
                    v[1][o[0] * 2 + o[1] - 3]
                }
            })
        },
    );
    check_op(
        "stack",
        r,
        &[(x6.clone(), vec![2, 3]), (x[6..12].to_vec(), vec![2, 3])],
        |a| np::stack([&a[0], &a[1]], 1),
        |v| map_ref(&[2, 2, 3], |o| v[o[1]][o[0] * 3 + o[2]]),
    );
    check1(
        "split",
        r,
        x6.clone(),
        &[6],
        |a| {
            let parts = np::split(a, 3, 0)?;
            np::concatenate([&parts[2], &parts[0]], 0)
        },
        |v| vec![v[4], v[5], v[0], v[1]],
    );
    check1(
        "flip(axis=1)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::flip(a, Some(&[1])),
        |v| map_ref(&[2, 3], |o| v[o[0] * 3 + 2 - o[1]]),
    );
    check1(
        "flip()",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::flip(a, None),
        |v| v.iter().rev().copied().collect(),
    );
    check1(
        "roll(flat)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::roll(a, &[2], None),
        |v| (0..6).map(|i| v[(i + 4) % 6]).collect(),
    );
    check1(
        "roll(axes)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::roll(a, &[1, -1], Some(&[0, 1])),
        |v| map_ref(&[2, 3], |o| v[((o[0] + 1) % 2) * 3 + (o[1] + 1) % 3]),
    );
    check1(
        "pad(constant)",
        r,
        x[..3].to_vec(),
        &[3],
        |a| np::pad(a, &[(1, 2)], PadMode::Constant(5.0)),
        |v| vec![5.0, v[0], v[1], v[2], 5.0, 5.0],
    );
    check1(
        "pad(edge)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::pad(a, &[(1, 0), (2, 1)], PadMode::Edge),
        |v| {
            map_ref(&[3, 6], |o| {
                let i = o[0].saturating_sub(1);
                let j = o[1].saturating_sub(2).min(2);
                v[i * 3 + j]
            })
        },
    );
    check1(
        "tile",
        r,
        x[..3].to_vec(),
        &[3],
        |a| np::tile(a, &[2, 2]),
        |v| map_ref(&[2, 6], |o| v[o[1] % 3]),
    );
    check1(
        "repeat(2, axis=1)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::repeat(a, 2, Some(1)),
        |v| map_ref(&[2, 6], |o| v[o[0] * 3 + o[1] / 2]),
    );
    check1(
        "repeat([1, 0, 3], axis=0)",
        r,
        x6.clone(),
        &[3, 2],
        |a| np::repeat(a, [1, 0, 3], Some(0)),
        |v| {
            let rows = [0, 2, 2, 2];
            map_ref(&[4, 2], |o| v[rows[o[0]] * 2 + o[1]])
        },
    );
    // Repeated indices accumulate.
    check1(
        "take(axis=0)",
        r,
        x6.clone(),
        &[3, 2],
        |a| np::take(a, [2, 0, 2, 1], Some(0)),
        |v| {
            let rows = [2, 0, 2, 1];
            map_ref(&[4, 2], |o| v[rows[o[0]] * 2 + o[1]])
        },
    );
    check1(
        "take(flat)",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::take(a, [5, 5, 0, -1], None),
        |v| vec![v[5], v[5], v[0], v[5]],
    );
    let idx = Array::from_slice(&[0i32, 0, 2, 1, 2, 1], &[2, 3]).unwrap();
    check1(
        "take_along_axis",
        r,
        x6.clone(),
        &[2, 3],
        |a| np::take_along_axis(a, &idx, 1),
        |v| {
            let i = [0, 0, 2, 1, 2, 1];
            map_ref(&[2, 3], |o| v[o[0] * 3 + i[o[0] * 3 + o[1]]])
        },
    );
    check1(
        "sort(axis=-1)",
        r,
        x[..8].to_vec(),
        &[2, 4],
        |a| np::sort(a, Some(-1)),
        |v| [sorted(&v[..4]), sorted(&v[4..])].concat(),
    );
    check1(
        "sort(axis=0)",
        r,
        x6.clone(),
        &[3, 2],
        |a| np::sort(a, Some(0)),
        |v| {
            let c0 = sorted(&[v[0], v[2], v[4]]);
            let c1 = sorted(&[v[1], v[3], v[5]]);
            vec![c0[0], c1[0], c0[1], c1[1], c0[2], c1[2]]
        },
    );
    check1(
        "slice [1::2]",
        r,
        x[..7].to_vec(),
        &[7],
        |a| a.slice(s![1..;2]),
        |v| vec![v[1], v[3], v[5]],
    );
    check1(
        "slice [::-1, 1:3]",
        r,
        x[..12].to_vec(),
        &[3, 4],
        |a| a.slice(s![..;-1, 1..3]),
        |v| map_ref(&[3, 2], |o| v[(2 - o[0]) * 4 + o[1] + 1]),
    );
    check1(
        "slice [1, ..]",
        r,
        x[..12].to_vec(),
        &[3, 4],
        |a| a.slice(s![1, ..]),
        |v| v[4..8].to_vec(),
    );
    check1(
        "at[[1, 3]].set(5)",
        r,
        x[..4].to_vec(),
        &[4],
        |a| a.at([1, 3]).set(5.0),
        |v| vec![v[0], 5.0, v[2], 5.0],
    );
    check_op(
        "zeros.at[[0, 2, 0]].add(v) (repeated positions)",
        r,
        &[(x[..4].to_vec(), vec![4]), (x[4..7].to_vec(), vec![3])],
        |a| a[0].at([0, 2, 0]).add(&a[1]),
        |v| {
            vec![
                v[0][0] + v[1][0] + v[1][2],
                v[0][1],
                v[0][2] + v[1][1],
                v[0][3],
            ]
        },
    );
    check1(
        "diagonal + tril + triu",
        r,
        x[..9].to_vec(),
        &[3, 3],
        |a| {
            let d = np::diagonal(a, 1, 0, 1)?;
            let l = np::ravel(np::tril(a, 0)?)?;
            let u = np::ravel(np::triu(a, 1)?)?;
            np::concatenate([d, l, u], 0)
        },
        |v| {
            let mut out = vec![v[1], v[5]];
            out.extend((0..9).map(|i| if i % 3 <= i / 3 { v[i] } else { 0.0 }));
            out.extend((0..9).map(|i| if i % 3 > i / 3 { v[i] } else { 0.0 }));
            out
        },
    );
}

fn matmul64(a: &[f64], b: &[f64], n: usize, k: usize, m: usize) -> Vec<f64> {
    map_ref(&[n, m], |o| {
        (0..k).map(|t| a[o[0] * k + t] * b[t * m + o[1]]).sum()
    })
}

#[test]
fn gradients_of_contractions_match_f64_finite_differences() {
    let mut r = rng();
    let r = &mut r;
    let a = uniform(r, -1.0, 1.0, 12);
    let b = uniform(r, -1.0, 1.0, 12);
    let v3 = uniform(r, -1.0, 1.0, 3);
    check_op(
        "matmul [4,3]x[3,4]",
        r,
        &[(a.clone(), vec![4, 3]), (b.clone(), vec![3, 4])],
        |x| np::matmul(&x[0], &x[1]),
        |v| matmul64(&v[0], &v[1], 4, 3, 4),
    );
    check_op(
        "matmul batched [2,2,3]x[3,2]",
        r,
        &[(a.clone(), vec![2, 2, 3]), (b[..6].to_vec(), vec![3, 2])],
        |x| np::matmul(&x[0], &x[1]),
        |v| {
            [
                matmul64(&v[0][..6], &v[1], 2, 3, 2),
                matmul64(&v[0][6..], &v[1], 2, 3, 2),
            ]
            .concat()
        },
    );
    check_op(
        "matmul matrix-vector",
        r,
        &[(a.clone(), vec![4, 3]), (v3.clone(), vec![3])],
        |x| np::matmul(&x[0], &x[1]),
        |v| matmul64(&v[0], &v[1], 4, 3, 1),
    );
    check_op(
        "dot vectors",
        r,
        &[(a[..5].to_vec(), vec![5]), (b[..5].to_vec(), vec![5])],
        |x| np::dot(&x[0], &x[1]),
        |v| vec![dot64(&v[0], &v[1])],
    );
    check_op(
        "dot matrices",
        r,
        &[(a[..6].to_vec(), vec![2, 3]), (b[..6].to_vec(), vec![3, 2])],
        |x| np::dot(&x[0], &x[1]),
        |v| matmul64(&v[0], &v[1], 2, 3, 2),
    );
    check_op(
        "outer",
        r,
        &[(a[..3].to_vec(), vec![3]), (b[..2].to_vec(), vec![2])],
        |x| np::outer(&x[0], &x[1]),
        |v| map_ref(&[3, 2], |o| v[0][o[0]] * v[1][o[1]]),
    );
    check_op(
        "einsum ij,jk->ik",
        r,
        &[(a[..6].to_vec(), vec![2, 3]), (b.clone(), vec![3, 4])],
        |x| np::einsum("ij,jk->ik", [&x[0], &x[1]]),
        |v| matmul64(&v[0], &v[1], 2, 3, 4),
    );
    check_op(
        "einsum ij,ij->i",
        r,
        &[(a[..6].to_vec(), vec![2, 3]), (b[..6].to_vec(), vec![2, 3])],
        |x| np::einsum("ij,ij->i", [&x[0], &x[1]]),
        |v| {
            (0..2)
                .map(|i| dot64(&v[0][i * 3..i * 3 + 3], &v[1][i * 3..i * 3 + 3]))
                .collect()
        },
    );
    check1(
        "einsum ii (trace)",
        r,
        a[..9].to_vec(),
        &[3, 3],
        |x| np::einsum("ii", [x]),
        |v| vec![v[0] + v[4] + v[8]],
    );
    check1(
        "trace(offset=1)",
        r,
        a[..9].to_vec(),
        &[3, 3],
        |x| np::trace(x, 1, 0, 1),
        |v| vec![v[1] + v[5]],
    );
    check_op(
        "tensordot axes ([1,2],[1,0])",
        r,
        &[(a.clone(), vec![2, 3, 2]), (b.clone(), vec![2, 3, 2])],
        |x| np::tensordot(&x[0], &x[1], &[1, 2], &[1, 0]),
        |v| {
            map_ref(&[2, 2], |o| {
                let mut s = 0.0;
                for j in 0..3 {
                    for k in 0..2 {
                        s += v[0][ravel_c(&[o[0], j, k], &[2, 3, 2])]
                            * v[1][ravel_c(&[k, j, o[1]], &[2, 3, 2])];
                    }
                }
                s
            })
        },
    );
    check_op(
        "inner + vdot",
        r,
        &[(a[..4].to_vec(), vec![4]), (b[..4].to_vec(), vec![4])],
        |x| {
            np::add(
                np::inner(&x[0], &x[1])?,
                np::multiply(np::vdot(&x[1], &x[0])?, 3.0)?,
            )
        },
        |v| vec![4.0 * dot64(&v[0], &v[1])],
    );
}

#[test]
fn gradients_flow_only_through_the_selected_branch() {
    let mut r = rng();
    let r = &mut r;
    // where: x² where x > 0, else 3x (inputs away from 0).
    let x: Vec<f64> = (0..8).map(|_| signed(r, 0.1, 2.0)).collect();
    check1(
        "where(x > 0, x², 3x)",
        r,
        x.clone(),
        &[8],
        |a| np::r#where(np::greater(a, 0.0)?, np::square(a)?, np::multiply(a, 3.0)?),
        |v| {
            v.iter()
                .map(|&t| if t > 0.0 { t * t } else { 3.0 * t })
                .collect()
        },
    );
    let g = grad(|x: Array| np::sum(np::r#where(np::less(&x, 0.0)?, &x, 0.0)?, None, false))(f32a(
        &x,
        &[8],
    ))
    .unwrap();
    let want: Vec<f64> = x.iter().map(|&t| if t < 0.0 { 1.0 } else { 0.0 }).collect();
    check_exact("where(x < 0, x, 0)", &g, &want);
    // clip: gradient 1 inside [-1, 1], 0 outside (inputs away from the bounds).
    let x: Vec<f64> = (0..8)
        .map(|_| loop {
            let t = signed(r, 0.1, 3.0);
            if (t.abs() - 1.0).abs() > 0.05 {
                break t;
            }
        })
        .collect();
    let g =
        grad(|x: Array| np::sum(np::clip(&x, -1.0, 1.0)?, None, false))(f32a(&x, &[8])).unwrap();
    let want: Vec<f64> = x
        .iter()
        .map(|&t| f64::from(u8::from(t.abs() < 1.0)))
        .collect();
    check_exact(&format!("clip(x, -1, 1) at {x:?}"), &g, &want);
    // Half inside (|sin x| < 0.44), half clipped (|sin x| > 0.56), away from the kinks.
    let x: Vec<f64> = (0..8)
        .map(|i| {
            if i % 2 == 0 {
                signed(r, 0.05, 0.45)
            } else {
                signed(r, 0.6, 2.5)
            }
        })
        .collect();
    check1(
        "clip(sin(x), -0.5, 0.5)",
        r,
        x,
        &[8],
        |a| np::clip(np::sin(a)?, -0.5, 0.5),
        |v| v.iter().map(|t| t.sin().clamp(-0.5, 0.5)).collect(),
    );
}

#[test]
fn gradients_at_special_points_follow_jax() {
    let mut r = rng();
    let r = &mut r;
    let sum_of = |f: fn(&Array) -> Result<Array>| {
        move |x: Array| -> Result<Array> { np::sum(f(&x)?, None, false) }
    };
    let xs = f32a(&[-2.0, -0.5, 0.0, 1.5], &[4]);

    // power: integer exponents of negative bases, zero bases, zero exponents (JAX's rules).
    let g = grad(sum_of(|x| np::power(x, 3.0)))(xs.clone()).unwrap();
    check_exact("d x³/dx", &g, &[12.0, 0.75, 0.0, 6.75]);
    let g = grad(sum_of(|x| np::power(x, 2)))(xs.clone()).unwrap();
    check_exact("d x²/dx (int exponent)", &g, &[-4.0, -1.0, 0.0, 3.0]);
    // A float exponent of 0 is `0 * x^-1`: -0.0 for negative x, NaN at 0 (JAX 0.10.2).
    let g = grad(sum_of(|x| np::power(x, 0.0)))(xs.clone()).unwrap();
    let bits = |v: &[f64]| -> Vec<u64> {
        v.iter()
            .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
            .collect()
    };
    let (bits, want) = (bits(&vals(&g)), bits(&[-0.0, -0.0, f64::NAN, 0.0]));
    assert_eq!(bits, want, "d x⁰/dx: {:?}", vals(&g));
    // A literal integer 0 is JAX's `integer_pow`: 0 everywhere.
    let g = grad(sum_of(|x| np::power(x, 0)))(xs.clone()).unwrap();
    check_exact("d x⁰/dx (int exponent)", &g, &[0.0; 4]);
    let g = grad(sum_of(|x| np::power(x, 2.5)))(f32a(&[0.0, 4.0], &[2])).unwrap();
    check_exact("d x^2.5/dx", &g, &[0.0, 20.0]);
    let gy = grad(|y: Array| np::sum(np::power(f32a(&[0.0, 2.0], &[2]), &y)?, None, false))(f32a(
        &[2.0, 3.0],
        &[2],
    ))
    .unwrap();
    let ln2x8 = 8.0 * 2f64.ln();
    check_close("d 0^y/dy, d 2^y/dy", &vals(&gy), &[0.0, ln2x8], 1e-6, 0.0);

    // cumprod through a zero is a polynomial: exact derivatives, no NaN.
    let x = [2.0, 0.0, 3.0, 4.0];
    let g = grad(sum_of(|x| np::cumprod(x, None)))(f32a(&x, &[4])).unwrap();
    // sum = x0 + x0x1 + x0x1x2 + x0x1x2x3
    check_exact(
        "d sum(cumprod)/dx with a zero",
        &g,
        &[1.0, 2.0 + 6.0 + 24.0, 0.0, 0.0],
    );

    // NaN-ignoring reductions give the NaN elements a zero gradient.
    let xn = f32a(&[1.0, f64::NAN, 3.0], &[3]);
    let g = grad(sum_of(|x| np::nansum(x, None, false)))(xn.clone()).unwrap();
    check_exact("d nansum/dx", &g, &[1.0, 0.0, 1.0]);
    let g = grad(sum_of(|x| np::nanmean(x, None, false)))(xn.clone()).unwrap();
    check_exact("d nanmean/dx", &g, &[0.5, 0.0, 0.5]);
    let g = grad(sum_of(|x| np::nanmax(x, None, false)))(xn.clone()).unwrap();
    check_exact("d nanmax/dx", &g, &[0.0, 0.0, 1.0]);
    let g = grad(sum_of(|x| np::nanmin(x, None, false)))(xn).unwrap();
    check_exact("d nanmin/dx", &g, &[1.0, 0.0, 0.0]);

    // logsumexp with a -inf element: that element gets 0, the others their softmax.
    let g = grad(sum_of(|x| np::logsumexp(x, None, false)))(f32a(
        &[f64::NEG_INFINITY, 0.0, 2f64.ln()],
        &[3],
    ))
    .unwrap();
    check_close(
        "d logsumexp/dx with -inf",
        &vals(&g),
        &[0.0, 1.0 / 3.0, 2.0 / 3.0],
        1e-6,
        1e-7,
    );
    // ... and at huge values, where exp overflows without the shift.
    let g = grad(sum_of(|x| np::logsumexp(x, None, false)))(f32a(&[1000.0, 1000.0], &[2])).unwrap();
    check_exact("d logsumexp/dx at 1000", &g, &[0.5, 0.5]);

    // Trivial functions: the identity, a constant, an unused argument.
    let g = grad(|x: Array| Ok(x))(Array::scalar(2.5f32).unwrap()).unwrap();
    assert_eq!(
        (g.shape(), g.item::<f32>().unwrap()),
        (&[] as &[usize], 1.0)
    );
    let g = grad(|_x: Array| Array::scalar(4.0f32))(f32a(&[1.0, 2.0], &[2])).unwrap();
    assert_eq!((g.shape(), g.dtype()), (&[2usize][..], DType::Float32));
    check_exact("d const/dx", &g, &[0.0, 0.0]);
    let (gx, gy) = grad(|(x, _y): (Array, Array)| np::sum(np::exp(&x)?, None, false))((
        f32a(&[0.0], &[1]),
        f32a(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]),
    ))
    .unwrap();
    check_exact("d exp(x)/dx", &gx, &[1.0]);
    assert_eq!(gy.shape(), &[2, 3]);
    check_exact("unused argument", &gy, &[0.0; 6]);

    // A non-contiguous input (a transposed view): the gradient has its logical layout.
    let (xt, xv) = crate::common::random_array(r, &[2, 3], DType::Float32, true);
    let w = uniform(r, -1.0, 1.0, 6);
    let wa = f32a(&w, &[2, 3]);
    let g = grad(|x: Array| np::sum(np::multiply(np::square(&x)?, &wa)?, None, false))(xt).unwrap();
    assert_eq!(g.shape(), &[2, 3]);
    let want: Vec<f64> = xv.iter().zip(&w).map(|(x, w)| 2.0 * x * w).collect();
    check_close(
        "gradient of a transposed view",
        &vals(&g),
        &want,
        1e-6,
        1e-6,
    );

    // Scatters that keep the maximum or minimum: the winner gets the gradient.
    let base = uniform(r, -2.0, 2.0, 4);
    let upd = uniform(r, -2.0, 2.0, 3);
    for (name, min) in [("at.max", false), ("at.min", true)] {
        check_op(
            &format!("x.{name}([0, 2, 0], v)"),
            r,
            &[(base.clone(), vec![4]), (upd.clone(), vec![3])],
            |a| {
                let at = a[0].at([0, 2, 0]);
                if min {
                    at.min(&a[1])
                } else {
                    at.max(&a[1])
                }
            },
            |v| {
                let pick = |a: f64, b: f64| if min { a.min(b) } else { a.max(b) };
                let (x, u) = (&v[0], &v[1]);
                vec![pick(pick(x[0], u[0]), u[2]), x[1], pick(x[2], u[1]), x[3]]
            },
        );
    }

    // vjp and jvp with an integer input: it gets a zero cotangent of its own dtype, and
    // its tangent is ignored.
    let n = Array::from_slice(&[2i32, -3], &[2]).unwrap();
    let x = f32a(&[0.5, 1.5], &[2]);
    let f = |(x, n): (Array, Array)| np::multiply(&x, &n);
    let (_, pullback) = vjp(f, (x.clone(), n.clone())).unwrap();
    let (cx, cn) = pullback.call(f32a(&[1.0, 10.0], &[2])).unwrap();
    check_exact("vjp: ∂/∂x", &cx, &[2.0, -30.0]);
    assert_eq!(cn.dtype(), DType::Int32);
    check_exact("vjp: the integer input's cotangent", &cn, &[0.0, 0.0]);
    let (y, t): (Array, Array) = jvp(
        f,
        (x.clone(), n.clone()),
        (
            f32a(&[1.0, 1.0], &[2]),
            Array::from_slice(&[7i32, 7], &[2]).unwrap(),
        ),
    )
    .unwrap();
    check_exact("jvp: primal", &y, &[1.0, -4.5]);
    check_exact("jvp: tangent", &t, &[2.0, -3.0]);
    // An integer output gets a zero tangent.
    let (_, t): (Array, Array) = jvp(
        |x: Array| np::astype(&x, DType::Int32),
        x.clone(),
        x.clone(),
    )
    .unwrap();
    assert_eq!(t.dtype(), DType::Int32);
    check_exact("jvp of an integer output", &t, &[0.0, 0.0]);
}

// ---------------------------------------------------------------- 5. second derivatives

#[test]
fn second_derivatives_and_hessian_vector_products_are_exact_formulas() {
    let mut r = rng();
    type Scalar = fn(&Array) -> Result<Array>;
    // (name, f, f'') on 0-d inputs through grad(grad(f)), and on a vector through
    // grad(sum(grad(sum f))) (the Hessian of a separable function is diagonal).
    let cases: &[(&str, Scalar, fn(f64) -> f64)] = &[
        ("sin", |x| np::sin(x), |x| -x.sin()),
        ("x³", |x| np::power(x, 3.0), |x| 6.0 * x),
        (
            "x·x·x",
            |x| np::multiply(x, np::multiply(x, x)?),
            |x| 6.0 * x,
        ),
        ("exp", |x| np::exp(x), f64::exp),
        (
            "tanh",
            |x| np::tanh(x),
            |x| {
                let t = x.tanh();
                -2.0 * t * (1.0 - t * t)
            },
        ),
        (
            "log",
            |x| np::log(np::add(np::square(x)?, 1.0)?),
            |x| {
                let d = 1.0 + x * x;
                (2.0 - 2.0 * x * x) / (d * d)
            },
        ),
    ];
    for (name, f, d2) in cases {
        let x0 = u(&mut r, 0.2, 1.5);
        let g2 = grad(grad(|x: Array| f(&x)))(Array::scalar(x0 as f32).unwrap())
            .unwrap_or_else(|e| panic!("grad(grad({name})): {e}"));
        assert_eq!(g2.shape(), &[] as &[usize]);
        check_grad(&format!("{name}'' at {x0}"), &vals(&g2), &[d2(x0)]);

        let x = uniform(&mut r, -1.5, 1.5, 5);
        let d1 = grad(|x: Array| np::sum(f(&x)?, None, false));
        let g2 = grad(|x: Array| np::sum(d1(x)?, None, false))(f32a(&x, &[5]))
            .unwrap_or_else(|e| panic!("diagonal Hessian of {name}: {e}"));
        let want: Vec<f64> = x.iter().map(|&v| d2(v)).collect();
        check_grad(&format!("{name}'' at {x:?}"), &vals(&g2), &want);
    }
    // Third derivative.
    let x0 = 0.7f32;
    let g3 = grad(grad(grad(|x: Array| np::sin(&x))))(Array::scalar(x0).unwrap()).unwrap();
    check_grad("sin'''", &vals(&g3), &[-f64::from(x0).cos()]);

    // Forward over reverse: the Hessian of xᵀAx is A + Aᵀ, so jvp(grad f)(x; v) = (A + Aᵀ)v.
    let n = 4;
    let a = uniform(&mut r, -1.0, 1.0, n * n);
    let x = uniform(&mut r, -1.0, 1.0, n);
    let v = uniform(&mut r, -1.0, 1.0, n);
    let am = f32a(&a, &[n, n]);
    let quad = |x: Array| np::dot(&x, np::matmul(&am, &x)?);
    let (g, hv): (Array, Array) = jvp(grad(quad), f32a(&x, &[n]), f32a(&v, &[n])).unwrap();
    let sym = |i: usize, j: usize| a[i * n + j] + a[j * n + i];
    let want_g: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| sym(i, j) * x[j]).sum())
        .collect();
    let want_hv: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| sym(i, j) * v[j]).sum())
        .collect();
    check_close("∇(xᵀAx)", &vals(&g), &want_g, 1e-5, 1e-5);
    check_close("H(xᵀAx)·v", &vals(&hv), &want_hv, 1e-5, 1e-5);
    // Reverse over reverse gives the same Hessian column by column: grad of v·∇f.
    let vv = f32a(&v, &[n]);
    let hv2 = grad(|x: Array| np::dot(grad(quad)(x)?, &vv))(f32a(&x, &[n])).unwrap();
    check_close("∇(v·∇(xᵀAx))", &vals(&hv2), &want_hv, 1e-5, 1e-5);

    // Mixed partials of f(x, y) = sum(x² y): ∇f = (2xy, x²); its jvp along (tx, ty) is
    // (2y tx + 2x ty, 2x tx).
    let (x, y, tx, ty) = (
        uniform(&mut r, -2.0, 2.0, 3),
        uniform(&mut r, -2.0, 2.0, 3),
        uniform(&mut r, -1.0, 1.0, 3),
        uniform(&mut r, -1.0, 1.0, 3),
    );
    let f = |(x, y): (Array, Array)| np::sum(np::multiply(np::square(&x)?, &y)?, None, false);
    let ((gx, gy), (hx, hy)): ((Array, Array), (Array, Array)) = jvp(
        grad(f),
        (f32a(&x, &[3]), f32a(&y, &[3])),
        (f32a(&tx, &[3]), f32a(&ty, &[3])),
    )
    .unwrap();
    let want = |k: fn(f64, f64, f64, f64) -> f64| -> Vec<f64> {
        (0..3).map(|i| k(x[i], y[i], tx[i], ty[i])).collect()
    };
    check_close(
        "∂f/∂x",
        &vals(&gx),
        &want(|x, y, _, _| 2.0 * x * y),
        1e-5,
        1e-6,
    );
    check_close("∂f/∂y", &vals(&gy), &want(|x, _, _, _| x * x), 1e-5, 1e-6);
    check_close(
        "d(∂f/∂x)",
        &vals(&hx),
        &want(|x, y, tx, ty| 2.0 * y * tx + 2.0 * x * ty),
        1e-5,
        1e-6,
    );
    check_close(
        "d(∂f/∂y)",
        &vals(&hy),
        &want(|x, _, tx, _| 2.0 * x * tx),
        1e-5,
        1e-6,
    );
}

// ---------------------------------------------------------------- 6. jvp vs vjp

fn inner_product(a: &[Array], b: &[Array]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| dot64(&vals(x), &vals(y)))
        .sum()
}

#[test]
fn jvp_is_the_transpose_of_vjp() {
    let mut r = rng();
    let m = uniform(&mut r, -1.0, 1.0, 15);
    let ma = f32a(&m, &[3, 5]);
    let bias = f32a(&uniform(&mut r, -0.5, 0.5, 3), &[3]);

    // R^5 -> R^3: tanh(M x + b).
    let f = |x: Array| np::tanh(np::add(np::matmul(&ma, &x)?, &bias)?);
    let x = f32a(&uniform(&mut r, -1.0, 1.0, 5), &[5]);
    for _ in 0..2 {
        let t = f32a(&uniform(&mut r, -1.0, 1.0, 5), &[5]);
        let ct = f32a(&uniform(&mut r, -1.0, 1.0, 3), &[3]);
        let (y, jt) = jvp(f, x.clone(), t.clone()).unwrap();
        let (y2, pullback) = vjp(f, x.clone()).unwrap();
        assert_eq!(
            vals(&y),
            vals(&y2),
            "jvp and vjp give the same primal output"
        );
        let vct = pullback.call(ct.clone()).unwrap();
        let (lhs, rhs) = (inner_product(&[ct], &[jt]), inner_product(&[vct], &[t]));
        assert!(
            (lhs - rhs).abs() <= 1e-5 * (1.0 + lhs.abs()),
            "<ct, J t> = {lhs} but <Jᵀ ct, t> = {rhs}"
        );
    }

    // A pytree to a pytree: (X [2, 4], s []) -> (softmax(X s) [2, 4], sum(X²) []).
    let g = |(xm, s): (Array, Array)| -> Result<(Array, Array)> {
        let z = np::multiply(&xm, &s)?;
        let lse = np::logsumexp(&z, Some(&[1]), true)?;
        Ok((
            np::exp(np::subtract(&z, &lse)?)?,
            np::sum(np::square(&xm)?, None, false)?,
        ))
    };
    let primal = (
        f32a(&uniform(&mut r, -1.0, 1.0, 8), &[2, 4]),
        Array::scalar(1.3f32).unwrap(),
    );
    let t = (
        f32a(&uniform(&mut r, -1.0, 1.0, 8), &[2, 4]),
        Array::scalar(u(&mut r, -1.0, 1.0) as f32).unwrap(),
    );
    let ct = (
        f32a(&uniform(&mut r, -1.0, 1.0, 8), &[2, 4]),
        Array::scalar(u(&mut r, -1.0, 1.0) as f32).unwrap(),
    );
    let (_, jt) = jvp(g, primal.clone(), t.clone()).unwrap();
    let (_, pullback) = vjp(g, primal).unwrap();
    let vct = pullback.call(ct.clone()).unwrap();
    assert_eq!(vct.0.shape(), &[2, 4]);
    assert_eq!(vct.1.shape(), &[] as &[usize]);
    let lhs = inner_product(&[ct.0.clone(), ct.1.clone()], &[jt.0, jt.1]);
    let rhs = inner_product(&[vct.0.clone(), vct.1.clone()], &[t.0, t.1]);
    assert!(
        (lhs - rhs).abs() <= 1e-5 * (1.0 + lhs.abs()),
        "<ct, J t> = {lhs} but <Jᵀ ct, t> = {rhs}"
    );
    // The pullback can be called again, and is linear.
    let twice = pullback
        .call((
            np::multiply(&ct.0, 2.0).unwrap(),
            np::multiply(&ct.1, 2.0).unwrap(),
        ))
        .unwrap();
    let want: Vec<f64> = vals(&vct.0).iter().map(|v| 2.0 * v).collect();
    check_close("pullback(2 ct)", &vals(&twice.0), &want, 1e-6, 1e-7);
}

// ---------------------------------------------------------------- 7. pytrees

struct Mlp {
    w: Array,
    b: Array,
    act: String,
}
olympus::register_pytree!(Mlp { w, b, #[static] act });

/// mean((act(x w + b) - y)²) with x [4, 3], w [3, 2], b [2], y [4, 2].
fn mlp_loss(p: &Mlp, x: &Array, y: &Array) -> Result<Array> {
    let z = np::add(np::matmul(x, &p.w)?, &p.b)?;
    let z = if p.act == "tanh" { np::tanh(&z)? } else { z };
    np::mean(np::square(np::subtract(&z, y)?)?, None, false)
}

fn mlp_loss64(w: &[f64], b: &[f64], x: &[f64], y: &[f64], tanh: bool) -> f64 {
    let z = matmul64(x, w, 4, 3, 2);
    let mut s = 0.0;
    for i in 0..8 {
        let mut v = z[i] + b[i % 2];
        if tanh {
            v = v.tanh();
        }
        s += (v - y[i]) * (v - y[i]);
    }
    s / 8.0
}

/// Two tanh layers: x [4, 3] -> [4, 4] -> [4, 2], squared error against y.
fn net_loss(params: &[(Array, Array)], x: &Array, y: &Array) -> Result<Array> {
    let mut h = x.clone();
    for (i, (w, b)) in params.iter().enumerate() {
        h = np::add(np::matmul(&h, w)?, b)?;
        if i + 1 < params.len() {
            h = np::tanh(&h)?;
        }
    }
    np::sum(np::square(np::subtract(&h, y)?)?, None, false)
}

fn net_loss64(p: &[Vec<f64>], x: &[f64], y: &[f64]) -> f64 {
    let h1: Vec<f64> = matmul64(x, &p[0], 4, 3, 4)
        .iter()
        .enumerate()
        .map(|(i, v)| (v + p[1][i % 4]).tanh())
        .collect();
    let out = matmul64(&h1, &p[2], 4, 4, 2);
    out.iter()
        .enumerate()
        .map(|(i, v)| (v + p[3][i % 2] - y[i]).powi(2))
        .sum()
}

#[test]
fn gradients_of_pytrees_keep_their_structure() {
    let mut r = rng();
    let x = uniform(&mut r, -1.0, 1.0, 12);
    let y = uniform(&mut r, -1.0, 1.0, 8);
    let (xa, ya) = (f32a(&x, &[4, 3]), f32a(&y, &[4, 2]));

    // A registered struct with a static field.
    for act in ["tanh", "identity"] {
        let w = uniform(&mut r, -1.0, 1.0, 6);
        let b = uniform(&mut r, -0.5, 0.5, 2);
        let params = Mlp {
            w: f32a(&w, &[3, 2]),
            b: f32a(&b, &[2]),
            act: act.to_string(),
        };
        let (loss, g): (Array, Mlp) =
            value_and_grad(|p: Mlp| mlp_loss(&p, &xa, &ya))(params).unwrap();
        assert_eq!(g.act, act, "the static field comes back");
        assert_eq!(g.w.shape(), &[3, 2]);
        assert_eq!(g.b.shape(), &[2]);
        let tanh = act == "tanh";
        let reference = |p: &[Vec<f64>]| mlp_loss64(&p[0], &p[1], &x, &y, tanh);
        let l64 = reference(&[w.clone(), b.clone()]);
        check_close("mlp loss", &vals(&loss), &[l64], 1e-5, 1e-6);
        let want = fd_grads(&reference, &[w, b]);
        check_grad(&format!("∂loss/∂w ({act})"), &vals(&g.w), &want[0]);
        check_grad(&format!("∂loss/∂b ({act})"), &vals(&g.b), &want[1]);
    }

    // A Vec of (w, b) layers.
    let shapes = [vec![3, 4], vec![4], vec![4, 2], vec![2]];
    let p64: Vec<Vec<f64>> = shapes
        .iter()
        .map(|s| uniform(&mut r, -1.0, 1.0, s.iter().product()))
        .collect();
    let params: Vec<(Array, Array)> = vec![
        (f32a(&p64[0], &shapes[0]), f32a(&p64[1], &shapes[1])),
        (f32a(&p64[2], &shapes[2]), f32a(&p64[3], &shapes[3])),
    ];
    let g = grad(|p: Vec<(Array, Array)>| net_loss(&p, &xa, &ya))(params.clone()).unwrap();
    assert_eq!(g.len(), 2);
    let flat: Vec<&Array> = g.iter().flat_map(|(w, b)| [w, b]).collect();
    let want = fd_grads(&|p| net_loss64(p, &x, &y), &p64);
    for (k, (gk, s)) in flat.iter().zip(&shapes).enumerate() {
        assert_eq!(gk.shape(), s.as_slice(), "leaf {k}");
        check_grad(&format!("∂loss/∂leaf {k}"), &vals(gk), &want[k]);
    }

    // argnums over (params, x, y): only the params' gradient.
    let loss3 = |(p, x, y): (Vec<(Array, Array)>, Array, Array)| net_loss(&p, &x, &y);
    let gp = grad_argnums(loss3, Arg::<0>)((params.clone(), xa.clone(), ya.clone())).unwrap();
    assert_eq!(gp.len(), 2);
    for ((a, b), (c, d)) in gp.iter().zip(&g) {
        check_close("argnums 0 = grad", &vals(a), &vals(c), 1e-6, 1e-7);
        check_close("argnums 0 = grad", &vals(b), &vals(d), 1e-6, 1e-7);
    }
    // (Arg<0>, Arg<2>): a tuple of the params' and y's gradients.
    let (value, (gp2, gy)) = value_and_grad_argnums(loss3, (Arg::<0>, Arg::<2>))((
        params.clone(),
        xa.clone(),
        ya.clone(),
    ))
    .unwrap();
    check_close(
        "loss",
        &vals(&value),
        &[net_loss64(&p64, &x, &y)],
        1e-5,
        1e-6,
    );
    assert_eq!(gp2.len(), 2);
    check_close(
        "(0, 2)[0] = grad",
        &vals(&gp2[1].0),
        &vals(&g[1].0),
        1e-6,
        1e-7,
    );
    assert_eq!(gy.shape(), &[4, 2]);
    let want_y = fd_grads(&|v| net_loss64(&p64, &x, &v[0]), std::slice::from_ref(&y));
    check_grad("∂loss/∂y", &vals(&gy), &want_y[0]);

    // An integer leaf that is not differentiated: class labels in a cross-entropy.
    let labels = Array::from_slice(&[1i32, 0, 1, 1], &[4, 1]).unwrap();
    let xent = |(w, x, labels): (Array, Array, Array)| -> Result<Array> {
        let logits = np::matmul(&x, &w)?;
        let logp = np::subtract(&logits, np::logsumexp(&logits, Some(&[1]), true)?)?;
        np::negative(np::mean(
            np::take_along_axis(&logp, &labels, 1)?,
            None,
            false,
        )?)
    };
    let w = uniform(&mut r, -1.0, 1.0, 6);
    let gw = grad_argnums(xent, Arg::<0>)((f32a(&w, &[3, 2]), xa.clone(), labels)).unwrap();
    let lab = [1usize, 0, 1, 1];
    let reference = |p: &[Vec<f64>]| {
        let z = matmul64(&x, &p[0], 4, 3, 2);
        -(0..4)
            .map(|i| z[i * 2 + lab[i]] - (z[i * 2].exp() + z[i * 2 + 1].exp()).ln())
            .sum::<f64>()
            / 4.0
    };
    check_grad("∂xent/∂w", &vals(&gw), &fd_grads(&reference, &[w])[0]);
}

// ---------------------------------------------------------------- 8. composition

fn wavy(x: Array) -> Result<Array> {
    np::sum(np::multiply(np::sin(&x)?, np::square(&x)?)?, None, false)
}

#[test]
fn grad_composes_with_jit_and_vmap() {
    let mut r = rng();
    // jit(grad(f)) equals grad(f) and traces once for new values.
    let jf = jit(grad(wavy));
    for _ in 0..2 {
        let x = f32a(&uniform(&mut r, -3.0, 3.0, 6), &[6]);
        let got = jf.call(x.clone()).unwrap();
        let want = grad(wavy)(x.clone()).unwrap();
        check_close("jit(grad(f))", &vals(&got), &vals(&want), 1e-6, 1e-7);
        let xs = vals(&x);
        let exact: Vec<f64> = xs
            .iter()
            .map(|v| v.cos() * v * v + 2.0 * v * v.sin())
            .collect();
        check_grad("grad(f)", &vals(&want), &exact);
    }
    assert_eq!(jf.trace_count(), 1, "new values reuse the trace");

    // jit(value_and_grad) over a registered struct.
    let x = f32a(&uniform(&mut r, -1.0, 1.0, 12), &[4, 3]);
    let y = f32a(&uniform(&mut r, -1.0, 1.0, 8), &[4, 2]);
    let params = || Mlp {
        w: f32a(&[0.1, -0.2, 0.3, 0.4, -0.5, 0.6], &[3, 2]),
        b: f32a(&[0.05, -0.05], &[2]),
        act: "tanh".into(),
    };
    let vg = value_and_grad(|p: Mlp| mlp_loss(&p, &x, &y));
    let jvg = jit(&vg);
    let (v1, g1) = jvg.call(params()).unwrap();
    let (v0, g0) = vg(params()).unwrap();
    check_close(
        "jit(value_and_grad) value",
        &vals(&v1),
        &vals(&v0),
        1e-6,
        1e-7,
    );
    check_close(
        "jit(value_and_grad) ∂w",
        &vals(&g1.w),
        &vals(&g0.w),
        1e-6,
        1e-7,
    );
    check_close(
        "jit(value_and_grad) ∂b",
        &vals(&g1.b),
        &vals(&g0.b),
        1e-6,
        1e-7,
    );
    assert_eq!(g1.act, "tanh");

    // grad(jit(f)): the jitted function is traced inline.
    let jw = jit(wavy);
    let x = f32a(&uniform(&mut r, -3.0, 3.0, 6), &[6]);
    check_close(
        "grad(jit(f))",
        &vals(&grad(|x: Array| jw.call(x))(x.clone()).unwrap()),
        &vals(&grad(wavy)(x).unwrap()),
        1e-6,
        1e-7,
    );

    // vmap(grad(f)): per-example gradients equal a loop over the examples.
    let m = f32a(&uniform(&mut r, -1.0, 1.0, 6), &[2, 3]);
    let f = |x: Array| np::sum(np::tanh(np::matmul(&m, &x)?)?, None, false);
    let xs = f32a(&uniform(&mut r, -1.0, 1.0, 12), &[4, 3]);
    let batched = vmap(grad(f), 0, 0)(xs.clone()).unwrap();
    assert_eq!(batched.shape(), &[4, 3]);
    let b = vals(&batched);
    for i in 0..4 {
        let one = grad(f)(xs.slice(s![i, ..]).unwrap()).unwrap();
        check_close(
            &format!("vmap(grad) example {i}"),
            &b[i * 3..i * 3 + 3],
            &vals(&one),
            1e-5,
            1e-6,
        );
    }

    // Per-example gradients of a loss w.r.t. unmapped parameters.
    let w = uniform(&mut r, -1.0, 1.0, 3);
    let xs64 = uniform(&mut r, -1.0, 1.0, 15);
    let ys64 = uniform(&mut r, -1.0, 1.0, 5);
    let loss1 = |(w, x, y): (Array, Array, Array)| np::square(np::subtract(np::dot(&x, &w)?, &y)?);
    let per_example = vmap(grad_argnums(loss1, Arg::<0>), (Axes::Unmapped, 0, 0), 0)((
        f32a(&w, &[3]),
        f32a(&xs64, &[5, 3]),
        f32a(&ys64, &[5]),
    ))
    .unwrap();
    assert_eq!(per_example.shape(), &[5, 3]);
    let want: Vec<f64> = (0..15)
        .map(|k| {
            let i = k / 3;
            let e = dot64(&xs64[i * 3..i * 3 + 3], &w) - ys64[i];
            2.0 * e * xs64[k]
        })
        .collect();
    check_close(
        "per-example ∂loss/∂w",
        &vals(&per_example),
        &want,
        1e-5,
        1e-6,
    );

    // grad of a function that calls vmap inside, with the parameters passed through
    // in_axes and captured by the mapped closure.
    let xs = f32a(&xs64, &[5, 3]);
    let wa = f32a(&w, &[3]);
    let through_axes = grad(|w: Array| {
        let h = vmap(
            |(w, x): (Array, Array)| np::tanh(np::dot(&x, &w)?),
            (Axes::Unmapped, 0),
            0,
        )((w, xs.clone()))?;
        np::sum(np::square(&h)?, None, false)
    })(wa.clone())
    .unwrap();
    let captured = grad(|w: Array| {
        let h = vmap(|x: Array| np::tanh(np::dot(&x, &w)?), 0, 0)(xs.clone())?;
        np::sum(np::square(&h)?, None, false)
    })(wa.clone())
    .unwrap();
    let direct =
        grad(|w: Array| np::sum(np::square(np::tanh(np::matmul(&xs, &w)?)?)?, None, false))(wa)
            .unwrap();
    let reference = |p: &[Vec<f64>]| -> f64 {
        (0..5)
            .map(|i| dot64(&xs64[i * 3..i * 3 + 3], &p[0]).tanh().powi(2))
            .sum()
    };
    let want = fd_grads(&reference, std::slice::from_ref(&w));
    check_grad("grad(vmap) via in_axes", &vals(&through_axes), &want[0]);
    check_grad("grad(vmap) capturing", &vals(&captured), &want[0]);
    check_grad("grad without vmap", &vals(&direct), &want[0]);
}

// ---------------------------------------------------------------- 9. errors

fn vector_valued(x: Array) -> Result<Array> {
    np::sin(&x)
}

fn message(r: Result<impl std::fmt::Debug>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn misuse_is_an_error_and_integer_paths_have_zero_gradient() {
    let x = f32a(&[0.5, -1.0, 2.0], &[3]);

    // A non-scalar output names the function, the shape and grad.
    let e = message(grad(vector_valued)(x.clone()));
    for part in ["grad", "vector_valued", "(3,)", "f32[3]"] {
        assert!(e.contains(part), "`{part}` missing from: {e}");
    }
    let e = message(value_and_grad(vector_valued)(x.clone()));
    assert!(
        e.contains("value_and_grad") && e.contains("vector_valued"),
        "{e}"
    );
    // A non-floating scalar output.
    let e = message(grad(|x: Array| {
        np::sum(np::astype(&x, DType::Int32)?, None, false)
    })(x.clone()));
    assert!(e.contains("int32") || e.contains("floating"), "{e}");

    // An integer input is an error naming its dtype; a float one next to it is fine when
    // only that one is selected.
    let ints = Array::from_slice(&[1i32, 2, 3], &[3]).unwrap();
    let e =
        grad(|x: Array| np::sum(np::multiply(&x, 1.5)?, None, false))(ints.clone()).unwrap_err();
    assert!(matches!(e, Error::InvalidDType { .. }), "{e:?}");
    assert!(e.to_string().contains("int32"), "{e}");
    let mixed = |(x, n): (Array, Array)| np::sum(np::multiply(&x, &n)?, None, false);
    let e = message(grad(mixed)((x.clone(), ints.clone())));
    assert!(e.contains("int32"), "{e}");
    let gx = grad_argnums(mixed, Arg::<0>)((x.clone(), ints.clone())).unwrap();
    check_exact("∂(x n)/∂x", &gx, &[1.0, 2.0, 3.0]);

    // An error inside the function is returned, not a panic.
    let e = message(grad(|x: Array| {
        np::sum(np::add(&x, np::ones(&[4], DType::Float32)?)?, None, false)
    })(x.clone()));
    assert!(e.contains("add"), "{e}");

    // vjp: a cotangent of the wrong shape or dtype is an error; the right one still works.
    let (_, pullback) = vjp(|x: Array| np::sin(&x), x.clone()).unwrap();
    let e = message(pullback.call(np::ones(&[4], DType::Float32).unwrap()));
    assert!(e.contains("vjp") && e.contains("(4,)"), "{e}");
    message(pullback.call(np::ones(&[3, 1], DType::Float32).unwrap()));
    let e = message(pullback.call(np::ones(&[3], DType::Int32).unwrap()));
    assert!(e.contains("int32"), "{e}");
    let ct = pullback
        .call(np::ones(&[3], DType::Float32).unwrap())
        .unwrap();
    let want: Vec<f64> = [0.5f32, -1.0, 2.0]
        .iter()
        .map(|&v| f64::from(v.cos()))
        .collect();
    check_close("pullback(1)", &vals(&ct), &want, 1e-6, 1e-6);
    // A cotangent of the wrong structure.
    let (_, pb2) = vjp(
        |xs: Vec<Array>| Ok(vec![np::sin(&xs[0])?, np::cos(&xs[1])?]),
        vec![x.clone(), x.clone()],
    )
    .unwrap();
    message(pb2.call(vec![np::ones(&[3], DType::Float32).unwrap()]));

    // jvp: tangents must match the primals' structure, shapes and dtypes.
    let r: Result<(Array, Array)> = jvp(
        |x: Array| np::sin(&x),
        x.clone(),
        np::ones(&[4], DType::Float32).unwrap(),
    );
    let e = message(r);
    assert!(e.contains("jvp"), "{e}");
    let r: Result<(Array, Array)> = jvp(
        |x: Array| np::sin(&x),
        x.clone(),
        np::ones(&[3], DType::Float16).unwrap(),
    );
    message(r);
    let r: Result<(Array, Array)> = jvp(
        |xs: Vec<Array>| np::add(&xs[0], &xs[1]),
        vec![x.clone(), x.clone()],
        vec![x.clone()],
    );
    message(r);

    // Integer paths inside a function carry no gradient (and are no error).
    let xv = [0.5, -1.5, 2.25, 3.75, -0.25];
    let xa = f32a(&xv, &[5]);
    let g = grad(|x: Array| {
        let n = np::astype(np::astype(&x, DType::Int32)?, DType::Float32)?;
        np::sum(np::multiply(&x, &n)?, None, false)
    })(xa.clone())
    .unwrap();
    check_exact("∂(x · float(int(x)))", &g, &[0.0, -1.0, 2.0, 3.0, 0.0]);
    let g = grad(|x: Array| {
        let order = np::astype(np::argsort(&x, None)?, DType::Float32)?;
        np::sum(np::multiply(&x, &order)?, None, false)
    })(xa.clone())
    .unwrap();
    // argsort of [0.5, -1.5, 2.25, 3.75, -0.25] is [1, 4, 0, 2, 3].
    check_exact("∂(x · argsort(x))", &g, &[1.0, 4.0, 0.0, 2.0, 3.0]);
    let g = grad(|x: Array| {
        let pos = np::astype(np::greater(&x, 0.0)?, DType::Float32)?;
        let top = np::astype(np::argmax(&x, None, false)?, DType::Float32)?;
        np::add(np::sum(&pos, None, false)?, &top)
    })(xa.clone())
    .unwrap();
    check_exact("∂(count(x > 0) + argmax(x))", &g, &[0.0; 5]);

    // A multiplying scatter is not differentiable (JAX raises for non-unique indices): an
    // error naming it, not a panic.
    let e = message(grad(|x: Array| {
        np::sum(
            np::ones(&[4], DType::Float32)?.at([0, 2, 0]).multiply(&x)?,
            None,
            false,
        )
    })(xa.slice(s![..3]).unwrap()));
    assert!(
        e.contains("scatter") && e.contains("not differentiable"),
        "{e}"
    );
    // With respect to the base it is, as in JAX: the tangent times the factors applied
    // (`jax.grad(lambda x: jnp.sum(x.at[jnp.array([0, 2, 0, 7])].multiply(-0.5) ** 2))`
    // at [1, 2, 3, 4] is [0.125, 4, 1.5, 8]; position 7 is dropped).
    let g = grad(|x: Array| {
        let y = x.at([0, 2, 0, 7]).multiply(-0.5)?;
        np::sum(np::square(&y)?, None, false)
    })(Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap())
    .unwrap();
    check_exact(
        "∂ sum(x.at[0, 2, 0, 7].multiply(-0.5)²)",
        &g,
        &[0.125, 4.0, 1.5, 8.0],
    );
    // With no positions nothing depends on the updates: an empty gradient, as JAX's.
    let g = grad(|u: Array| {
        let y = np::ones(&[4], DType::Float32)?
            .at(Vec::<i32>::new())
            .multiply(&u)?;
        np::sum(y, None, false)
    })(np::zeros(&[0], DType::Float32).unwrap())
    .unwrap();
    assert_eq!(g.shape(), &[0]);
}

/// A scatter's maximum or minimum shares each position's tangent among its tied winners,
/// the base's included where it is kept, and gives none where the result is NaN: JAX
/// 0.10.2's `_scatter_extremal_jvp`. Values from `jax.grad(lambda x, u: jnp.sum(w *
/// x.at[idx].max(u)), argnums=(0, 1))` (and `min`) at the arrays below, eager and jitted.
#[test]
fn scatter_extrema_share_tied_tangents_as_jax_does() {
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, f32::NAN], &[4]).unwrap();
    let u = Array::from_slice(&[1.0f32, 1.0, 0.5, 2.0, 7.0], &[5]).unwrap();
    let w = Array::from_slice(&[1.0f32, 10.0, 100.0, 1000.0], &[4]).unwrap();
    let third = f64::from(1.0f32 / 3.0);
    // Position 0: the base and two updates tie, a third each (the base's share is
    // 1 - 2/3 in float32); 1: the base wins (max) or the update (min); 3: NaN; 5: dropped.
    let kept = f64::from(0.33333337f32);
    let cases = [
        (
            true,
            [kept, 10.0, 100.0, 0.0],
            [third, third, 0.0, 0.0, 0.0],
        ),
        (
            false,
            [kept, 0.0, 100.0, 0.0],
            [third, third, 10.0, 0.0, 0.0],
        ),
    ];
    for (max, dx, du) in cases {
        let w = w.clone();
        let f = move |(x, u): (Array, Array)| {
            let at = x.at([0, 0, 1, 3, 5]);
            let y = if max { at.max(&u)? } else { at.min(&u)? };
            np::sum(np::multiply(&w, &y)?, None, false)
        };
        let g = grad(f.clone())((x.clone(), u.clone())).unwrap();
        let gj = olympus::jit(move |xu: (Array, Array)| grad(f.clone())(xu))
            .call((x.clone(), u.clone()))
            .unwrap();
        for (mode, (gx, gu)) in [("eager", g), ("jit", gj)] {
            let what = format!("{} ({mode})", if max { "max" } else { "min" });
            check_close(&what, &vals(&gx), &dx, 1e-7, 0.0);
            check_close(&what, &vals(&gu), &du, 1e-7, 0.0);
        }
    }
}

// ---------------------------------------------------------------- 10. float16

#[test]
fn float16_gradients_stay_float16() {
    let xv = [0.5, -1.25, 3.0, 100.0, -0.0078125];
    let x = make(&xv, &[5], DType::Float16);
    let g = grad(|x: Array| np::sum(np::multiply(&x, &x)?, None, false))(x.clone()).unwrap();
    assert_eq!(g.dtype(), DType::Float16);
    assert_eq!(g.shape(), &[5]);
    let want: Vec<f64> = xv.iter().map(|v| 2.0 * v).collect();
    check_exact("d(x²)/dx in float16", &g, &want);
    // A weak scalar keeps float16.
    let g = grad(|x: Array| np::sum(np::multiply(&x, 3.0)?, None, false))(x.clone()).unwrap();
    assert_eq!(g.dtype(), DType::Float16);
    check_exact("d(3x)/dx in float16", &g, &[3.0; 5]);
    // A transcendental: within one float16 ulp of the f64 derivative.
    let g = grad(|x: Array| np::sum(np::sin(&x)?, None, false))(x).unwrap();
    assert_eq!(g.dtype(), DType::Float16);
    for (got, &v) in vals(&g).iter().zip(&xv) {
        let want = f64::cos(v);
        let ulp = f64::from(f16::EPSILON) * want.abs().max(f64::from(f16::MIN_POSITIVE));
        assert!(
            (got - want).abs() <= ulp,
            "cos({v}) in float16: got {got}, want {want}"
        );
    }
}

/// The elementwise functions whose derivatives `gen_grad_specials.py` takes, by JAX's
/// names.
#[allow(clippy::type_complexity)]
fn special_functions() -> (
    Vec<(&'static str, fn(&Array) -> Result<Array>)>,
    Vec<(&'static str, fn(&Array, &Array) -> Result<Array>)>,
) {
    type Unary = fn(&Array) -> Result<Array>;
    type Binary = fn(&Array, &Array) -> Result<Array>;
    let unary: Vec<(&'static str, Unary)> = vec![
        ("abs", |x| np::abs(x)),
        ("sqrt", |x| np::sqrt(x)),
        ("cbrt", |x| np::cbrt(x)),
        ("exp", |x| np::exp(x)),
        ("exp2", |x| np::exp2(x)),
        ("expm1", |x| np::expm1(x)),
        ("log", |x| np::log(x)),
        ("log2", |x| np::log2(x)),
        ("log10", |x| np::log10(x)),
        ("log1p", |x| np::log1p(x)),
        ("sin", |x| np::sin(x)),
        ("cos", |x| np::cos(x)),
        ("tan", |x| np::tan(x)),
        ("arcsin", |x| np::arcsin(x)),
        ("arccos", |x| np::arccos(x)),
        ("arctan", |x| np::arctan(x)),
        ("sinh", |x| np::sinh(x)),
        ("cosh", |x| np::cosh(x)),
        ("tanh", |x| np::tanh(x)),
        ("arcsinh", |x| np::arcsinh(x)),
        ("arccosh", |x| np::arccosh(x)),
        ("arctanh", |x| np::arctanh(x)),
        ("square", |x| np::square(x)),
        ("reciprocal", |x| np::reciprocal(x)),
        ("sign", |x| np::sign(x)),
        ("floor", |x| np::floor(x)),
        ("ceil", |x| np::ceil(x)),
        ("negative", |x| np::negative(x)),
    ];
    let binary: Vec<(&'static str, Binary)> = vec![
        ("add", |x, y| np::add(x, y)),
        ("subtract", |x, y| np::subtract(x, y)),
        ("multiply", |x, y| np::multiply(x, y)),
        ("divide", |x, y| np::divide(x, y)),
        ("maximum", |x, y| np::maximum(x, y)),
        ("minimum", |x, y| np::minimum(x, y)),
        ("fmax", |x, y| np::fmax(x, y)),
        ("fmin", |x, y| np::fmin(x, y)),
        ("power", |x, y| np::power(x, y)),
        ("arctan2", |x, y| np::arctan2(x, y)),
        ("hypot", |x, y| np::hypot(x, y)),
        ("copysign", |x, y| np::copysign(x, y)),
        ("fmod", |x, y| np::fmod(x, y)),
        ("remainder", |x, y| np::remainder(x, y)),
        ("logaddexp", |x, y| np::logaddexp(x, y)),
        ("logaddexp2", |x, y| np::logaddexp2(x, y)),
        ("float_power", |x, y| np::float_power(x, y)),
    ];
    (unary, binary)
}

/// The special functions whose first derivatives are built from correctly rounded
/// operations alone (arithmetic and selects; not `sqrt`'s `0.5 / sqrt(x)`, which XLA
/// rewrites as a product by its `rsqrt`).
const EXACT_FIRST_DERIVATIVES: [&str; 20] = [
    "abs",
    "square",
    "reciprocal",
    "sign",
    "floor",
    "ceil",
    "negative",
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "hypot",
    "copysign",
    "remainder",
    "fmod",
    "arctan2",
];

/// The points `gen_grad_specials.py` differentiates at.
const SPECIAL_POINTS: [f32; 13] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1e-30,
    3e38,
];

/// JAX's and Olympus's derivatives agree: up to float32 rounding of differently ordered
/// formulas (`rel` of the larger), NaN for NaN, the same infinities and signed zeros.
fn derivatives_agree(g: f32, w: f32, rel: f32) -> bool {
    if g.is_nan() || w.is_nan() {
        g.is_nan() && w.is_nan()
    } else if g.is_infinite() || w.is_infinite() {
        g == w
    } else if g == 0.0 && w == 0.0 {
        g.is_sign_negative() == w.is_sign_negative()
    } else {
        // (XLA:CPU flushes subnormal results to zero: JAX's 0 may be a subnormal here.)
        (g - w).abs() <= rel * w.abs().max(g.abs()) || (w == 0.0 && g.abs() < f32::MIN_POSITIVE)
    }
}

/// Which derivatives a file of `gen_grad_specials.py` holds.
#[derive(Clone, Copy)]
enum Taken {
    /// `grad`: per function d/dx (then d/dy).
    Grad,
    /// `grad` of `grad`: d2/dx2 (then d2/dxdy, d2/dy2).
    Grad2,
    /// `jvp` with unit tangents: d/dx, then d2/dx2 (jvp of jvp); for a binary function
    /// d/dx and d/dy (the other operand held), the tangent of both, then d2/dx2, d2/dxdy
    /// and d2/dy2.
    Jvp,
}

/// `d f / d x_k` at `x` by forward mode, the other operands held (closed over, so their
/// tangents are JAX's symbolic zeros, not zero arrays).
fn jvp_by<F>(f: F, x: &[Array], k: usize) -> Result<Array>
where
    F: Fn(&[Array]) -> Result<Array>,
{
    let held = x.to_vec();
    let ones = np::ones_like(&x[k])?;
    let g = move |a: Array| {
        let mut v = held.clone();
        v[k] = a;
        f(&v)
    };
    Ok(jvp(g, x[k].clone(), ones)?.1)
}

/// The derivatives of the special functions at the special points and pairs that differ
/// from `text`'s (a file of `gen_grad_specials.py`, holding the derivatives `taken`: per
/// function JAX's values, part after part), one line each.
fn special_point_differences(text: &str, taken: Taken) -> Vec<String> {
    let (unary, binary) = special_functions();
    let points = SPECIAL_POINTS;
    let n = points.len();
    let xs: Vec<f32> = points.iter().flat_map(|&x| [x; 13]).collect();
    let ys: Vec<f32> = (0..n).flat_map(|_| points).collect();
    let array = |v: &[f32]| Array::from_slice(v, &[v.len()]).unwrap();
    let (unary_labels, labels): (&[&str], &[&str]) = match taken {
        Taken::Grad => (&["d/dx"], &["d/dx", "d/dy"]),
        Taken::Grad2 => (&["d2/dx2"], &["d2/dx2", "d2/dxdy", "d2/dy2"]),
        Taken::Jvp => (
            &["d/dx", "d2/dx2"],
            &["d/dx", "d/dy", "d/dx + d/dy", "d2/dx2", "d2/dxdy", "d2/dy2"],
        ),
    };
    let (mut checked, mut wrong) = (0, vec![]);
    for line in text.lines() {
        let (head, words) = line.split_once(" | ").unwrap();
        let want: Vec<f32> = words
            .split(' ')
            .map(|w| f32::from_bits(u32::from_str_radix(w, 16).unwrap()))
            .collect();
        let (kind, name) = head.split_once(' ').unwrap();
        let parts: Vec<Array> = if kind == "unary" {
            let f = unary.iter().find(|(m, _)| *m == name).unwrap().1;
            let df = move |x: Array| grad(move |x: Array| np::sum(f(&x)?, None, false))(x);
            match taken {
                Taken::Grad => vec![df(array(&points)).unwrap()],
                Taken::Grad2 => {
                    vec![
                        grad(move |x: Array| np::sum(df(x)?, None, false))(array(&points)).unwrap(),
                    ]
                }
                Taken::Jvp => {
                    let d = move |x: &[Array]| jvp_by(|x: &[Array]| f(&x[0]), x, 0);
                    let x = [array(&points)];
                    vec![d(&x).unwrap(), jvp_by(d, &x, 0).unwrap()]
                }
            }
        } else {
            let f = binary.iter().find(|(m, _)| *m == name).unwrap().1;
            let d = move |v: Vec<Array>| {
                grad(move |v: Vec<Array>| np::sum(f(&v[0], &v[1])?, None, false))(v)
            };
            let xy = || vec![array(&xs), array(&ys)];
            match taken {
                Taken::Grad => d(xy()).unwrap(),
                Taken::Grad2 => {
                    // The first derivatives by each operand, then theirs.
                    let by = |k: usize| {
                        grad(move |v: Vec<Array>| np::sum(&d(v)?[k], None, false))(xy()).unwrap()
                    };
                    let (dx, dy) = (by(0), by(1));
                    vec![dx[0].clone(), dx[1].clone(), dy[1].clone()]
                }
                Taken::Jvp => {
                    let fv = move |v: &[Array]| f(&v[0], &v[1]);
                    let dx = move |v: &[Array]| jvp_by(fv, v, 0);
                    let dy = move |v: &[Array]| jvp_by(fv, v, 1);
                    let v = xy();
                    let ones = vec![np::ones_like(&v[0]).unwrap(); 2];
                    let both = jvp(|v: Vec<Array>| fv(&v), v.clone(), ones).unwrap().1;
                    vec![
                        dx(&v).unwrap(),
                        dy(&v).unwrap(),
                        both,
                        jvp_by(dx, &v, 0).unwrap(),
                        jvp_by(dx, &v, 1).unwrap(),
                        jvp_by(dy, &v, 1).unwrap(),
                    ]
                }
            }
        };
        let got: Vec<f32> = parts
            .iter()
            .flat_map(|p| p.to_vec::<f32>().unwrap())
            .collect();
        let (labels, len) = match kind {
            "unary" => (unary_labels, n),
            _ => (labels, xs.len()),
        };
        let at = |i: usize| match kind {
            "unary" => format!("{} at {}", labels[i / len], points[i % len]),
            _ => {
                let j = i % len;
                format!("{} at ({}, {})", labels[i / len], xs[j], ys[j])
            }
        };
        assert_eq!(got.len(), want.len(), "{name}");
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            let label = labels[i / len];
            let pair = (kind != "unary").then(|| (xs[i % len], ys[i % len]));
            // XLA:CPU flushes subnormal intermediates to zero, where Olympus keeps them:
            // 3e38^-1 before multiplying it by log(3e38) (the y-derivatives of 3e38^y at y =
            // -1), and in `hypot`'s forward mode the quotient `m / M` and its tangent for M
            // = 3e38: the sign of a zero in the derivative by a negative operand beside
            // 3e38, and 1/sqrt(2) + 1/sqrt(8) for 1/sqrt(2) at (3e38, 3e38).
            let flushed = match name {
                "power" | "float_power" => {
                    (label.ends_with("/dy") || label.ends_with("/dy2"))
                        && pair == Some((3e38, -1.0))
                }
                "hypot" => {
                    const BIG: f32 = 3e38;
                    matches!(taken, Taken::Jvp)
                        && match (label, pair) {
                            (_, Some((BIG, BIG))) => !label.starts_with("d2"),
                            ("d/dx", Some((x, BIG))) | ("d/dy", Some((BIG, x))) => {
                                [-1.0, -0.5, -2.0].contains(&x)
                            }
                            _ => false,
                        }
                }
                _ => false,
            };
            // First derivatives of functions whose rules use only correctly rounded
            // operations are JAX's to the bit; others' use Olympus's own transcendentals,
            // within an ulp or two of XLA's.
            let tol = if label.starts_with("d2") {
                2e-6
            } else if EXACT_FIRST_DERIVATIVES.contains(&name) {
                0.0
            } else {
                4e-7
            };
            if !derivatives_agree(g, w, tol) && !flushed {
                wrong.push(format!("{name} {}: {g}, JAX {w}", at(i)));
            }
        }
        checked += 1;
    }
    assert_eq!(checked, unary.len() + binary.len());
    wrong
}

/// Derivatives of the elementwise functions at ±0, ±1, ±0.5, ±2, ±inf, NaN, 1e-30 and 3e38
/// (and every pair of them) are JAX 0.10.2's, up to float32 rounding: the conventions
/// where the derivative is not defined (JAX's `abs'(0) = 1`, the balanced `maximum`),
/// and NaN and infinities where the formulas give them. Values from `python3
/// tests/data/gen_grad_specials.py`.
#[test]
fn derivatives_at_special_points_are_jaxs() {
    let wrong = special_point_differences(include_str!("../data/grad_specials.txt"), Taken::Grad);
    assert!(
        wrong.is_empty(),
        "{} derivatives differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Second derivatives (`grad` of `grad`) of the same functions at the same points (and
/// pairs: d2/dx2, d2/dxdy, d2/dy2) are JAX 0.10.2's: the rules' derivatives are JAX's
/// rules (0, not NaN, where JAX's `integer_pow` meets an infinity). Values from
/// `python3 tests/data/gen_grad_specials.py`.
#[test]
fn second_derivatives_at_special_points_are_jaxs() {
    let wrong =
        special_point_differences(include_str!("../data/grad_specials_2.txt"), Taken::Grad2);
    assert!(
        wrong.is_empty(),
        "{} second derivatives differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Forward-mode derivatives (`jvp`, and `jvp` of `jvp`) of the same functions at the same
/// points are JAX 0.10.2's, which differ from its `grad` where JAX's function is a
/// composite (`hypot` is 0 with an infinite operand by `jvp` and NaN by `grad`) or a
/// custom rule (`logaddexp`'s rule meets zero tangents). Values from `python3
/// tests/data/gen_grad_specials.py`.
#[test]
fn forward_derivatives_at_special_points_are_jaxs() {
    let wrong = special_point_differences(include_str!("../data/jvp_specials.txt"), Taken::Jvp);
    assert!(
        wrong.is_empty(),
        "{} forward derivatives differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Where JAX's forward and reverse modes differ at a point, `jvp` and `linearize`'s map
/// are forward mode and `grad` and `vjp` reverse mode, as in JAX: d/dx `logaddexp(x,
/// 3e38)` at x = inf is NaN forward (its custom rule multiplies the other operand's zero
/// tangent by `exp(inf)`) and 1 in reverse; the gradient of `remainder(x, 3) * -0.0` is
/// +0 (JAX's `remainder` selects between two branches, whose cotangents are summed) where
/// `fmod`'s is -0. Values from JAX 0.10.2.
#[test]
fn forward_and_reverse_modes_differ_where_jaxs_do() {
    let big = Array::from_slice(&[3e38f32], &[1]).unwrap();
    let f = move |x: Array| np::logaddexp(&x, &big);
    let x = || Array::from_slice(&[f32::INFINITY], &[1]).unwrap();
    let one = || Array::from_slice(&[1.0f32], &[1]).unwrap();
    let forward = jvp(f.clone(), x(), one()).unwrap().1;
    let (_, lin) = olympus::linearize(f.clone(), x()).unwrap();
    let linearized = lin.call(one()).unwrap();
    let (_, back) = vjp(f.clone(), x()).unwrap();
    let reverse = back.call(one()).unwrap();
    let g = grad(move |x: Array| np::sum(f(x)?, None, false))(x()).unwrap();
    for (mode, got, want) in [
        ("jvp", forward, f32::NAN),
        ("linearize", linearized, f32::NAN),
        ("vjp", reverse, 1.0),
        ("grad", g, 1.0),
    ] {
        let got = got.to_vec::<f32>().unwrap()[0];
        assert!(
            got == want || got.is_nan() && want.is_nan(),
            "{mode} of logaddexp at (inf, 3e38): {got}, JAX {want}"
        );
    }
    let sign = |f: fn(&Array, f32) -> Result<Array>| {
        let g =
            grad(move |x: Array| np::multiply(f(&x, 3.0)?, -0.0))(Array::scalar(1.0f32).unwrap())
                .unwrap()
                .to_vec::<f32>()
                .unwrap()[0];
        assert_eq!(g, 0.0);
        g.is_sign_negative()
    };
    assert!(!sign(|x, y| np::remainder(x, y)), "remainder: JAX gives +0");
    assert!(sign(|x, y| np::fmod(x, y)), "fmod: JAX gives -0");
}

/// Gradients and Hessian-vector products of reductions, scans, sorts and order
/// statistics along the rows of a matrix whose rows hold the special cases (zeros of both
/// signs, ties, NaN, ±inf, tiny and huge values, a constant row) are JAX 0.10.2's. Values
/// from `python3 tests/data/gen_reduction_specials.py`.
#[test]
fn reduction_derivatives_at_special_rows_are_jaxs() {
    type F = fn(&Array) -> Result<Array>;
    let funcs: Vec<(&str, F)> = vec![
        ("sum", |x| np::sum(x, Some(&[1]), false)),
        ("mean", |x| np::mean(x, Some(&[1]), false)),
        ("prod", |x| np::prod(x, Some(&[1]), false)),
        ("max", |x| np::max(x, Some(&[1]), false)),
        ("min", |x| np::min(x, Some(&[1]), false)),
        ("var", |x| np::var(x, Some(&[1]), 0, false)),
        ("std", |x| np::std(x, Some(&[1]), 0, false)),
        ("logsumexp", |x| np::logsumexp(x, Some(&[1]), false)),
        ("cumsum", |x| np::cumsum(x, Some(1))),
        ("cumprod", |x| np::cumprod(x, Some(1))),
        ("sort", |x| np::sort(x, Some(1))),
        ("median", |x| np::median(x, Some(&[1]), false)),
        ("quantile", |x| {
            np::quantile(x, 0.3, Some(&[1]), np::QuantileMethod::Linear, false)
        }),
        ("nanmax", |x| np::nanmax(x, Some(&[1]), false)),
        ("nansum", |x| np::nansum(x, Some(&[1]), false)),
        ("nanmean", |x| np::nanmean(x, Some(&[1]), false)),
        ("norm", |x| {
            np::sqrt(np::sum(np::multiply(x, x)?, Some(&[1]), false)?)
        }),
        ("softmax", |x| {
            np::exp(np::subtract(x, np::logsumexp(x, Some(&[1]), true)?)?)
        }),
        ("ptp", |x| np::ptp(x, Some(&[1]), false)),
        ("cumprod_reverse", |x| olympus::lax::cumprod(x, 1, true)),
        ("prod_columns", |x| {
            np::prod(x.slice(olympus::s![8..12])?, Some(&[0]), false)
        }),
        ("prod_all", |x| {
            np::prod(x.slice(olympus::s![9..12])?, Some(&[0, 1]), false)
        }),
        ("cumprod_columns", |x| {
            np::cumprod(x.slice(olympus::s![8..12])?, Some(0))
        }),
    ];
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    #[rustfmt::skip]
    let rows: [[f32; 6]; 14] = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [-0.0, 0.0, -0.0, 0.0, 1.0, -1.0],
        [1.0, 3.0, 3.0, -2.0, 3.0, 0.5],
        [1.0, nan, 2.0, -1.0, 0.5, 2.0],
        [1.0, inf, 2.0, -1.0, 0.5, 2.0],
        [1.0, -inf, 2.0, -1.0, 0.5, 2.0],
        [inf, inf, 1.0, 2.0, 0.0, -1.0],
        [-inf; 6],
        [0.0, inf, 1.0, 2.0, 3.0, 4.0],
        [1e-30, -1e-30, 2e-30, 1e-30, 0.0, 0.0],
        [3e38, 3e38, -3e38, 1.0, 2.0, 3.0],
        [0.5, -1.5, 2.25, 3.0, -0.75, 1.0],
        [2.0; 6],
        [nan; 6],
    ];
    let flat: Vec<f32> = rows.iter().flatten().copied().collect();
    let x = Array::from_slice(&flat, &[14, 6]).unwrap();
    let weights: Vec<f32> = (0..256).map(|i| (i as f64 * 1.3).cos() as f32).collect();
    let dir: Vec<f32> = (0..flat.len())
        .map(|i| (i as f64 * 0.7 + 0.3).sin() as f32)
        .collect();
    let v = Array::from_slice(&dir, &[14, 6]).unwrap();
    let text = include_str!("../data/reduction_specials.txt");
    let mut wrong = vec![];
    for (name, f) in &funcs {
        let f = *f;
        let weights = weights.clone();
        let loss = move |x: Array| -> Result<Array> {
            let y = f(&x)?;
            let w = Array::from_slice(&weights[..y.size()], y.shape())?;
            np::sum(np::multiply(y, w)?, None, false)
        };
        let g = grad(loss.clone())(x.clone()).unwrap();
        let gl = loss.clone();
        let h = jvp(move |x: Array| grad(gl.clone())(x), x.clone(), v.clone())
            .unwrap()
            .1;
        let (out, tangent) = jvp(move |x: Array| f(&x), x.clone(), v.clone()).unwrap();
        let flat = |a: &Array| np::ravel(a).unwrap();
        let both = np::concatenate([flat(&out), flat(&tangent)], 0).unwrap();
        for (kind, got) in [("grad", g), ("hvp", h), ("jvp", both)] {
            // JAX's jitted values, and its eager ones where they differ (XLA selects
            // where it could multiply by a mask: a row maximum's gradient beside a NaN).
            let wants: Vec<Vec<f32>> =
                [format!("{name} {kind} |"), format!("{name} {kind} eager |")]
                    .iter()
                    .filter_map(|head| text.lines().find(|l| l.starts_with(head.as_str())))
                    .map(|line| {
                        line.split_once(" | ")
                            .unwrap()
                            .1
                            .split(' ')
                            .map(|w| f32::from_bits(u32::from_str_radix(w, 16).unwrap()))
                            .collect()
                    })
                    .collect();
            assert!(!wants.is_empty(), "no {name} {kind} line");
            let got = got.to_vec::<f32>().unwrap();
            let mismatch = |want: &[f32]| {
                let finite: Vec<f32> = want
                    .iter()
                    .map(|w| w.abs())
                    .filter(|w| w.is_finite())
                    .collect();
                let scale = finite.iter().sum::<f32>() / finite.len().max(1) as f32;
                got.iter().zip(want).position(|(&g, &w)| {
                    !(if g.is_nan() || w.is_nan() {
                        g.is_nan() && w.is_nan()
                    } else if g.is_infinite() || w.is_infinite() {
                        g == w
                    } else {
                        // (Signs of zeros are not compared: XLA's simplifier rewrites
                        // `reduce_sum(neg(x))` as `neg(reduce_sum(x))` inside jnp.var's
                        // own jit, so a gradient of +0 comes out -0 there.)
                        (g - w).abs() <= 1e-5 * (w.abs() + scale) + 1e-36
                    })
                })
            };
            if wants.iter().all(|w| mismatch(w).is_some()) {
                for (i, (&g, &w)) in got.iter().zip(&wants[0]).enumerate() {
                    if mismatch(&wants[0]) == Some(i) || !(g.is_nan() && w.is_nan() || g == w) {
                        wrong.push(format!(
                            "{name} {kind} row {} col {}: {g}, JAX {w}",
                            i / 6,
                            i % 6
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A set case: a function of `(a, b)` whose output's weighted sum is differentiated.
type SetCase = (&'static str, fn(&Array, &Array) -> Result<Array>);

/// The set cases of `tests/data/gen_concrete_grads.py`, by its names.
const READ_VALUES: &[SetCase] = &[
    ("unique", |x, _| np::unique(x, None, None)),
    ("union1d", |x, y| np::union1d(x, y, None, None)),
    ("intersect1d", |x, y| {
        np::intersect1d(x, y, false, None, None)
    }),
    ("intersect1d_assume_unique", |x, y| {
        let c = np::multiply(np::array([3.0f32, 1.0, 2.0])?, x.slice(olympus::s![0])?)?;
        np::intersect1d(np::divide(c, 3.0)?, y, true, None, None)
    }),
    ("setdiff1d", |x, y| np::setdiff1d(x, y, false, None, None)),
    ("setdiff1d_assume_unique", |x, y| {
        np::setdiff1d(x, y, true, None, None)
    }),
    ("setxor1d", |x, y| np::setxor1d(x, y, false, None, None)),
    ("unique_size", |x, _| np::unique(x, Some(4), Some(0.0))),
    ("mask", |x, _| np::extract(np::greater(x, 1.5)?, x)),
    ("compress", |x, _| {
        np::compress(np::greater(x, 1.5)?, x, None)
    }),
    ("repeat", |x, _| np::repeat(x, [1usize, 0, 2, 1], None)),
    ("trim_zeros", |x, _| {
        let z = |n| np::zeros(&[n], DType::Float32);
        np::trim_zeros(np::concatenate([z(1)?, x.clone(), z(2)?], 0)?, "fb")
    }),
    ("unique_values", |x, _| np::unique_values(x, None, None)),
    ("unique_inverse", |x, _| {
        Ok(np::unique_inverse(x, None, None)?.0)
    }),
    ("unique_counts", |x, _| {
        Ok(np::unique_counts(x, None, None)?.0)
    }),
    ("unique_all", |x, _| {
        Ok(np::unique_all(x, None, None)?.values)
    }),
    ("unique_rows", |x, _| {
        let rows = np::transpose(
            np::stack([x.clone(), np::add(np::multiply(x, 0.0)?, 1.0)?], 0)?,
            None,
        )?;
        let opts = np::UniqueOptions {
            axis: Some(0),
            ..Default::default()
        };
        np::reshape(np::unique_with(rows, opts)?.values, &[-1])
    }),
];

/// `3x²` below 3, else `-4x`: JAX's example of Python control flow under `grad`.
fn branch(x: Array) -> Result<Array> {
    if x.item::<f32>()? < 3.0 {
        np::multiply(np::power(&x, 2.0)?, 3.0)
    } else {
        np::multiply(&x, -4.0)
    }
}

/// Doubles `x` until its sum reaches 10 (a loop whose count depends on the values), then
/// sums its squares.
fn doubling(x: Array) -> Result<Array> {
    let mut x = x;
    while np::sum(&x, None, false)?.item::<f32>()? < 10.0 {
        x = np::multiply(&x, 2.0)?;
    }
    np::sum(np::square(&x)?, None, false)
}

/// `sum(x * s)` with `s = sum(x)` read as a number (a constant to the derivative).
fn scaled(x: Array) -> Result<Array> {
    let s = np::sum(&x, None, false)?.item::<f32>()?;
    np::sum(np::multiply(&x, s)?, None, false)
}

/// Functions that read their traced values inside `grad`, `value_and_grad` and `jvp`
/// (branches and loops on `item`, boolean masks, `repeat`, `trim_zeros`), as eager JAX
/// runs them on tracers that carry their data; `unique` and the set operations without
/// `size` give constants there (JAX's `concrete_or_error`), so no derivative; a value read
/// is the value differentiated and returned (`prod`'s product tree, custom rules' outputs).
/// Bit for bit against JAX (`tests/data/gen_concrete_grads.py`). Under `jit`, and inside a
/// jitted function `grad` calls, the same reads are errors, as in JAX; an out-of-range
/// index with `IndexMode::Raise` raises under `grad` as it does eagerly.
#[test]
fn functions_that_read_their_values_differentiate_as_jax() {
    let want: std::collections::HashMap<String, Vec<Vec<u32>>> =
        include_str!("../data/concrete_grads.txt")
            .lines()
            .map(|l| {
                let (name, outs) = l.split_once(" | ").expect("name | outputs");
                let outs = outs
                    .split(" ; ")
                    .map(|o| {
                        o.split(' ')
                            .map(|w| u32::from_str_radix(w, 16).unwrap())
                            .collect()
                    })
                    .collect();
                (name.to_string(), outs)
            })
            .collect();
    let words = |a: &Array| -> Vec<u32> {
        a.to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|f| f.to_bits())
            .collect()
    };
    let check = |name: &str, got: Vec<Vec<u32>>| {
        assert_eq!(Some(&got), want.get(name), "{name}: Olympus, then JAX");
    };
    let a = np::array([3.0f32, 1.0, 1.0, 2.0]).unwrap();
    let b = np::array([2.0f32, 5.0, 3.0]).unwrap();
    for &(name, f) in READ_VALUES {
        let loss = move |(x, y): (Array, Array)| -> Result<Array> {
            let o = f(&x, &y)?;
            let w = np::arange((1.0, o.size() as f64 + 1.0, 1.0))?;
            np::sum(np::multiply(o, w)?, None, false)
        };
        let (ga, gb) = olympus::grad_argnums(loss, (Arg::<0>, Arg::<1>))((a.clone(), b.clone()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        check(name, vec![words(&ga), words(&gb)]);
    }
    for v in [2.0f32, 4.0] {
        let x = Array::scalar(v).unwrap();
        let g = olympus::grad(branch)(x.clone()).unwrap();
        let gg = olympus::grad(olympus::grad(branch))(x.clone()).unwrap();
        let (y, t) = olympus::jvp(branch, x, Array::scalar(0.5f32).unwrap()).unwrap();
        let outs = [g, gg, y, t].iter().map(words).collect();
        check(&format!("branch at {v}"), outs);
    }
    let (v, g) = olympus::value_and_grad(doubling)(a.clone()).unwrap();
    check("doubling", vec![words(&v), words(&g)]);
    let g = olympus::grad(scaled)(a.clone()).unwrap();
    let t = np::take(&b, np::array([0, 1, 2, 0]).unwrap(), None).unwrap();
    let (y, dy) = olympus::jvp(scaled, a.clone(), t).unwrap();
    check("scaled", vec![words(&g), words(&y), words(&dy)]);
    // What a function reads is what is differentiated and returned: `prod` by its product
    // tree, custom rules' outputs by the rules.
    let read = std::cell::Cell::new(0.0f32);
    let p7 = np::array([0.91f32, 1.05, 0.53, 1.25, 1.04, 0.83, 1.29]).unwrap();
    let (v, g) = value_and_grad(|x: Array| -> Result<Array> {
        let p = np::prod(&x, None, false)?;
        read.set(p.item::<f32>()?);
        Ok(p)
    })(p7)
    .unwrap();
    let r = Array::scalar(read.get()).unwrap();
    check("reading prod", vec![words(&r), words(&v), words(&g)]);
    let triple = olympus::custom_vjp(
        |x: Array| np::multiply(&x, 3.0),
        |x: Array| Ok((np::multiply(&x, 5.0)?, x)),
        |_: Array, ct: Array| np::multiply(&ct, 7.0),
    );
    let triple_jvp = olympus::custom_jvp(
        |x: Array| np::multiply(&x, 3.0),
        |x: Array, t: Array| Ok((np::multiply(&x, 5.0)?, np::multiply(&t, 7.0)?)),
    );
    let reading = |name: &str, c: &dyn Fn(Array) -> Result<Array>| {
        let (v, g) = value_and_grad(|x: Array| -> Result<Array> {
            let y = c(x)?;
            read.set(y.item::<f32>()?);
            let big = np::greater(&y, 4.0)?;
            np::r#where(&big, np::multiply(&y, 2.0)?, &y)
        })(Array::scalar(1.0f32).unwrap())
        .unwrap();
        let r = Array::scalar(read.get()).unwrap();
        check(name, vec![words(&r), words(&v), words(&g)]);
    };
    reading("reading custom_vjp", &|x| triple.call(x));
    reading("reading custom_jvp", &|x| triple_jvp.call(x));
    // Under jit nothing is known while tracing, nor inside a jitted function that `grad`
    // runs (JAX traces it abstractly); its results are known once it returns.
    let e = jit(olympus::grad(branch))
        .call(Array::scalar(2.0f32).unwrap())
        .unwrap_err();
    assert!(matches!(e, olympus::Error::Tracing { .. }), "{e}");
    let jitted = jit(branch);
    let e = olympus::grad(|x: Array| jitted.call(x))(Array::scalar(2.0f32).unwrap()).unwrap_err();
    assert!(matches!(e, olympus::Error::Tracing { .. }), "{e}");
    let doubled = jit(|x: Array| np::multiply(&x, 2.0));
    let g = olympus::grad(|x: Array| -> Result<Array> {
        let y = doubled.call(x)?;
        branch(y)
    })(Array::scalar(1.0f32).unwrap())
    .unwrap();
    assert_eq!(g.item::<f32>().unwrap(), 24.0, "d/dx 3 (2x)^2 at 1");
    // An out-of-range index raises under `grad` as eagerly (its values are known).
    let e = olympus::grad(|x: Array| -> Result<Array> {
        let i = np::multiply(np::greater(&x, 0.0)?.astype(DType::Int32)?, 5)?;
        let taken = np::take_with(&x, &i, None, np::IndexMode::Raise, None)?;
        np::sum(taken, None, false)
    })(np::array([1.0f32, 2.0, 3.0]).unwrap())
    .unwrap_err();
    assert!(e.to_string().contains("out of"), "{e}");
}

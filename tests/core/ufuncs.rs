//! Every ufunc × every dtype it accepts, against f64 CPU references on fresh random inputs,
//! with NaN/inf, integer edge cases from JAX, and broadcasting.
//!
//! Tolerances (float32, in ulps of the correctly rounded result; float16: 1 ulp everywhere,
//! since it is computed in float32 and rounded once): exact ops (add, subtract, multiply,
//! divide, sqrt, floor, ceil, trunc, rint, fmod, remainder, copysign, comparisons,
//! max/min) 0–1 ulp; our own exp/exp2/log/log2/log10/expm1/log1p/sinh/cosh/tanh and their
//! inverses as in `UNARY` below; sin/cos/tan/arcsin/arccos/arctan/arctan2 are the driver's
//! builtins, whose documented accuracy the table records.

use crate::common::*;
use half::f16;
use olympus::{numpy as np, Array, DType};
use rand::Rng;

type NpUnary = fn(&Array) -> olympus::Result<Array>;

struct Unary {
    name: &'static str,
    f: NpUnary,
    reference: fn(f64) -> f64,
    lo: f64,
    hi: f64,
    ulps: f64,
}

macro_rules! u {
    ($name:ident, $r:expr, $lo:expr, $hi:expr, $ulps:expr) => {
        Unary {
            name: stringify!($name),
            f: |a| np::$name(a),
            reference: $r,
            lo: $lo,
            hi: $hi,
            ulps: $ulps,
        }
    };
}

const UNARY: &[Unary] = &[
    u!(sqrt, f64::sqrt, 0.0, 1e4, 1.0),
    u!(cbrt, f64::cbrt, -1e6, 1e6, 2.0),
    u!(exp, f64::exp, -80.0, 80.0, 2.0),
    u!(exp2, f64::exp2, -120.0, 120.0, 2.0),
    u!(expm1, f64::exp_m1, -10.0, 10.0, 3.0),
    u!(log, f64::ln, 1e-3, 1e3, 2.0),
    u!(log2, f64::log2, 1e-3, 1e3, 2.0),
    u!(log10, f64::log10, 1e-3, 1e3, 2.0),
    u!(log1p, f64::ln_1p, -0.9, 10.0, 3.0),
    u!(sin, f64::sin, -10.0, 10.0, 4.0),
    u!(cos, f64::cos, -10.0, 10.0, 4.0),
    u!(tan, f64::tan, -1.5, 1.5, 4.0),
    u!(arcsin, f64::asin, -1.0, 1.0, 4.0),
    u!(arccos, f64::acos, -1.0, 1.0, 4.0),
    u!(arctan, f64::atan, -20.0, 20.0, 4.0),
    u!(sinh, f64::sinh, -80.0, 80.0, 3.0),
    u!(cosh, f64::cosh, -80.0, 80.0, 3.0),
    u!(tanh, f64::tanh, -10.0, 10.0, 3.0),
    u!(arcsinh, f64::asinh, -1e3, 1e3, 3.0),
    u!(arccosh, f64::acosh, 1.0, 1e3, 3.0),
    u!(arctanh, f64::atanh, -0.999, 0.999, 3.0),
    u!(reciprocal, |x| 1.0 / x, -100.0, 100.0, 0.0),
    u!(floor, f64::floor, -100.0, 100.0, 0.0),
    u!(ceil, f64::ceil, -100.0, 100.0, 0.0),
    u!(trunc, f64::trunc, -100.0, 100.0, 0.0),
    u!(rint, |x: f64| x.round_ties_even(), -100.0, 100.0, 0.0),
    u!(negative, |x| -x, -100.0, 100.0, 0.0),
    u!(abs, f64::abs, -100.0, 100.0, 0.0),
    u!(square, |x| x * x, -100.0, 100.0, 0.0),
    u!(
        sign,
        |x: f64| if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            x
        },
        -2.0,
        2.0,
        0.0
    ),
    u!(deg2rad, f64::to_radians, -720.0, 720.0, 1.0),
    u!(rad2deg, f64::to_degrees, -10.0, 10.0, 1.0),
];

fn random_in(r: &mut impl Rng, lo: f64, hi: f64, n: usize, d: DType) -> Vec<f64> {
    (0..n)
        .map(|_| round_to(r.random_range(lo..=hi), d))
        .collect()
}

#[test]
fn unary_float_functions_against_f64() {
    let mut r = rng();
    let mut report = Vec::new();
    for u in UNARY {
        for d in [DType::Float32, DType::Float16] {
            let (lo, hi) = if d == DType::Float16 {
                (u.lo.max(-60000.0), u.hi.min(60000.0))
            } else {
                (u.lo, u.hi)
            };
            let mut v = random_in(&mut r, lo, hi, 4099, d);
            // Tiny arguments, where expm1/log1p/sinh/tanh must not cancel.
            v.extend(
                [1e-7, -3e-6, 2.5e-4, 0.0, -0.0]
                    .iter()
                    .map(|&x| round_to(x, d))
                    .filter(|&x| x >= lo && x <= hi),
            );
            let a = make(&v, &[v.len()], d);
            let got = (u.f)(&a).unwrap();
            assert_eq!(got.dtype(), d, "{} keeps {d}", u.name);
            let g = got.to_f64_vec().unwrap();
            let mut worst = 0.0f64;
            for (i, (&x, &y)) in v.iter().zip(&g).enumerate() {
                let want = round_to((u.reference)(x), d);
                let err = if want.is_nan() || y.is_nan() {
                    if want.is_nan() && y.is_nan() {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                } else if want.is_infinite() || y.is_infinite() {
                    if want == y {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    ulps(y, want, d)
                };
                let tol = if d == DType::Float16 {
                    u.ulps.max(1.0)
                } else {
                    u.ulps
                };
                assert!(
                    err <= tol,
                    "{}({x}) on {d}: got {y}, want {want} ({err} ulp > {tol}); element {i}",
                    u.name
                );
                worst = worst.max(err);
            }
            report.push(format!("{} {d}: {worst} ulp", u.name));
        }
    }
    eprintln!("worst errors: {}", report.join(", "));
}

#[test]
fn unary_specials() {
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    let cases: &[(&str, NpUnary, &[(f64, f64)])] = &[
        (
            "exp",
            |a| np::exp(a),
            &[
                (inf, inf),
                (-inf, 0.0),
                (nan, nan),
                (89.0, inf),
                (-104.0, 0.0),
            ],
        ),
        (
            "log",
            |a| np::log(a),
            &[(0.0, -inf), (-1.0, nan), (inf, inf), (nan, nan), (1.0, 0.0)],
        ),
        (
            "log2",
            |a| np::log2(a),
            &[(8.0, 3.0), (1024.0, 10.0), (0.5, -1.0), (0.0, -inf)],
        ),
        (
            "log10",
            |a| np::log10(a),
            &[(1000.0, 3.0), (1.0, 0.0), (0.1, -1.0)],
        ),
        (
            "log1p",
            |a| np::log1p(a),
            &[(-1.0, -inf), (-2.0, nan), (inf, inf), (0.0, 0.0)],
        ),
        (
            "expm1",
            |a| np::expm1(a),
            &[(inf, inf), (-inf, -1.0), (0.0, 0.0), (100.0, inf)],
        ),
        (
            "sqrt",
            |a| np::sqrt(a),
            &[(-1.0, nan), (inf, inf), (-0.0, -0.0)],
        ),
        (
            "cbrt",
            |a| np::cbrt(a),
            &[(-8.0, -2.0), (27.0, 3.0), (-inf, -inf), (0.0, 0.0)],
        ),
        (
            "tanh",
            |a| np::tanh(a),
            &[(inf, 1.0), (-inf, -1.0), (nan, nan)],
        ),
        (
            "sinh",
            |a| np::sinh(a),
            &[(inf, inf), (-inf, -inf), (100.0, inf)],
        ),
        ("cosh", |a| np::cosh(a), &[(inf, inf), (-inf, inf)]),
        (
            "arctanh",
            |a| np::arctanh(a),
            &[(1.0, inf), (-1.0, -inf), (2.0, nan)],
        ),
        (
            "arccosh",
            |a| np::arccosh(a),
            &[(0.5, nan), (1.0, 0.0), (inf, inf)],
        ),
        (
            "arcsinh",
            |a| np::arcsinh(a),
            &[(inf, inf), (-inf, -inf), (0.0, 0.0)],
        ),
        (
            "rint",
            |a| np::rint(a),
            &[
                (0.5, 0.0),
                (1.5, 2.0),
                (2.5, 2.0),
                (-0.5, -0.0),
                (-1.5, -2.0),
                (inf, inf),
                (nan, nan),
            ],
        ),
        (
            "sign",
            |a| np::sign(a),
            &[(nan, nan), (-0.0, -0.0), (-inf, -1.0)],
        ),
        (
            "floor",
            |a| np::floor(a),
            &[(-0.5, -1.0), (inf, inf), (nan, nan)],
        ),
        (
            "reciprocal",
            |a| np::reciprocal(a),
            &[(0.0, inf), (-0.0, -inf), (inf, 0.0)],
        ),
    ];
    for (name, f, pairs) in cases {
        let xs: Vec<f32> = pairs.iter().map(|p| p.0 as f32).collect();
        let got = f(&np::asarray(xs).unwrap())
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        for ((x, want), g) in pairs.iter().zip(got) {
            let g = f64::from(g);
            let ok = (want.is_nan() && g.is_nan())
                || (g == *want && g.is_sign_negative() == want.is_sign_negative());
            assert!(ok, "{name}({x}) = {g}, want {want}");
        }
    }
    // Predicates, with integer inputs too.
    let x = np::array([1.0f32, f32::NAN, f32::INFINITY, -f32::INFINITY, -0.0]).unwrap();
    assert_eq!(
        np::isnan(&x).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true, false, false, false]
    );
    assert_eq!(
        np::isinf(&x).unwrap().to_vec::<bool>().unwrap(),
        vec![false, false, true, true, false]
    );
    assert_eq!(
        np::isfinite(&x).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false, false, false, true]
    );
    assert_eq!(
        np::signbit(&x).unwrap().to_vec::<bool>().unwrap(),
        vec![false, false, false, true, true]
    );
    let i = np::array([-3i32, 0, 5]).unwrap();
    assert_eq!(
        np::isnan(&i).unwrap().to_vec::<bool>().unwrap(),
        vec![false; 3]
    );
    assert_eq!(
        np::isfinite(&i).unwrap().to_vec::<bool>().unwrap(),
        vec![true; 3]
    );
    assert_eq!(
        np::signbit(&i).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false, false]
    );
    // Integer inputs: floor keeps int32, sqrt and rint go to float32, as in JAX.
    assert_eq!(np::floor(&i).unwrap().dtype(), DType::Int32);
    assert_eq!(np::sqrt(&i).unwrap().dtype(), DType::Float32);
    assert_eq!(np::rint(&i).unwrap().dtype(), DType::Float32);
    assert_eq!(
        np::round(&i, 1).unwrap().to_vec::<i32>().unwrap(),
        vec![-3, 0, 5]
    );
    assert_error(np::round(&i, -1), "round", "InvalidArgument");
    assert_error(
        np::negative(np::array([true]).unwrap()),
        "negative",
        "InvalidDType",
    );
    assert_eq!(
        np::abs(np::array([true]).unwrap()).unwrap().dtype(),
        DType::Bool
    );
    let r = np::round(np::array([1.25f32, 2.5, -0.5, 123.456]).unwrap(), 1).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![1.2, 2.5, -0.5, 123.5]);
}

#[test]
fn integer_unary_functions() {
    let mut r = rng();
    for d in [DType::Int32, DType::UInt32] {
        let mut v = random_values(&mut r, d, 1000);
        v.extend(if d == DType::Int32 {
            vec![0.0, -1.0, 2147483647.0, -2147483648.0]
        } else {
            vec![0.0, 4294967295.0]
        });
        let a = make(&v, &[v.len()], d);
        let wrap = |x: i64| -> f64 {
            if d == DType::Int32 {
                f64::from(x as i32)
            } else {
                f64::from(x as u32)
            }
        };
        let checks: &[(&str, NpUnary, fn(i64) -> i64)] = &[
            ("negative", |a| np::negative(a), |x| x.wrapping_neg()),
            ("abs", |a| np::abs(a), |x| x.abs()),
            ("square", |a| np::square(a), |x| x.wrapping_mul(x)),
            ("sign", |a| np::sign(a), |x| x.signum()),
            ("invert", |a| np::invert(a), |x| !x),
        ];
        for (name, f, rf) in checks {
            let want: Vec<f64> = v.iter().map(|&x| wrap(rf(x as i64))).collect();
            assert_close(&format!("{name} {d}"), &f(&a).unwrap(), &want, d, EXACT);
        }
    }
    let b = np::array([true, false]).unwrap();
    assert_eq!(
        np::invert(&b).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true]
    );
    assert_eq!(
        np::logical_not(np::array([0.0f32, 2.0, f32::NAN]).unwrap())
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true, false, false]
    );
    assert_error(
        np::invert(np::array([1.0f32]).unwrap()),
        "invert",
        "InvalidDType",
    );
}

/// Integer binary edge cases recorded from JAX (`tests/data/gen_int_edges.py`).
#[test]
fn integer_binary_edges_match_jax() {
    let table = include_str!("../data/int_edges.txt");
    let mut n = 0;
    let mut by_op: std::collections::BTreeMap<
        (String, String),
        (Vec<f64>, Vec<f64>, Vec<String>, String),
    > = Default::default();
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f[3] == "-" {
            continue;
        }
        let e = by_op
            .entry((f[0].to_string(), f[1].to_string()))
            .or_default();
        e.0.push(f[2].parse().unwrap());
        e.1.push(f[3].parse().unwrap());
        e.2.push(f[4].to_string());
        e.3 = f[5].to_string();
    }
    for ((op, dt), (xs, ys, want, out_dt)) in by_op {
        let d = DType::from_name(&dt).unwrap();
        let a = make(&xs, &[xs.len()], d);
        let b = make(&ys, &[ys.len()], d);
        let got = match op.as_str() {
            "floor_divide" => np::floor_divide(&a, &b),
            "remainder" => np::remainder(&a, &b),
            "fmod" => np::fmod(&a, &b),
            "left_shift" => np::left_shift(&a, &b),
            "right_shift" => np::right_shift(&a, &b),
            "power" => np::power(&a, &b),
            "gcd" => np::gcd(&a, &b),
            "lcm" => np::lcm(&a, &b),
            "maximum" => np::maximum(&a, &b),
            "minimum" => np::minimum(&a, &b),
            "bitwise_and" => np::bitwise_and(&a, &b),
            "bitwise_or" => np::bitwise_or(&a, &b),
            "bitwise_xor" => np::bitwise_xor(&a, &b),
            "add" => np::add(&a, &b),
            "subtract" => np::subtract(&a, &b),
            "multiply" => np::multiply(&a, &b),
            "true_divide" => np::true_divide(&a, &b),
            "arctan2" => np::arctan2(&a, &b),
            "hypot" => np::hypot(&a, &b),
            "copysign" => np::copysign(&a, &b),
            other => panic!("unknown op {other}"),
        }
        .unwrap();
        assert_eq!(got.dtype().name(), out_dt, "{op} {dt}");
        let g = got.to_f64_vec().unwrap();
        for i in 0..xs.len() {
            let w: f64 = want[i].parse().unwrap_or(f64::NAN);
            // JAX's integer power looks at the low 6 bits of the exponent only; we compute the
            // full wrapped power (NumPy's value), so larger exponents are not compared.
            if op == "power" && ys[i].abs() >= 64.0 && xs[i].abs() > 1.0 {
                continue;
            }
            let ok = if out_dt.starts_with("float") {
                (w.is_nan() && g[i].is_nan()) || g[i] == w || ulps(g[i], w, DType::Float32) <= 4.0
            } else {
                g[i] == w
            };
            assert!(
                ok,
                "{op}({}, {}) on {dt}: got {}, JAX gives {}",
                xs[i], ys[i], g[i], want[i]
            );
            n += 1;
        }
    }
    assert!(n > 1500, "{n}");
}

fn floordiv_ref(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut d = (a - m) / b;
    if m != 0.0 && (m < 0.0) != (b < 0.0) {
        d -= 1.0;
    }
    d.round_ties_even()
}

fn rem_ref(a: f64, b: f64) -> f64 {
    let mut m = a % b;
    if m != 0.0 && !m.is_nan() && (m < 0.0) != (b < 0.0) {
        m += b;
    }
    m
}

#[test]
fn binary_float_functions_against_f64() {
    let mut r = rng();
    type NpBinary = fn(&Array, &Array) -> olympus::Result<Array>;
    let table: &[(&str, NpBinary, fn(f64, f64) -> f64, f64)] = &[
        ("add", |a, b| np::add(a, b), |a, b| a + b, 0.0),
        ("subtract", |a, b| np::subtract(a, b), |a, b| a - b, 0.0),
        ("multiply", |a, b| np::multiply(a, b), |a, b| a * b, 0.0),
        ("divide", |a, b| np::divide(a, b), |a, b| a / b, 0.0),
        ("fmod", |a, b| np::fmod(a, b), |a, b| a % b, 0.0),
        ("remainder", |a, b| np::remainder(a, b), rem_ref, 1.0),
        (
            "floor_divide",
            |a, b| np::floor_divide(a, b),
            floordiv_ref,
            0.0,
        ),
        ("power", |a, b| np::power(a, b), f64::powf, 8.0),
        (
            "maximum",
            |a, b| np::maximum(a, b),
            |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            },
            0.0,
        ),
        (
            "minimum",
            |a, b| np::minimum(a, b),
            |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.min(b)
                }
            },
            0.0,
        ),
        ("fmax", |a, b| np::fmax(a, b), f64::max, 0.0),
        ("fmin", |a, b| np::fmin(a, b), f64::min, 0.0),
        ("arctan2", |a, b| np::arctan2(a, b), f64::atan2, 4.0),
        ("hypot", |a, b| np::hypot(a, b), f64::hypot, 2.0),
        ("copysign", |a, b| np::copysign(a, b), f64::copysign, 0.0),
        (
            "logaddexp",
            |a, b| np::logaddexp(a, b),
            |a: f64, b: f64| {
                if (a - b).is_nan() {
                    a + b
                } else {
                    a.max(b) + (-(a - b).abs()).exp().ln_1p()
                }
            },
            3.0,
        ),
        (
            "logaddexp2",
            |a, b| np::logaddexp2(a, b),
            |a: f64, b: f64| {
                if (a - b).is_nan() {
                    a + b
                } else {
                    a.max(b) + (-(a - b).abs()).exp2().ln_1p() / std::f64::consts::LN_2
                }
            },
            3.0,
        ),
    ];
    for (name, f, rf, tol) in table {
        for d in [DType::Float32, DType::Float16] {
            let n = 2000;
            let (lo, hi) = if *name == "power" {
                (0.01, 8.0)
            } else {
                (-50.0, 50.0)
            };
            let mut xs = random_in(&mut r, lo, hi, n, d);
            let mut ys = random_in(
                &mut r,
                if *name == "power" { -6.0 } else { lo },
                if *name == "power" { 6.0 } else { hi },
                n,
                d,
            );
            // Specials.
            let sp = [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1.0,
                -1.0,
                2.0,
            ];
            for &x in &sp {
                for &y in &sp {
                    xs.push(x);
                    ys.push(y);
                }
            }
            let a = make(&xs, &[xs.len()], d);
            let b = make(&ys, &[ys.len()], d);
            let got = f(&a, &b).unwrap();
            let g = got.to_f64_vec().unwrap();
            for i in 0..xs.len() {
                let want = round_to(rf(xs[i], ys[i]), d);
                let y = g[i];
                let ok = if want.is_nan() {
                    y.is_nan()
                } else if want.is_infinite() || y.is_infinite() || want == 0.0 {
                    y == want
                } else {
                    // pow's error grows with log2 of the result (2^(y log2 x) in float32).
                    let tol = if *name == "power" {
                        2.0 + 1.5 * want.abs().log2().abs()
                    } else {
                        *tol
                    };
                    let tol = if d == DType::Float16 {
                        tol.max(1.0)
                    } else {
                        tol
                    };
                    if name.starts_with("logaddexp") {
                        // max(x, y) + log1p(...) cancels when the terms nearly cancel: the
                        // error is bounded at the scale of the terms, not of the result.
                        let scale = xs[i].abs().max(ys[i].abs()).max(0.7);
                        ulps(y, want, d) <= tol || (y - want).abs() <= tol * ulp_of(scale, d)
                    } else {
                        ulps(y, want, d) <= tol
                    }
                };
                assert!(
                    ok,
                    "{name}({}, {}) on {d}: got {y}, want {want}",
                    xs[i], ys[i]
                );
            }
        }
    }
}

#[test]
fn comparisons_logic_and_where_every_dtype() {
    let mut r = rng();
    for d in every_dtype() {
        let xs = random_values(&mut r, d, 500);
        let mut ys = random_values(&mut r, d, 500);
        ys[..100].copy_from_slice(&xs[..100]);
        let a = make(&xs, &[500], d);
        let b = make(&ys, &[500], d);
        type Cmp = fn(&Array, &Array) -> olympus::Result<Array>;
        let cmps: &[(&str, Cmp, fn(f64, f64) -> bool)] = &[
            ("equal", |a, b| np::equal(a, b), |a, b| a == b),
            ("not_equal", |a, b| np::not_equal(a, b), |a, b| a != b),
            ("less", |a, b| np::less(a, b), |a, b| a < b),
            ("less_equal", |a, b| np::less_equal(a, b), |a, b| a <= b),
            ("greater", |a, b| np::greater(a, b), |a, b| a > b),
            (
                "greater_equal",
                |a, b| np::greater_equal(a, b),
                |a, b| a >= b,
            ),
            (
                "logical_and",
                |a, b| np::logical_and(a, b),
                |a, b| a != 0.0 && b != 0.0,
            ),
            (
                "logical_or",
                |a, b| np::logical_or(a, b),
                |a, b| a != 0.0 || b != 0.0,
            ),
            (
                "logical_xor",
                |a, b| np::logical_xor(a, b),
                |a, b| (a != 0.0) != (b != 0.0),
            ),
        ];
        for (name, f, rf) in cmps {
            let want: Vec<f64> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| f64::from(u8::from(rf(x, y))))
                .collect();
            assert_close(
                &format!("{name} {d}"),
                &f(&a, &b).unwrap(),
                &want,
                DType::Bool,
                EXACT,
            );
        }
        let c = np::greater(&a, &b).unwrap();
        let w = np::r#where(&c, &a, &b).unwrap();
        let want: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| if x > y { x } else { y })
            .collect();
        assert_close(&format!("where {d}"), &w, &want, d, EXACT);
    }
    // NaN compares unequal, and not_equal is true.
    let n = np::array([f32::NAN, 1.0]).unwrap();
    assert_eq!(
        np::not_equal(&n, &n).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false]
    );
    assert_eq!(
        np::equal(&n, &n).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true]
    );
    // where broadcasts its condition and promotes its cases.
    let w = np::r#where(
        np::array([[true], [false]]).unwrap(),
        np::arange(3).unwrap(),
        0.5,
    )
    .unwrap();
    assert_eq!(w.shape(), &[2, 3]);
    assert_eq!(
        w.to_vec::<f32>().unwrap(),
        vec![0.0, 1.0, 2.0, 0.5, 0.5, 0.5]
    );
}

#[test]
fn integer_binary_random_against_reference() {
    let mut r = rng();
    for d in [DType::Int32, DType::UInt32] {
        let xs = random_values(&mut r, d, 3000);
        let ys: Vec<f64> = random_values(&mut r, d, 3000)
            .into_iter()
            .enumerate()
            .map(|(i, y)| {
                if i % 3 == 0 {
                    (y as i64 % 40) as f64
                } else {
                    y
                }
            })
            .collect();
        let a = make(&xs, &[3000], d);
        let b = make(&ys, &[3000], d);
        let wrap = |x: i128| -> f64 {
            if d == DType::Int32 {
                f64::from(x as i32)
            } else {
                f64::from(x as u32)
            }
        };
        type NpBinary = fn(&Array, &Array) -> olympus::Result<Array>;
        let ops: &[(&str, NpBinary, fn(i128, i128, bool) -> i128)] = &[
            ("add", |a, b| np::add(a, b), |a, b, _| a + b),
            ("subtract", |a, b| np::subtract(a, b), |a, b, _| a - b),
            ("multiply", |a, b| np::multiply(a, b), |a, b, _| a * b),
            (
                "floor_divide",
                |a, b| np::floor_divide(a, b),
                |a, b, s| {
                    if b == 0 {
                        if s {
                            if a == 0 {
                                -1
                            } else {
                                -2
                            }
                        } else {
                            u32::MAX as i128
                        }
                    } else {
                        a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 }
                    }
                },
            ),
            (
                "remainder",
                |a, b| np::remainder(a, b),
                |a, b, _| {
                    if b == 0 {
                        0
                    } else {
                        let m = a % b;
                        if m != 0 && (m < 0) != (b < 0) {
                            m + b
                        } else {
                            m
                        }
                    }
                },
            ),
            (
                "fmod",
                |a, b| np::fmod(a, b),
                |a, b, _| if b == 0 { 0 } else { a % b },
            ),
            ("maximum", |a, b| np::maximum(a, b), |a, b, _| a.max(b)),
            ("minimum", |a, b| np::minimum(a, b), |a, b, _| a.min(b)),
            ("bitwise_and", |a, b| np::bitwise_and(a, b), |a, b, _| a & b),
            ("bitwise_or", |a, b| np::bitwise_or(a, b), |a, b, _| a | b),
            ("bitwise_xor", |a, b| np::bitwise_xor(a, b), |a, b, _| a ^ b),
            (
                "left_shift",
                |a, b| np::left_shift(a, b),
                |a, b, _| if !(0..32).contains(&b) { 0 } else { a << b },
            ),
            (
                "right_shift",
                |a, b| np::right_shift(a, b),
                |a, b, _| {
                    if !(0..32).contains(&b) {
                        if a < 0 {
                            -1
                        } else {
                            0
                        }
                    } else {
                        a >> b
                    }
                },
            ),
        ];
        let signed = d == DType::Int32;
        for (name, f, rf) in ops {
            let want: Vec<f64> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| wrap(rf(x as i128, y as i128, signed)))
                .collect();
            assert_close(&format!("{name} {d}"), &f(&a, &b).unwrap(), &want, d, EXACT);
        }
    }
}

#[test]
fn others_clip_nan_to_num_isclose() {
    let x = np::array([f32::NAN, -5.0, 0.5, 5.0]).unwrap();
    let c = np::clip(&x, 0.0, 1.0).unwrap().to_vec::<f32>().unwrap();
    assert!(c[0].is_nan());
    assert_eq!(&c[1..], &[0.0, 0.5, 1.0]);
    let n = np::nan_to_num(
        np::array([f32::NAN, f32::INFINITY, -f32::INFINITY, 1.5]).unwrap(),
        0.0,
        None,
        None,
    )
    .unwrap();
    assert_eq!(
        n.to_vec::<f32>().unwrap(),
        vec![0.0, f32::MAX, f32::MIN, 1.5]
    );
    let h = np::nan_to_num(
        np::asarray(vec![f16::NAN, f16::INFINITY]).unwrap(),
        1.0,
        None,
        Some(-1.0),
    )
    .unwrap();
    assert_eq!(h.to_vec::<f16>().unwrap(), vec![f16::ONE, f16::MAX]);
    let a = np::array([1.0f32, f32::INFINITY, f32::NAN, 1.0, f32::INFINITY]).unwrap();
    let b = np::array([1.0f32 + 1e-7, f32::INFINITY, f32::NAN, 1.1, -f32::INFINITY]).unwrap();
    assert_eq!(
        np::isclose(&a, &b, 1e-5, 1e-8, false)
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true, true, false, false, false]
    );
    assert_eq!(
        np::isclose(&a, &b, 1e-5, 1e-8, true)
            .unwrap()
            .to_vec::<bool>()
            .unwrap(),
        vec![true, true, true, false, false]
    );
    assert!(!np::allclose(&a, &b, 1e-5, 1e-8, true)
        .unwrap()
        .item::<bool>()
        .unwrap());
    assert!(np::allclose(&a, &a, 1e-5, 1e-8, true)
        .unwrap()
        .item::<bool>()
        .unwrap());
    assert!(!np::array_equal(&a, &a, false)
        .unwrap()
        .item::<bool>()
        .unwrap());
    assert!(np::array_equal(&a, &a, true)
        .unwrap()
        .item::<bool>()
        .unwrap());
    assert!(!np::array_equal(&a, [1.0f32], false)
        .unwrap()
        .item::<bool>()
        .unwrap());
    assert!(np::array_equal(np::arange(4).unwrap(), [0, 1, 2, 3], false)
        .unwrap()
        .item::<bool>()
        .unwrap());
}

/// Distance in float32 ulps of `got` from the f64 value `want` (0 when `got` is `want`
/// rounded; NaN against NaN is 0, NaN against a number infinite).
fn ulps_f32(got: f32, want: f64) -> f64 {
    let w = want as f32;
    if got == w || (got.is_nan() && w.is_nan()) {
        return 0.0;
    }
    if got.is_nan() || w.is_nan() || got.is_infinite() || w.is_infinite() {
        return f64::INFINITY;
    }
    let ulp = f64::from(f32::from_bits(w.abs().to_bits() + 1) - w.abs());
    (f64::from(got) - want).abs() / ulp
}

/// `n` float32 arguments for an accuracy sweep: every finite magnitude equally likely by
/// exponent (random bit patterns, both signs), log-spaced magnitudes from 1e-6 to 6000 and
/// a uniform grid over [-6000, 6000], and the special values.
fn sweep_arguments(n: usize, seed: u64) -> Vec<f32> {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut xs = vec![
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN,
        3e38,
        -3e38,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-40,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        6000.0,
        6000.001,
        1e5,
        70000.0,
        16777216.0,
        // The float32 values closest to a multiple of pi/2 (1.6e-9 to 1e-8 from one),
        // the reduction's hardest cases, found by a search over every exponent.
        f32::from_bits(0x6f79be45),
        f32::from_bits(0x50a3e87f),
        f32::from_bits(0x6ff9be45),
        f32::from_bits(0x5123e87f),
        f32::from_bits(0x437ce5f1),
        f32::from_bits(0x7079be45),
        f32::from_bits(0x6a1976f1),
        f32::from_bits(0x53b146a6),
        f32::from_bits(0x65898498),
        f32::from_bits(0x77584625),
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
        3.0 * std::f32::consts::FRAC_PI_2,
        105414350.0,
    ];
    let third = n / 3;
    for i in 0..third {
        let t = i as f64 / third as f64;
        let m = if i % 2 == 0 {
            10f64.powf(-6.0 + t * 9.778)
        } else {
            t * 6000.0
        };
        xs.push(if i % 4 < 2 { m as f32 } else { -(m as f32) });
    }
    while xs.len() < n {
        let x = f32::from_bits(rng.random::<u32>());
        if x.is_finite() {
            xs.push(x);
        }
    }
    xs
}

/// Checks sin, cos and tan within 2 ulp of the correctly rounded value on `xs`.
fn check_trigonometry(xs: &[f32]) {
    let x = olympus::Array::from_slice(xs, &[xs.len()]).unwrap();
    let cases: [(&str, olympus::Array, fn(f64) -> f64); 3] = [
        ("sin", np::sin(&x).unwrap(), f64::sin),
        ("cos", np::cos(&x).unwrap(), f64::cos),
        ("tan", np::tan(&x).unwrap(), f64::tan),
    ];
    for (name, got, f) in cases {
        let mut worst = (0.0f64, 0.0f32);
        for (g, &x) in got.to_vec::<f32>().unwrap().into_iter().zip(xs) {
            let u = ulps_f32(g, f(f64::from(x)));
            assert!(
                u <= 2.0,
                "{name}({x:e}) = {g:e}: {u:.2} ulp from {:e}",
                f(f64::from(x))
            );
            if u > worst.0 {
                worst = (u, x);
            }
        }
        eprintln!("{name}: worst {:.2} ulp at {:e}", worst.0, worst.1);
    }
}

/// sin, cos and tan within 2 ulp of the correctly rounded value for float32 arguments of
/// every magnitude (Payne-Hanek reduction past 6000; the adapters' own built-ins are
/// 10-20 ulp off on NVIDIA and unspecified outside [-pi, pi]).
#[test]
fn trigonometry_within_two_ulp_everywhere() {
    check_trigonometry(&sweep_arguments(1 << 18, 27));
}

/// The same over 2^22 arguments.
#[test]
#[ignore = "a minute on a software adapter; run with --ignored"]
fn trigonometry_within_two_ulp_full_sweep() {
    for seed in 0..4 {
        check_trigonometry(&sweep_arguments(1 << 22, seed));
    }
}

/// Every float32 transcendental within 2 ulp of the correctly rounded value over
/// arguments of every exponent (the sweep of `sweep_arguments`), IEEE special values
/// included: infinities and NaN where the f64 function gives them. Subnormal arguments
/// and results may be flushed to zero, as XLA:CPU does.
fn check_transcendentals(n: usize, seed: u64) {
    let xs = sweep_arguments(n, seed);
    let x = Array::from_slice(&xs, &[xs.len()]).unwrap();
    let mut failures = Vec::new();
    for u in UNARY
        .iter()
        .filter(|u| u.ulps > 0.0 && !matches!(u.name, "sin" | "cos" | "tan"))
    {
        let got = (u.f)(&x).unwrap().to_vec::<f32>().unwrap();
        let mut worst = (0.0f64, 0.0f32, 0.0f32);
        for (&g, &x) in got.iter().zip(&xs) {
            let want = (u.reference)(f64::from(x));
            let mut e = ulps_f32(g, want);
            // XLA:CPU flushes subnormal arguments and results to zero (JAX's log(1e-45)
            // is -inf); either answer passes.
            // A subnormal result counts as the zero it is flushed to (cbrt returns its
            // argument where it reads as zero).
            if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
                let zero = (u.reference)(0.0f64.copysign(f64::from(x)));
                let g = if g.is_subnormal() {
                    0.0f32.copysign(g)
                } else {
                    g
                };
                e = e.min(ulps_f32(g, zero));
            }
            if g == 0.0 && want.abs() < f64::from(f32::MIN_POSITIVE) {
                e = 0.0;
            }
            if e > worst.0 || e.is_nan() {
                worst = (e, x, g);
            }
        }
        eprintln!(
            "{}: worst {:.2} ulp at {:e} (got {:e})",
            u.name, worst.0, worst.1, worst.2
        );
        // log1p reproduces XLA:CPU's float32 operation sequence bit for bit, and that is
        // up to 2.41 ulp off near 0.46 (JAX gives the same bits).
        let tol = if u.name == "log1p" { 2.5 } else { 2.0 };
        if worst.0.is_nan() || worst.0 > tol {
            failures.push(format!(
                "{}({:e}) = {:e}: {:.2} ulp",
                u.name, worst.1, worst.2, worst.0
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn transcendentals_within_two_ulp_everywhere() {
    check_transcendentals(1 << 16, 5);
}

/// log(e^a + e^b), or log2(2^a + 2^b), in f64.
fn log_add_exp(a: f64, b: f64, base2: bool) -> f64 {
    let m = a.max(b);
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if m.is_infinite() {
        return m;
    }
    let d = -(a - b).abs();
    if base2 {
        m + d.exp2().ln_1p() / std::f64::consts::LN_2
    } else {
        m + d.exp().ln_1p()
    }
}

type NpBinary = fn(&Array, &Array) -> olympus::Result<Array>;

/// The binary transcendentals with their f64 references.
const BINARY_TRANSCENDENTALS: [(&str, NpBinary, fn(f64, f64) -> f64); 5] = [
    ("power", |a, b| np::power(a, b), f64::powf),
    ("arctan2", |a, b| np::arctan2(a, b), f64::atan2),
    ("hypot", |a, b| np::hypot(a, b), f64::hypot),
    (
        "logaddexp",
        |a, b| np::logaddexp(a, b),
        |a, b| log_add_exp(a, b, false),
    ),
    (
        "logaddexp2",
        |a, b| np::logaddexp2(a, b),
        |a, b| log_add_exp(a, b, true),
    ),
];

/// power, arctan2, hypot, logaddexp and logaddexp2 within 2 ulp of the correctly rounded
/// value: pairs of sweep arguments (every exponent, specials), and for power bases from
/// 2^-20 to 2^20 with exponents in [-30, 30] (results across the whole float32 range) and
/// the cases that were off before (70000^2.0001, nearly equal logaddexp2 arguments).
fn check_binary_transcendentals(n: usize, seed: u64) {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let a = sweep_arguments(n, seed);
    let mut b = sweep_arguments(n, seed + 1);
    b.rotate_left(n / 7);
    let mut xs = a.clone();
    let mut ys = b.clone();
    for _ in 0..n {
        xs.push(2f32.powf(rng.random_range(-20.0..20.0)) * rng.random_range(1.0..2.0));
        ys.push(rng.random_range(-30.0f32..30.0));
    }
    for (x, y) in [
        (70000.0f32, 2.0001f32),
        (1e5, 2.5),
        (3.0, 80.5),
        (0.999, -70000.0),
        (-1.0, -1.0000001),
        (-1.0056, -1.0056002),
        (
            -std::f32::consts::LN_2,
            f32::from_bits((-std::f32::consts::LN_2).to_bits() - 1),
        ),
    ] {
        xs.push(x);
        ys.push(y);
    }
    for (i, &ai) in a.iter().enumerate().take(n / 4) {
        let x = ai.clamp(-1e30, 1e30);
        xs.push(x);
        ys.push(f32::from_bits(x.to_bits() ^ (1 + (i as u32 % 64))));
    }
    let x = Array::from_slice(&xs, &[xs.len()]).unwrap();
    let y = Array::from_slice(&ys, &[ys.len()]).unwrap();
    let cases = BINARY_TRANSCENDENTALS.map(|(name, f, r)| (name, f(&x, &y).unwrap(), r));
    let mut failures = Vec::new();
    for (name, got, f) in cases {
        let got = got.to_vec::<f32>().unwrap();
        let mut worst = (0.0f64, 0.0f32, 0.0f32, 0.0f32);
        for ((&g, &x), &y) in got.iter().zip(&xs).zip(&ys) {
            let want = f(f64::from(x), f64::from(y));
            let mut e = ulps_f32(g, want);
            let sub = |v: f32| v != 0.0 && v.abs() < f32::MIN_POSITIVE;
            if sub(x) || sub(y) || (g == 0.0 && want.abs() < f64::from(f32::MIN_POSITIVE)) {
                e = e.min(1.0); // XLA:CPU flushes subnormals: not compared
            }
            // A result that cancels to far below the larger argument m, from arguments
            // that are not nearly equal: within 2^-23 of m (XLA's can be as far off).
            // Nearly equal arguments keep 2 ulp (JAX's logaddexp2(-1, -1.0000001) is
            // -1.06e-8, the value -5.96e-8).
            let (fx, fy) = (f64::from(x), f64::from(y));
            let m = fx.abs().max(fy.abs());
            if name.starts_with("logaddexp")
                && (fx - fy).abs() > m * 2f64.powi(-8)
                && (f64::from(g) - want).abs() <= m * 2f64.powi(-23)
            {
                e = e.min(1.0);
            }
            if e > worst.0 || e.is_nan() {
                worst = (e, x, y, g);
            }
        }
        eprintln!(
            "{name}: worst {:.2} ulp at ({:e}, {:e}) (got {:e})",
            worst.0, worst.1, worst.2, worst.3
        );
        if worst.0.is_nan() || worst.0 > 2.0 {
            failures.push(format!(
                "{name}({:e}, {:e}) = {:e}: {:.2} ulp",
                worst.1, worst.2, worst.3, worst.0
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn binary_transcendentals_within_two_ulp() {
    check_binary_transcendentals(1 << 16, 9);
}

/// float16 math is float32 math rounded once (as XLA computes it): every float16 value
/// through every unary transcendental, and random float16 pairs through the binary ones,
/// within 1 float16 ulp of the exact value.
#[test]
fn float16_transcendentals_within_one_ulp() {
    let all: Vec<f64> = (0..=u16::MAX)
        .map(|b| f64::from(f16::from_bits(b)))
        .collect();
    let x = make(&all, &[all.len()], DType::Float16);
    let close = |g: f64, want: f64| -> bool {
        let w = round_to(want, DType::Float16);
        if g.is_nan() || w.is_nan() || g.is_infinite() || w.is_infinite() {
            return g == w || (g.is_nan() && w.is_nan());
        }
        ulps(g, want, DType::Float16) <= 1.0
    };
    // deg2rad and rad2deg multiply by the constant rounded to float16, as JAX does.
    for u in UNARY
        .iter()
        .filter(|u| u.ulps > 0.0 && !u.name.contains("2de") && !u.name.contains("2ra"))
    {
        let got = (u.f)(&x).unwrap();
        assert_eq!(got.dtype(), DType::Float16);
        for (&g, &v) in got.to_f64_vec().unwrap().iter().zip(&all) {
            let want = (u.reference)(v);
            assert!(
                close(g, want),
                "{}({v:e}) = {g:e} as float16, exact {want:e}",
                u.name
            );
        }
    }
    let mut r = rng();
    let n = 1 << 16;
    let a: Vec<f64> = (0..n)
        .map(|_| f64::from(f16::from_bits(r.random::<u16>())))
        .collect();
    let b: Vec<f64> = (0..n)
        .map(|_| f64::from(f16::from_bits(r.random::<u16>())))
        .collect();
    let (xa, xb) = (
        make(&a, &[n], DType::Float16),
        make(&b, &[n], DType::Float16),
    );
    let cases = BINARY_TRANSCENDENTALS.map(|(name, f, r)| (name, f(&xa, &xb).unwrap(), r));
    for (name, got, f) in cases {
        for ((&g, &x), &y) in got.to_f64_vec().unwrap().iter().zip(&a).zip(&b) {
            let want = f(x, y);
            assert!(
                close(g, want),
                "{name}({x:e}, {y:e}) = {g:e} as float16, exact {want:e}"
            );
        }
    }
}

/// The transcendental sweeps over 2^22 arguments (and pairs) for each of four seeds.
#[test]
#[ignore = "a minute on a software adapter; run with --ignored"]
fn transcendentals_full_sweep() {
    for seed in 0..4 {
        check_transcendentals(1 << 22, 100 + seed);
        check_binary_transcendentals(1 << 22, 200 + seed);
    }
}

/// Powers of -1 and ±1 by huge and infinite exponents, and lcm's wrapping product, as JAX
/// 0.10.2 gives them (`jnp.power(jnp.float32(-1), jnp.float32(-3e38))` is 1: every float
/// past 2^24 is an even integer; `jnp.lcm(jnp.int32(2**31 - 1), 32)` is -32: JAX computes
/// |a| * (|b| // gcd) and the product wraps), eagerly and under jit.
#[test]
fn power_of_minus_one_and_lcm_wrap_as_jax() {
    use olympus::jit;
    let pow_cases: [(f32, f32, f32); 10] = [
        (-1.0, -3e38, 1.0),
        (-1.0, 3e38, 1.0),
        (1.0, 3e38, 1.0),
        (-2.0, 16777216.0, f32::INFINITY),
        (-1.0, 16777217.0, 1.0),
        (-1.0, 8388609.0, -1.0),
        (-1.0, f32::INFINITY, 1.0),
        (-0.5, f32::NEG_INFINITY, f32::INFINITY),
        (-2.0, f32::INFINITY, f32::INFINITY),
        (-1.0, -7.0, -1.0),
    ];
    let (xs, ys): (Vec<f32>, Vec<f32>) = pow_cases.iter().map(|&(x, y, _)| (x, y)).unzip();
    let want: Vec<f32> = pow_cases.iter().map(|c| c.2).collect();
    let (x, y) = (
        Array::from_slice(&xs, &[xs.len()]).unwrap(),
        Array::from_slice(&ys, &[ys.len()]).unwrap(),
    );
    let eager = np::power(&x, &y).unwrap().to_vec::<f32>().unwrap();
    let f = jit(|(a, b): (Array, Array)| np::power(&a, &b));
    let jitted = f
        .call((x.clone(), y.clone()))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(eager, want, "eager power");
    assert_eq!(jitted, want, "jitted power");
    // The narrow floats compute in float32 and round once: 2049 and 257 round to even
    // integers in float16 and bfloat16.
    for (d, y, w) in [
        (DType::Float16, -65504.0, 1.0),
        (DType::Float16, 2049.0, 1.0),
        (DType::BFloat16, -3e38, 1.0),
        (DType::BFloat16, 257.0, 1.0),
        (DType::BFloat16, 255.0, -1.0),
    ] {
        let b = Array::from_slice(&[-1.0f32], &[1])
            .unwrap()
            .astype(d)
            .unwrap();
        let e = Array::from_slice(&[y], &[1]).unwrap().astype(d).unwrap();
        let got = np::power(&b, &e).unwrap().astype(DType::Float32).unwrap();
        assert_eq!(got.to_vec::<f32>().unwrap(), [w], "(-1)^{y} in {d}");
    }
    // lcm: int32, uint32 and the narrow integers, with JAX's values.
    let lcm = |a: Array, b: Array| np::lcm(&a, &b).unwrap();
    let i32s = |v: &[i32]| Array::from_slice(v, &[v.len()]).unwrap();
    assert_eq!(
        lcm(
            i32s(&[2147483647, 65536, -4, -6, 0]),
            i32s(&[32, 65537, -6, 4, 5])
        )
        .to_vec::<i32>()
        .unwrap(),
        [-32, 65536, 12, 12, 0]
    );
    let u = Array::from_slice(&[4294967295u32], &[1]).unwrap();
    let two = Array::from_slice(&[2u32], &[1]).unwrap();
    assert_eq!(lcm(u, two).to_vec::<u32>().unwrap(), [4294967294]);
    let i8s = Array::from_slice(&[100i8], &[1]).unwrap();
    let three = Array::from_slice(&[3i8], &[1]).unwrap();
    assert_eq!(lcm(i8s, three).to_vec::<i8>().unwrap(), [44]);
    let i16s = Array::from_slice(&[-300i16], &[1]).unwrap();
    let seven = Array::from_slice(&[7i16], &[1]).unwrap();
    assert_eq!(lcm(i16s, seven).to_vec::<i16>().unwrap(), [2100]);
    let g = jit(|(a, b): (Array, Array)| np::lcm(&a, &b));
    let got = g.call((i32s(&[2147483647]), i32s(&[32]))).unwrap();
    assert_eq!(got.to_vec::<i32>().unwrap(), [-32]);
}

/// A bool mask of the product's shape times a float32 or float16 value gives +0.0 where
/// the mask is false, even for NaN, infinite or negative values, eagerly, under `jit` and
/// in forward derivatives, as JAX 0.10.2 does (XLA turns `convert(mask) * x` into a
/// select); a broadcast mask and bfloat16 products multiply. Values from JAX:
/// `jnp.multiply(m, x)` for each case below (`np.signbit` for the sign of zero).
#[test]
fn multiplying_by_a_bool_mask_selects_as_jax_does() {
    use olympus::{jit, jvp};
    let nan = f32::NAN;
    let m = Array::from_slice(&[false, true], &[2]).unwrap();
    let x = Array::from_slice(&[-3.0f32, nan], &[2]).unwrap();
    let bits = |a: &Array| -> Vec<u32> {
        np::astype(a, DType::Float32)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() })
            .collect()
    };
    let want = |v: &[f32]| -> Vec<u32> {
        v.iter()
            .map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() })
            .collect()
    };
    // Same shapes, either order: select.
    assert_eq!(bits(&np::multiply(&m, &x).unwrap()), want(&[0.0, nan]));
    assert_eq!(bits(&np::multiply(&x, &m).unwrap()), want(&[0.0, nan]));
    let f16x = np::astype(&x, DType::Float16).unwrap();
    assert_eq!(bits(&np::multiply(&m, &f16x).unwrap()), want(&[0.0, nan]));
    // A float scalar times a mask of the product's shape: select (`m * -2.0` is +0.0).
    assert_eq!(bits(&np::multiply(&m, -2.0).unwrap()), want(&[0.0, -2.0]));
    let scalar = Array::from_slice(&[nan], &[]).unwrap();
    let f = Array::from_slice(&[false], &[]).unwrap();
    assert_eq!(bits(&np::multiply(&f, &scalar).unwrap()), want(&[0.0]));
    // A broadcast mask multiplies: `[[F], [T]] * [[-3, nan]]`, and `false * [-3, nan]`.
    let col = Array::from_slice(&[false, true], &[2, 1]).unwrap();
    let row = np::reshape(&x, &[1usize, 2][..]).unwrap();
    assert_eq!(
        bits(&np::multiply(&col, &row).unwrap()),
        want(&[-0.0, nan, -3.0, nan])
    );
    assert_eq!(bits(&np::multiply(false, &x).unwrap()), want(&[-0.0, nan]));
    // bfloat16 multiplies.
    let bx = np::astype(&x, DType::BFloat16).unwrap();
    assert_eq!(bits(&np::multiply(&m, &bx).unwrap()), want(&[-0.0, nan]));
    // Under jit, and the gradient of `sum(m * x)` at x = [inf, 4]: [0, 1].
    let jitted = jit(|(m, x): (Array, Array)| np::sum(np::multiply(&m, &x)?, None, false));
    let y = Array::from_slice(&[nan, 4.0f32], &[2]).unwrap();
    assert_eq!(bits(&jitted.call((m.clone(), y)).unwrap()), want(&[4.0]));
    // The tangent selects too (`jax.jvp` at x = [2, 3] with tangent [inf, 1]: [0, 1]).
    // (JAX's `vjp` multiplies the cotangent by the converted mask outside the rewrite and
    // gives NaN there; Olympus's transpose of the select gives 0.)
    let mm = m.clone();
    let at = Array::from_slice(&[2.0f32, 3.0], &[2]).unwrap();
    let t = Array::from_slice(&[f32::INFINITY, 1.0], &[2]).unwrap();
    let (_, tangent) = jvp(move |x: Array| np::multiply(&mm, &x), at, t).unwrap();
    assert_eq!(bits(&tangent), want(&[0.0, 1.0]));
}

/// `x ** n` for a literal integer `n` is JAX's `integer_pow` to the bit, eagerly and under
/// `jit` (repeated squaring and a reciprocal, not `pow`, whose last bits often differ),
/// and so is its gradient (`n * x^(n-1)` by `integer_pow` again). Values
/// from `python3 tests/data/gen_integer_powers.py`.
#[test]
fn literal_integer_powers_are_jaxs_integer_pow() {
    let text = include_str!("../data/integer_powers.txt");
    let words = |line: &str| -> Vec<u32> {
        line.split_once(" | ")
            .unwrap()
            .1
            .split(' ')
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect()
    };
    let mut lines = text.lines();
    let xs: Vec<f32> = words(lines.next().unwrap())
        .into_iter()
        .map(f32::from_bits)
        .collect();
    let x = Array::from_slice(&xs, &[xs.len()]).unwrap();
    let canonical = |v: Vec<f32>| -> Vec<u32> {
        v.into_iter()
            .map(|f| if f.is_nan() { u32::MAX } else { f.to_bits() })
            .collect()
    };
    let mut checked = 0;
    while let (Some(value), Some(grad)) = (lines.next(), lines.next()) {
        let n: i64 = value.split(' ').next().unwrap().parse().unwrap();
        let want = |line: &str| canonical(words(line).into_iter().map(f32::from_bits).collect());
        let f = move |v: Array| np::power(&v, n);
        let eager = f(x.clone()).unwrap().to_vec::<f32>().unwrap();
        let jitted = olympus::jit(f)
            .call(x.clone())
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        // The same bits, but for the subnormals Olympus keeps where XLA:CPU flushes them
        // to a zero of their sign (1 / 3e38).
        let same = |got: Vec<f32>, want: Vec<u32>, what: &str| {
            for (i, (g, w)) in canonical(got).into_iter().zip(want).enumerate() {
                let flushed = w & 0x7fff_ffff == 0 && g & 0x7f80_0000 == 0 && g >> 31 == w >> 31;
                assert!(
                    g == w || flushed,
                    "{what} at {}: {g:08x}, JAX {w:08x}",
                    xs[i]
                );
            }
        };
        same(eager, want(value), &format!("x ** {n}"));
        same(jitted, want(value), &format!("jit x ** {n}"));
        let g = olympus::grad(move |v: Array| np::sum(np::power(&v, n)?, None, false))(x.clone())
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        same(g, want(grad), &format!("d/dx x ** {n}"));
        checked += 1;
    }
    assert_eq!(checked, 12);
}

/// A quotient by a broadcast divisor (a scalar, a row, a column) is JAX's to the bit,
/// eagerly and under `jit`, and `mean` is its sum times the count's rounded reciprocal:
/// XLA computes `x / broadcast(y)` as `x * broadcast(1 / y)`, a last bit away from the
/// quotient for about a third of values, while a quotient of same-shaped arrays is the
/// correctly rounded one. Values from `python3 tests/data/gen_divisions.py`.
#[test]
fn broadcast_divisors_divide_as_xla() {
    type Case = fn(&[Array]) -> olympus::Result<Array>;
    let text = include_str!("../data/divisions.txt");
    let words = |line: &str| -> Vec<u32> {
        let (_, w) = line.split_once(" | ").unwrap();
        w.split(' ')
            .map(|x| u32::from_str_radix(x, 16).unwrap())
            .collect()
    };
    let input = |name: &str, shape: &[usize]| {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("input {name} |")));
        let v: Vec<f32> = words(line.unwrap())
            .into_iter()
            .map(f32::from_bits)
            .collect();
        Array::from_slice(&v, shape).unwrap()
    };
    let x = input("X", &[4096]);
    let m = np::reshape(x.slice(olympus::s![..3072]).unwrap(), &[48, 64]).unwrap();
    let inputs = [x, m, input("R", &[64]), input("C", &[48, 1])];
    let cases: Vec<(&str, Case)> = vec![
        ("x/3", |v| np::divide(&v[0], 3.0)),
        ("x/0.1", |v| np::divide(&v[0], 0.1)),
        ("x/7", |v| np::divide(&v[0], Array::scalar(7.0f32)?)),
        ("x/-0", |v| np::divide(&v[0], -0.0)),
        ("x/inf", |v| np::divide(&v[0], f64::INFINITY)),
        ("3/x", |v| np::divide(3.0, &v[0])),
        ("x/x[::-1]", |v| np::divide(&v[0], np::flip(&v[0], None)?)),
        ("m/row", |v| np::divide(&v[1], &v[2])),
        ("m/col", |v| np::divide(&v[1], &v[3])),
        ("f16/3", |v| np::divide(v[0].astype(DType::Float16)?, 3.0)),
        ("bf16/3", |v| np::divide(v[0].astype(DType::BFloat16)?, 3.0)),
        ("f16/row", |v| {
            np::divide(v[1].astype(DType::Float16)?, v[2].astype(DType::Float16)?)
        }),
        ("int/3", |_| np::divide(np::arange(-50..50)?, 3)),
    ];
    let bits = |a: &Array| -> Vec<u32> {
        match a.dtype() {
            DType::Float32 => a
                .to_vec::<f32>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect(),
            _ => {
                let h = a.astype(DType::Float32).unwrap().to_vec::<f32>().unwrap();
                match a.dtype() {
                    DType::Float16 => h
                        .iter()
                        .map(|&x| f16::from_f32(x).to_bits() as u32)
                        .collect(),
                    _ => h
                        .iter()
                        .map(|&x| half::bf16::from_f32(x).to_bits() as u32)
                        .collect(),
                }
            }
        }
    };
    // NaN for NaN (XLA's sign of a NaN is its own), a float32 subnormal for the zero
    // XLA:CPU flushes it to (Olympus keeps subnormals: `3 / 3e38`), else the same bits.
    let same = |g: &[u32], w: &[u32], d: DType| {
        let nan = |b: u32| match d {
            DType::Float32 => f32::from_bits(b).is_nan(),
            DType::Float16 => f16::from_bits(b as u16).is_nan(),
            _ => half::bf16::from_bits(b as u16).is_nan(),
        };
        let flushed = |a: u32, b: u32| {
            d == DType::Float32 && b & 0x7fff_ffff == 0 && a >> 31 == b >> 31 && {
                let x = f32::from_bits(a);
                x != 0.0 && x.abs() < f32::MIN_POSITIVE
            }
        };
        g.len() == w.len()
            && g.iter()
                .zip(w)
                .all(|(&a, &b)| a == b || nan(a) && nan(b) || flushed(a, b))
    };
    let mut wrong = vec![];
    for (name, f) in cases {
        let wants: Vec<Vec<u32>> = [format!("{name} |"), format!("{name} eager |")]
            .iter()
            .filter_map(|h| text.lines().find(|l| l.starts_with(h.as_str())))
            .map(words)
            .collect();
        assert!(!wants.is_empty(), "no {name} line");
        let eager = f(&inputs).unwrap();
        let jitted = olympus::jit(move |v: Vec<Array>| f(&v))
            .call(inputs.to_vec())
            .unwrap();
        for (mode, got) in [("eager", eager), ("jit", jitted)] {
            let g = bits(&got);
            let d = got.dtype();
            if !wants.iter().any(|w| same(&g, w, d)) {
                let w = &wants[0];
                let i = g.iter().zip(w).position(|(a, b)| a != b).unwrap_or(0);
                wrong.push(format!(
                    "{name} {mode}: {} elements differ from JAX, first at {i}: {:#x} vs {:#x}",
                    g.iter().zip(w).filter(|(a, b)| a != b).count(),
                    g.get(i).copied().unwrap_or(0),
                    w.get(i).copied().unwrap_or(0)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // `mean` is its sum times the rounded reciprocal of the count, as JAX's is (the
    // generator checks that of JAX's; the sums themselves are an ulp or two from XLA's).
    let m = inputs[1].slice(olympus::s![.., 8..]).unwrap();
    for (axis, n) in [(0, 48.0f32), (1, 56.0)] {
        let mean = np::mean(&m, Some(&[axis]), false).unwrap();
        let sum = np::sum(&m, Some(&[axis]), false).unwrap();
        let want: Vec<u32> = sum
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|s| (s * (1.0 / n)).to_bits())
            .collect();
        assert!(
            same(&bits(&mean), &want, DType::Float32),
            "mean along {axis}"
        );
    }
}

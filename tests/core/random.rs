//! olympus::random against JAX: the Random123 known answers, JAX's own outputs for the same
//! keys (`tests/data/random_vectors.txt`, from `gen_random_vectors.py`), and distribution
//! checks on a million samples.

use std::collections::HashMap;

use rand::Rng;

use crate::common::*;
use olympus::{lax, numpy as np, random, Array, DType};

struct Vector {
    shape: Vec<usize>,
    /// Raw words: u32/i32 values, or float bit patterns.
    words: Vec<u32>,
    /// The text after `#`, if any.
    note: String,
}

fn vectors() -> HashMap<String, Vector> {
    parse_vectors(include_str!("../data/random_vectors.txt"))
}

fn parse_vectors(text: &str) -> HashMap<String, Vector> {
    let mut out = HashMap::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (body, note) = match line.split_once('#') {
            Some((b, n)) => (b, n.trim().to_string()),
            None => (line, String::new()),
        };
        let mut it = body.split_whitespace();
        let name = it.next().unwrap().to_string();
        let dtype = it.next().unwrap();
        let shape_s = it.next().unwrap();
        let shape: Vec<usize> = if shape_s == "-" {
            vec![]
        } else {
            shape_s
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect()
        };
        let words: Vec<u32> = it
            .map(|v| match dtype {
                "f32" | "f16" => u32::from_str_radix(v, 16).unwrap(),
                "i32" => v.parse::<i32>().unwrap() as u32,
                "bool" => v.parse::<u32>().unwrap(),
                _ => v.parse::<u32>().unwrap(),
            })
            .collect();
        out.insert(name, Vector { shape, words, note });
    }
    out
}

fn expect_exact(v: &HashMap<String, Vector>, name: &str, got: &Array) {
    let want = &v[name];
    assert_eq!(got.shape(), want.shape.as_slice(), "{name}: shape");
    assert_eq!(words(got), want.words, "{name}: values differ from JAX");
}

#[test]
fn threefry_known_answers() {
    let v = vectors();
    for name in ["kat0", "kat1", "kat2"] {
        let vec = &v[name];
        // "key k0 k1 ctr c0 c1"
        let f: Vec<u32> = vec
            .note
            .split_whitespace()
            .filter_map(|s| u32::from_str_radix(s, 16).ok())
            .collect();
        let a = |x: u32| Array::from_slice(&[x], &[1]).unwrap();
        let (k0, k1, c0, c1) = (a(f[0]), a(f[1]), a(f[2]), a(f[3]));
        let x = lax::threefry2x32(&k0, &k1, &c0, &c1, lax::ThreefryOutput::First).unwrap();
        let y = lax::threefry2x32(&k0, &k1, &c0, &c1, lax::ThreefryOutput::Second).unwrap();
        assert_eq!(
            vec![x.item::<u32>().unwrap(), y.item::<u32>().unwrap()],
            vec.words,
            "{name}"
        );
    }
    // Random123's published answer, independent of the file.
    assert_eq!(v["kat0"].words, vec![0x6b20_0159, 0x99ba_4efe]);
}

#[test]
fn keys_bits_uniform_match_jax_bit_for_bit() {
    let v = vectors();
    let k0 = random::key(0).unwrap();
    let k42 = random::key(42).unwrap();
    expect_exact(&v, "key0", &k0);
    expect_exact(&v, "key42", &k42);
    expect_exact(&v, "key_big", &random::key(123456789).unwrap());
    expect_exact(&v, "split0_3", &random::split(&k0, 3).unwrap());
    expect_exact(&v, "split42_2", &random::split(&k42, 2).unwrap());
    expect_exact(&v, "fold0_7", &random::fold_in(&k0, 7).unwrap());
    expect_exact(
        &v,
        "fold42_big",
        &random::fold_in(&k42, 0xdeadbeef).unwrap(),
    );
    expect_exact(&v, "bits0_8", &random::bits(&k0, &[8]).unwrap());
    expect_exact(&v, "bits42_2x3", &random::bits(&k42, &[2, 3]).unwrap());
    let b16 = np::bitwise_and(random::bits(&k0, &[8]).unwrap(), 0xffffu32).unwrap();
    expect_exact(&v, "bits0_u16_8", &b16);
    let f32_ = DType::Float32;
    expect_exact(
        &v,
        "uniform0_8",
        &random::uniform(&k0, &[8], 0.0, 1.0, f32_).unwrap(),
    );
    expect_exact(
        &v,
        "uniform42_2x3",
        &random::uniform(&k42, &[2, 3], 0.0, 1.0, f32_).unwrap(),
    );
    // `u * (max - min) + min`, one rounding as XLA's CPU backend fuses it.
    expect_exact(
        &v,
        "uniform0_range",
        &random::uniform(&k0, &[8], -2.0, 3.0, f32_).unwrap(),
    );
    expect_exact(
        &v,
        "uniform42_range_1024",
        &random::uniform(&k42, &[1024], -3.5, 1000.0, f32_).unwrap(),
    );
    expect_exact(
        &v,
        "uniform0_f16",
        &random::uniform(&k0, &[8], 0.0, 1.0, DType::Float16).unwrap(),
    );
    let (_, k2) = random::split2(&k0).unwrap();
    expect_exact(
        &v,
        "split_then_uniform",
        &random::uniform(&k2, &[4], 0.0, 1.0, f32_).unwrap(),
    );
    expect_exact(
        &v,
        "randint0",
        &random::randint(&k0, &[8], 0, 10, DType::Int32).unwrap(),
    );
    expect_exact(
        &v,
        "randint42",
        &random::randint(&k42, &[8], -5, 1_000_000, DType::Int32).unwrap(),
    );
    expect_exact(
        &v,
        "bernoulli0",
        &random::bernoulli(&k0, 0.3, &[16]).unwrap(),
    );
    expect_exact(&v, "perm0_10", &random::permutation(&k0, 10).unwrap());
    expect_exact(
        &v,
        "choice0",
        &random::choice(&k0, 10, &[5], false, None).unwrap(),
    );
    expect_exact(
        &v,
        "choice0_rep",
        &random::choice(&k0, 10, &[5], true, None).unwrap(),
    );
}

/// The largest distance in ulps between `got` and JAX's float32 values.
fn max_ulps(v: &HashMap<String, Vector>, name: &str, got: &Array) -> u32 {
    let want = &v[name];
    assert_eq!(got.shape(), want.shape.as_slice(), "{name}: shape");
    let g = words(got);
    g.iter()
        .zip(&want.words)
        .map(|(&a, &b)| (a as i32).wrapping_sub(b as i32).unsigned_abs())
        .max()
        .unwrap_or(0)
}

#[test]
fn transcendental_samplers_match_jax_bit_for_bit() {
    let v = vectors();
    let k0 = random::key(0).unwrap();
    let k42 = random::key(42).unwrap();
    let f32_ = DType::Float32;
    let cases: Vec<(&str, Array)> = vec![
        ("normal0_8", random::normal(&k0, &[8], f32_).unwrap()),
        ("normal42_16", random::normal(&k42, &[16], f32_).unwrap()),
        (
            "normal42_2048",
            random::normal(&k42, &[2048], f32_).unwrap(),
        ),
        (
            "normal0_f16",
            random::normal(&k0, &[8], DType::Float16).unwrap(),
        ),
        (
            "normal0_f16_256",
            random::normal(&k0, &[256], DType::Float16).unwrap(),
        ),
        (
            "exponential0",
            random::exponential(&k0, &[8], f32_).unwrap(),
        ),
        (
            "exponential42_1024",
            random::exponential(&k42, &[1024], f32_).unwrap(),
        ),
        ("gumbel0", random::gumbel(&k0, &[8], f32_).unwrap()),
        (
            "gumbel42_1024",
            random::gumbel(&k42, &[1024], f32_).unwrap(),
        ),
        ("laplace0", random::laplace(&k0, &[8], f32_).unwrap()),
        (
            "laplace42_1024",
            random::laplace(&k42, &[1024], f32_).unwrap(),
        ),
        (
            "truncnorm0",
            random::truncated_normal(&k0, -1.0, 2.0, &[8], f32_).unwrap(),
        ),
        (
            "truncnorm42_1024",
            random::truncated_normal(&k42, -1.5, 0.5, &[1024], f32_).unwrap(),
        ),
        ("gamma0_2_5", random::gamma(&k0, 2.5, &[8], f32_).unwrap()),
        (
            "gamma42_2_5_256",
            random::gamma(&k42, 2.5, &[256], f32_).unwrap(),
        ),
        (
            "gamma42_3_256",
            random::gamma(&k42, 3.0, &[256], f32_).unwrap(),
        ),
        (
            "gamma42_1_3_256",
            random::gamma(&k42, 1.3, &[256], f32_).unwrap(),
        ),
        ("beta0", random::beta(&k0, 2.0, 3.0, &[8], f32_).unwrap()),
        (
            "beta42_256",
            random::beta(&k42, 2.0, 3.0, &[256], f32_).unwrap(),
        ),
    ];
    let differ: Vec<&str> = cases
        .iter()
        .filter(|(name, got)| words(got) != v[*name].words || got.shape() != v[*name].shape)
        .map(|(name, _)| *name)
        .collect();
    assert!(differ.is_empty(), "differ from JAX: {differ:?}");
    // Below shape 1 JAX multiplies by `u ** (1 / shape)`, and XLA's CPU `pow` is the C
    // library's `powf`, computed in double precision (see `random::gamma`).
    for (name, got) in [
        ("gamma0_0_3", random::gamma(&k0, 0.3, &[8], f32_).unwrap()),
        (
            "gamma42_0_3_256",
            random::gamma(&k42, 0.3, &[256], f32_).unwrap(),
        ),
    ] {
        let d = max_ulps(&v, name, &got);
        assert!(d <= 16, "{name}: {d} ulps from JAX");
    }
    let logits = np::log(np::array([0.1f32, 0.2, 0.7]).unwrap()).unwrap();
    let lb = np::broadcast_to(&logits, &[8, 3]).unwrap();
    expect_exact(
        &v,
        "categorical0",
        &random::categorical(&k0, &lb, -1).unwrap(),
    );
    let p3000 = random::permutation(&k0, 3000).unwrap();
    expect_exact(
        &v,
        "perm0_3000_head",
        &p3000.slice(olympus::s![..16]).unwrap(),
    );
}

/// `log`, `log1p` and `erf_inv` give XLA's CPU bits (`tests/data/xla_math_vectors.txt`):
/// random bit patterns, the branch thresholds, the neighbourhoods of 1 and -1, subnormals
/// (read as zero, as JAX on CPU does) and specials. NaN matches any NaN.
#[test]
fn log_log1p_erf_inv_match_xla_bit_for_bit() {
    let v = parse_vectors(include_str!("../data/xla_math_vectors.txt"));
    let input = |name: &str| {
        let w = &v[name];
        let x: Vec<f32> = w.words.iter().map(|&b| f32::from_bits(b)).collect();
        Array::from_slice(&x, &w.shape).unwrap()
    };
    let cases: [(&str, fn(&Array) -> olympus::Result<Array>); 3] = [
        ("log", |x| np::log(x)),
        ("log1p", |x| np::log1p(x)),
        ("erf_inv", |x| lax::unary(lax::UnaryOp::ErfInv, x)),
    ];
    for (name, f) in cases {
        let x = input(&format!("{name}_in"));
        let got = words(&f(&x).unwrap());
        let want = &v[&format!("{name}_out")].words;
        let xin = &v[&format!("{name}_in")].words;
        assert_eq!(got.len(), want.len());
        let nan = |b: u32| f32::from_bits(b).is_nan();
        let bad: Vec<String> = (0..got.len())
            .filter(|&i| got[i] != want[i] && !(nan(got[i]) && nan(want[i])))
            .map(|i| {
                format!(
                    "{name}({:08x}) = {:08x}, XLA {:08x}",
                    xin[i], got[i], want[i]
                )
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{} mismatches: {:?}",
            bad.len(),
            &bad[..bad.len().min(8)]
        );
        // Non-contiguous and jitted: the same bits, NaN for NaN (the sign of a NaN made
        // from a NaN input follows the shader compiler's choice of operand order, which
        // differs between kernels; XLA's is not compared either).
        let same = |a: &[u32]| {
            a.len() == got.len()
                && a.iter()
                    .zip(&got)
                    .all(|(&x, &y)| x == y || (nan(x) && nan(y)))
        };
        let rev = np::flip(&x, None).unwrap();
        let back = np::flip(f(&rev).unwrap(), None).unwrap();
        assert!(same(&words(&back)), "{name}: reversed view");
        let jitted = olympus::jit(move |x: Array| f(&x));
        let j = words(&jitted.call(x.clone()).unwrap());
        assert!(same(&j), "{name}: under jit");
    }
}

/// The `fma` primitive rounds once (IEEE fusedMultiplyAdd) on every adapter, including
/// those whose WGSL `fma` rounds twice: products whose rounding changes the sum,
/// cancellations, ties of the product's rounding, and the operands outside the
/// emulation's range.
#[test]
fn fma_rounds_once() {
    let mut rng = rng();
    let n = 1 << 16;
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    for i in 0..n {
        let fa = f32::from_bits(
            (rng.random::<u32>() & 0x807f_ffff) | ((100 + rng.random::<u32>() % 56) << 23),
        );
        let fb = f32::from_bits(
            (rng.random::<u32>() & 0x807f_ffff) | ((100 + rng.random::<u32>() % 56) << 23),
        );
        let p = f64::from(fa) * f64::from(fb);
        let fc = match i % 4 {
            0 => -(p as f32),
            1 => f32::from_bits(rng.random::<u32>() & 0x7fff_ffff).min(1e30),
            2 => (p * (1.0 + (f64::from(rng.random::<u32>() % 1000) - 500.0) * 1e-9)) as f32,
            _ => -((p as f32) * 0.5f32.powi((rng.random::<u32>() % 30) as i32)),
        };
        a.push(fa);
        b.push(fb);
        c.push(fc);
    }
    // Operands over the whole exponent range: a factor over 1e30 with a small product,
    // tiny products, huge c.
    let any = |rng: &mut rand::rngs::StdRng| {
        f32::from_bits(
            (rng.random::<u32>() & 0x807f_ffff) | ((1 + rng.random::<u32>() % 254) << 23),
        )
    };
    for i in 0..n {
        let (fa, fb) = (any(&mut rng), any(&mut rng));
        let p = f64::from(fa) * f64::from(fb);
        let fc = match i % 4 {
            0 => -(p as f32),
            1 => any(&mut rng),
            2 => (p * (1.0 + (f64::from(rng.random::<u32>() % 1000) - 500.0) * 1e-9)) as f32,
            _ => 0.0,
        };
        a.push(fa);
        b.push(fb);
        c.push(fc);
    }
    let t = 1.0 + 2f32.powi(-12);
    let edge = [
        (2.5e30, 3.3e-33, -(2.5e30f32 * 3.3e-33)),
        (4.989e11, -4.762e-35, 2.376e-23),
        (1e20, 1e-42, 0.0),
        (-3e38, 1e-38, 1.0),
        (t, t, -1.0),
        (-t, t, 1.0),
        (1e-30, 1e-10, 0.0),
        (3.0, 1e-25, -0.0),
        (1e20, 1e20, -1e38),
        (f32::INFINITY, 0.0, 1.0),
        (f32::INFINITY, 2.0, f32::NEG_INFINITY),
        (f32::NAN, 1.0, 1.0),
        (0.0, 0.0, -0.0),
        (f32::MAX, 2.0, -f32::MAX),
    ];
    for (x, y, z) in edge {
        a.push(x);
        b.push(y);
        c.push(z);
    }
    let m = a.len();
    let arr = |v: &[f32]| Array::from_slice(v, &[m]).unwrap();
    let got = lax::bind(lax::Primitive::Fma, &[&arr(&a), &arr(&b), &arr(&c)], None)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut twice = 0;
    for i in 0..m {
        let want = a[i].mul_add(b[i], c[i]);
        twice += usize::from((a[i] * b[i] + c[i]).to_bits() != want.to_bits());
        let p = (f64::from(a[i]) * f64::from(b[i])).abs();
        if p < 1e-60 && c[i].abs() < 1e-12 {
            continue; // the documented gap: products of two tiny factors next to a tiny c
        }
        // A subnormal result may be rounded twice, or flushed to zero by the adapter.
        let subnormal_ok = want.is_subnormal()
            && (got[i] == 0.0 || (got[i].to_bits() as i32 - want.to_bits() as i32).abs() <= 1);
        // Adapters that flush subnormals (NVIDIA through Vulkan: naga cannot ask for their
        // preservation) read subnormal operands as zeros of their sign and flush a
        // subnormal result, as XLA:CPU does.
        let ftz = |v: f32| {
            if v.is_subnormal() {
                0.0f32.copysign(v)
            } else {
                v
            }
        };
        let flushed = ftz(ftz(a[i]).mul_add(ftz(b[i]), ftz(c[i])));
        assert!(
            got[i].to_bits() == want.to_bits()
                || (got[i].is_nan() && want.is_nan())
                || subnormal_ok
                || got[i].to_bits() == flushed.to_bits(),
            "fma({:e}, {:e}, {:e}) = {:e}, want {:e}",
            a[i],
            b[i],
            c[i],
            got[i],
            want
        );
    }
    // The cases do tell one rounding from two.
    assert!(twice > n / 10, "{twice}");
}

/// Differentiating through a sampler: the gradient flows to the parameters; a key in the
/// arguments is data (`argnums`), and asking for its gradient is a clear error, as in JAX.
#[test]
fn gradients_flow_to_parameters_and_not_to_keys() {
    let key = random::key(3).unwrap();
    let w = np::array([0.5f32, -1.0, 2.0]).unwrap();
    let loss = |(w, key): (Array, Array)| {
        let z = random::normal(&key, &[3], DType::Float32)?;
        np::sum(np::multiply(np::multiply(&w, &w)?, &z)?, None, false)
    };
    let dw = olympus::grad_argnums(loss, olympus::Arg::<0>)((w.clone(), key.clone())).unwrap();
    let z = random::normal(&key, &[3], DType::Float32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let want: Vec<f32> = [0.5f32, -1.0, 2.0]
        .iter()
        .zip(&z)
        .map(|(w, z)| 2.0 * w * z)
        .collect();
    assert_eq!(dw.to_vec::<f32>().unwrap(), want);
    let e = olympus::grad(loss)((w, key)).unwrap_err().to_string();
    assert!(
        e.contains("grad") && e.contains("uint32") && e.contains("argnums"),
        "{e}"
    );
}

/// Kolmogorov–Smirnov statistic of samples against a CDF.
fn ks(samples: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = samples.len() as f64;
    samples
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let c = cdf(x);
            (c - i as f64 / n).abs().max((c - (i + 1) as f64 / n).abs())
        })
        .fold(0.0, f64::max)
}

fn normal_cdf(x: f64) -> f64 {
    // erfc-based, accurate to ~1e-7 (enough for a KS bound of 1.95/sqrt(n) ~ 2e-3).
    let z = x / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z.abs());
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if z >= 0.0 {
        1.0 - 0.5 * r
    } else {
        0.5 * r
    }
}

#[test]
fn distributions_on_a_million_samples() {
    let n = 1 << 20;
    let mut r = rng();
    use rand::Rng;
    let key = random::key(r.random::<u32>() as u64).unwrap();
    let keys = random::split(&key, 8).unwrap();
    let k = |i: isize| keys.slice(olympus::s![i, ..]).unwrap();
    // KS critical value at 0.001: 1.95 / sqrt(n).
    let crit = 1.95 / (n as f64).sqrt();
    let stats = |x: &[f64]| {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let v = x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / x.len() as f64;
        (m, v)
    };
    let se = |var: f64| 5.0 * (var / n as f64).sqrt();
    let mut u = random::uniform(&k(0), &[n], 0.0, 1.0, DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, var) = stats(&u);
    assert!((m - 0.5).abs() < se(1.0 / 12.0), "uniform mean {m}");
    assert!(
        (var - 1.0 / 12.0).abs() < 5.0 * (1.0 / 180.0 / n as f64).sqrt(),
        "uniform var {var}"
    );
    assert!(ks(&mut u, |x| x.clamp(0.0, 1.0)) < crit);
    let mut z = random::normal(&k(1), &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, var) = stats(&z);
    assert!(m.abs() < se(1.0), "normal mean {m}");
    assert!(
        (var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(),
        "normal var {var}"
    );
    assert!(ks(&mut z, normal_cdf) < crit);
    let mut e = random::exponential(&k(2), &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, _) = stats(&e);
    assert!((m - 1.0).abs() < se(1.0), "exponential mean {m}");
    assert!(ks(&mut e, |x| 1.0 - (-x.max(0.0)).exp()) < crit);
    let b = random::bernoulli(&k(3), 0.3, &[n])
        .unwrap()
        .astype(DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, _) = stats(&b);
    assert!((m - 0.3).abs() < se(0.21), "bernoulli mean {m}");
    let ri = random::randint(&k(4), &[n], -3, 7, DType::Int32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert!(ri.iter().all(|&x| (-3.0..7.0).contains(&x)));
    let (m, _) = stats(&ri);
    assert!((m - 1.5).abs() < se(99.0 / 12.0), "randint mean {m}");
    let g = random::gumbel(&k(5), &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, _) = stats(&g);
    assert!(
        (m - 0.5772156649).abs() < se(std::f64::consts::PI.powi(2) / 6.0),
        "gumbel mean {m}"
    );
    let l = random::laplace(&k(6), &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, var) = stats(&l);
    assert!(
        m.abs() < se(2.0) && (var - 2.0).abs() < 0.05,
        "laplace {m} {var}"
    );
    let t = random::truncated_normal(&k(7), -1.0, 2.0, &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert!(t.iter().all(|&x| x > -1.0 && x < 2.0));
    let ga = random::gamma(&k(1), 2.5, &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, var) = stats(&ga);
    assert!(
        (m - 2.5).abs() < se(2.5) && (var - 2.5).abs() < 0.05,
        "gamma {m} {var}"
    );
    let gs = random::gamma(&k(2), 0.3, &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, _) = stats(&gs);
    assert!((m - 0.3).abs() < se(0.3), "gamma small alpha {m}");
    let be = random::beta(&k(3), 2.0, 3.0, &[n], DType::Float32)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    let (m, var) = stats(&be);
    assert!(
        (m - 0.4).abs() < se(0.04) && (var - 0.04).abs() < 0.002,
        "beta {m} {var}"
    );
    // float16 output stays in range.
    let h = random::uniform(&k(0), &[4096], 0.0, 1.0, DType::Float16)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert!(h.iter().all(|&x| (0.0..1.0).contains(&x)));
}

#[test]
fn keys_streams_batches_and_errors() {
    let key = random::key(5).unwrap();
    let (a, b) = random::split2(&key).unwrap();
    let ua = random::uniform(&a, &[64], 0.0, 1.0, DType::Float32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let ub = random::uniform(&b, &[64], 0.0, 1.0, DType::Float32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_ne!(ua, ub);
    // The same key gives the same stream, also on a second device (emulated float16 there).
    let dev = olympus::Device::new(olympus::DeviceOptions {
        f16: olympus::F16Mode::Emulated,
        ..Default::default()
    })
    .unwrap();
    let again = olympus::with_device(&dev, || {
        let k = random::key(5).unwrap();
        let (a, _) = random::split2(&k).unwrap();
        (
            random::uniform(&a, &[64], 0.0, 1.0, DType::Float32)
                .unwrap()
                .to_vec::<f32>()
                .unwrap(),
            words(&random::normal(&a, &[64], DType::Float16).unwrap()),
        )
    });
    assert_eq!(again.0, ua);
    assert_eq!(
        again.1,
        words(&random::normal(&a, &[64], DType::Float16).unwrap())
    );
    // A batch of keys gives a batch of samples equal to a loop over the keys.
    let keys = random::split(&key, 3).unwrap();
    let batch = random::normal(&keys, &[5], DType::Float32).unwrap();
    assert_eq!(batch.shape(), &[3, 5]);
    let bw = words(&batch);
    for i in 0..3 {
        let one = random::normal(
            &keys.slice(olympus::s![i, ..]).unwrap(),
            &[5],
            DType::Float32,
        )
        .unwrap();
        assert_eq!(words(&one), bw[i * 5..(i + 1) * 5].to_vec());
    }
    // Permutations are permutations; shuffles move whole slices.
    let p = random::permutation(&key, 3000)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    let mut s = p.clone();
    s.sort_unstable();
    assert_eq!(s, (0..3000).collect::<Vec<_>>());
    let x = np::reshape(np::arange(12).unwrap(), &[4, 3]).unwrap();
    let sh = random::shuffle(&key, &x, 0)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    for row in sh.chunks(3) {
        assert_eq!(row[1], row[0] + 1);
        assert_eq!(row[0] % 3, 0);
    }
    let c = random::choice(&key, 5, &[1000], true, Some(&[0.0, 0.0, 1.0, 0.0, 0.0])).unwrap();
    assert!(c.to_vec::<i32>().unwrap().iter().all(|&i| i == 2));
    let c = random::choice(&key, 4, &[4], false, Some(&[0.1, 0.2, 0.3, 0.4]))
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    let mut cs = c.clone();
    cs.sort_unstable();
    assert_eq!(cs, vec![0, 1, 2, 3]);
    // Errors.
    assert_error(
        random::uniform(&key, &[2], 1.0, 0.0, DType::Float32),
        "uniform",
        "InvalidArgument",
    );
    assert_error(
        random::uniform(&key, &[2], 0.0, 1.0, DType::Int32),
        "uniform",
        "InvalidDType",
    );
    assert_error(
        random::bernoulli(&key, 1.5, &[2]),
        "bernoulli",
        "InvalidArgument",
    );
    assert_error(
        random::randint(&key, &[2], 0, 5, DType::Float32),
        "randint",
        "InvalidDType",
    );
    assert_error(
        random::choice(&key, 3, &[5], false, None),
        "choice",
        "InvalidArgument",
    );
    assert_error(
        random::choice(&key, 3, &[2], true, Some(&[0.5, -0.1, 0.6])),
        "choice",
        "InvalidArgument",
    );
    let e = random::bits(&np::zeros(&[3], DType::UInt32).unwrap(), &[2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("bits") && e.contains("(3,)"), "{e}");
    // Generator: fresh subkeys, reproducible from the seed.
    let mut g1 = random::default_rng(3).unwrap();
    let mut g2 = random::default_rng(3).unwrap();
    assert_eq!(
        g1.normal(&[4], 1.0, 2.0).unwrap().to_vec::<f32>().unwrap(),
        g2.normal(&[4], 1.0, 2.0).unwrap().to_vec::<f32>().unwrap()
    );
    assert_ne!(
        g1.integers(0, 100, &[8]).unwrap().to_vec::<i32>().unwrap(),
        g1.integers(0, 100, &[8]).unwrap().to_vec::<i32>().unwrap()
    );
    assert_error(g1.integers(5, 5, &[1]), "integers", "InvalidArgument");
    let _ = rng();
}

/// Gamma-family samplers run a fixed number of rejection rounds under transformations
/// (values cannot be read there); the samples equal the eager ones, and `vmap` over keys
/// equals a loop over keys.
#[test]
fn gamma_and_beta_work_under_jit_and_vmap() {
    let key = random::key(3).unwrap();
    for alpha in [0.3, 2.5] {
        let eager = random::gamma(&key, alpha, &[64], DType::Float32).unwrap();
        let jitted = olympus::jit(move |k: Array| random::gamma(&k, alpha, &[64], DType::Float32));
        let got = jitted.call(key.clone()).unwrap();
        assert_eq!(words(&got), words(&eager), "gamma({alpha}) under jit");
    }
    let eager = random::beta(&key, 2.0, 3.0, &[16], DType::Float32).unwrap();
    let jitted = olympus::jit(|k: Array| random::beta(&k, 2.0, 3.0, &[16], DType::Float32));
    assert_eq!(
        words(&jitted.call(key.clone()).unwrap()),
        words(&eager),
        "beta under jit"
    );
    let keys = random::split(&key, 3).unwrap();
    let batched = olympus::vmap(
        |k: Array| random::loggamma(&k, 0.7, &[5], DType::Float32),
        0,
        0,
    )(keys.clone())
    .unwrap();
    assert_eq!(batched.shape(), &[3, 5]);
    for i in 0..3 {
        let one = random::loggamma(
            &keys.slice(olympus::s![i as isize]).unwrap(),
            0.7,
            &[5],
            DType::Float32,
        )
        .unwrap();
        let row = batched.slice(olympus::s![i as isize]).unwrap();
        assert_eq!(words(&row), words(&one), "vmap(loggamma) row {i}");
    }
}

/// Keys from traced seeds and data folded in from traced step numbers (a jitted training
/// step deriving its key), bit-identical to JAX 0.10.2:
/// `jax.random.key_data(jax.jit(jax.random.PRNGKey)(jnp.int32(-7)))`,
/// `jax.jit(jax.random.fold_in)(jax.random.PRNGKey(0), jnp.int32(-5))`, and
/// `jax.vmap(lambda d: jax.random.fold_in(k, d))(jnp.arange(3))`.
#[test]
fn keys_and_fold_in_take_traced_arrays() {
    use olympus::{jit, vmap, Array};
    let int = |v: i32| Array::from_slice(&[v], &[]).unwrap();
    let seeded = jit(|s: Array| random::key(&s));
    assert_eq!(
        seeded.call(int(-7)).unwrap().to_vec::<u32>().unwrap(),
        [0, 4294967289]
    );
    assert_eq!(
        seeded.call(int(42)).unwrap().to_vec::<u32>().unwrap(),
        [0, 42]
    );
    assert_eq!(
        random::key(&int(42)).unwrap().to_vec::<u32>().unwrap(),
        [0, 42]
    );
    let k0 = random::key(0).unwrap();
    let fold = jit(|(k, d): (Array, Array)| random::fold_in(&k, &d));
    let got = |d: Array| fold.call((k0.clone(), d)).unwrap().to_vec::<u32>().unwrap();
    assert_eq!(got(int(-5)), [1884968600, 2996023925]);
    assert_eq!(got(int(7)), [2716826189, 292468403]);
    assert_eq!(
        got(int(7)),
        random::fold_in(&k0, 7).unwrap().to_vec::<u32>().unwrap()
    );
    // Narrow integers sign-extend as XLA converts them: int8 -1 is 0xffffffff.
    let m1 = Array::from_slice(&[-1i8], &[]).unwrap();
    assert_eq!(got(m1), [743310391, 3789761811]);
    assert_eq!(
        random::fold_in(&k0, u32::MAX)
            .unwrap()
            .to_vec::<u32>()
            .unwrap(),
        [743310391, 3789761811]
    );
    let steps = np::arange(3).unwrap();
    let per = vmap(|d: Array| random::fold_in(&k0, &d), 0, 0)(steps).unwrap();
    assert_eq!(
        per.to_vec::<u32>().unwrap(),
        [1797259609, 2579123966, 928981903, 3453687069, 4146024105, 2718843009]
    );
    // A seed or data that is not a 0-d integer array is an error naming the function.
    let e = random::key(&np::zeros(&[2], olympus::DType::Int32).unwrap()).unwrap_err();
    assert!(e.to_string().starts_with("key:"), "{e}");
    let e = random::fold_in(&k0, &np::zeros(&[], olympus::DType::Float32).unwrap()).unwrap_err();
    assert!(e.to_string().starts_with("fold_in:"), "{e}");
}

/// `split`, `fold_in` and `randint` of a batch of keys equal a loop over the keys, eagerly,
/// under `jit` (where `split` is one fused kernel, its two words never joined) and under
/// `vmap` over the keys.
#[test]
fn split_fold_in_and_randint_batch_over_keys() {
    let keys = random::split(&random::key(11).unwrap(), 6).unwrap();
    let keys = np::reshape(&keys, &[2, 3, 2]).unwrap();
    let each = |i: isize, j: isize| keys.slice(olympus::s![i, j, ..]).unwrap();
    let split = |k: &Array| random::split(k, 4);
    let fold = |k: &Array| random::fold_in(k, 0xfeed_beef);
    let ints = |k: &Array| random::randint(k, &[5], -7, 1 << 20, DType::Int32);
    let draws: [(&str, &dyn Fn(&Array) -> olympus::Result<Array>); 3] =
        [("split", &split), ("fold_in", &fold), ("randint", &ints)];
    for (name, f) in draws {
        let batch = f(&keys).unwrap();
        let jitted = olympus::jit(|k: Array| f(&k)).call(keys.clone()).unwrap();
        let flat = np::reshape(&keys, &[6, 2]).unwrap();
        let mapped = olympus::vmap(|k: Array| f(&k), 0, 0)(flat.clone()).unwrap();
        let one = f(&each(0, 0)).unwrap();
        let mut want = vec![2, 3];
        want.extend_from_slice(one.shape());
        for r in [&batch, &jitted] {
            assert_eq!((r.shape(), r.dtype()), (&want[..], one.dtype()), "{name}");
        }
        assert_eq!(&mapped.shape()[1..], one.shape(), "vmapped {name}");
        assert_eq!(
            f(&flat).unwrap().shape(),
            mapped.shape(),
            "{name} of [6, 2] keys"
        );
        let per = batch.size() / 6;
        let (bw, jw, mw) = (words(&batch), words(&jitted), words(&mapped));
        for i in 0..2 {
            for j in 0..3 {
                let one = words(&f(&each(i, j)).unwrap());
                let at = (i * 3 + j) as usize * per;
                assert_eq!(bw[at..at + per], one[..], "{name} of key ({i}, {j})");
                assert_eq!(jw[at..at + per], one[..], "jitted {name} of key ({i}, {j})");
                assert_eq!(
                    mw[at..at + per],
                    one[..],
                    "vmapped {name} of key ({i}, {j})"
                );
            }
        }
    }
    assert_eq!(words(&batch_of(&ints, &keys)), words(&ints(&keys).unwrap()));
    // One kernel each under `jit`: `split`, `fold_in`, and `randint` after its split.
    let key = random::key(1).unwrap();
    for (name, f, kernels) in [
        (
            "split",
            &split as &dyn Fn(&Array) -> olympus::Result<Array>,
            1,
        ),
        ("fold_in", &fold, 1),
        ("randint", &ints, 2),
    ] {
        let lowered = olympus::jit(|k: Array| f(&k)).lower(&key).unwrap();
        assert_eq!(lowered.fused_kernels(), kernels, "{name}: {lowered}");
    }
    // No keys, and no batch.
    assert_eq!(random::split(&key, 0).unwrap().shape(), &[0, 2]);
    let none = np::zeros(&[0, 2], DType::UInt32).unwrap();
    assert_eq!(random::split(&none, 3).unwrap().shape(), &[0, 3, 2]);
    assert_eq!(random::fold_in(&none, 1).unwrap().shape(), &[0, 2]);
    assert_eq!(
        random::randint(&none, &[4], 0, 3, DType::UInt32)
            .unwrap()
            .shape(),
        &[0, 4]
    );
    let e = random::split(&key, 1 << 32).unwrap_err().to_string();
    assert!(e.starts_with("split:") && e.contains("2^32"), "{e}");
}

/// `f` of each of a `[2, 3, 2]` batch of keys, stacked.
fn batch_of(f: &dyn Fn(&Array) -> olympus::Result<Array>, keys: &Array) -> Array {
    let rows: Vec<Array> = (0..6)
        .map(|i| {
            let k = keys.slice(olympus::s![i / 3, i % 3, ..]).unwrap();
            f(&k).unwrap()
        })
        .collect();
    let stacked = np::stack(&rows, 0).unwrap();
    let mut shape = vec![2, 3];
    shape.extend_from_slice(rows[0].shape());
    np::reshape(&stacked, shape.as_slice()).unwrap()
}

/// The samplers made of one kernel give their eager bits under `jit` and `vmap` over a
/// batch of keys, in every float dtype.
#[test]
fn fused_samplers_match_under_jit_and_vmap() {
    let keys = random::split(&random::key(17).unwrap(), 4).unwrap();
    for d in [DType::Float32, DType::Float16, DType::BFloat16] {
        let samplers: [(&str, Box<dyn Fn(&Array) -> olympus::Result<Array>>); 5] = [
            (
                "truncated_normal",
                Box::new(move |k| random::truncated_normal(k, -0.5, 2.0, &[3, 5], d)),
            ),
            (
                "exponential",
                Box::new(move |k| random::exponential(k, &[3, 5], d)),
            ),
            ("gumbel", Box::new(move |k| random::gumbel(k, &[3, 5], d))),
            ("laplace", Box::new(move |k| random::laplace(k, &[3, 5], d))),
            (
                "bernoulli",
                Box::new(|k| random::bernoulli(k, 0.3, &[3, 5])),
            ),
        ];
        for (name, f) in &samplers {
            let eager = f(&keys).unwrap();
            let jitted = olympus::jit(|k: Array| f(&k)).call(keys.clone()).unwrap();
            let mapped = olympus::vmap(|k: Array| f(&k), 0, 0)(keys.clone()).unwrap();
            for (how, r) in [("jit", &jitted), ("vmap", &mapped)] {
                assert_eq!(r.shape(), eager.shape(), "{name} {d} {how}");
                assert_eq!(r.dtype(), eager.dtype(), "{name} {d} {how}");
                assert_eq!(words(r), words(&eager), "{name} {d} {how}");
            }
        }
    }
}

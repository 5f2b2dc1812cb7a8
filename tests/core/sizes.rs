//! Size sweeps: every reduction family, the contractions, scans, sorts, the elementwise
//! kernels' vector and tail paths, gathers and scatters at every length 0..=1100 (plain,
//! offset and strided views), across the 2-D shapes whose rows and columns sit at the
//! edges of vectors, chunks, tiles and workgroups, and past one storage binding, against
//! f64 host references.
//!
//! The values are chosen so that every reference is exact in float32 whatever the order
//! of the additions (multiples of 1/64 below 8 in magnitude, products of ±1/2, ±1, ±2):
//! a dropped or doubled element is then a visible difference, never rounding noise. The
//! accuracy of long float32 sums is the business of `reductions.rs`.
//!
//! The full log-spaced sweep past one binding is `#[ignore]`d (minutes on a software
//! adapter): `cargo test --test core sizes::full -- --ignored`.

use crate::common::*;
use half::f16;
use olympus::numpy::Side;
use olympus::{jit, numpy as np, s, vmap, Array, DType, Result};
use rand::rngs::StdRng;
use rand::Rng;

/// Every length 0..=SWEEP is tried.
const SWEEP: usize = 1100;

/// The lengths the sweeps try: every one of 0..=SWEEP, or with `OLYMPUS_SWEEP=sample`
/// (CI's second pass with the GPU profile, whose kernels lavapipe runs several times
/// slower; the first pass and the GL pass try every length) all up to 300, those at and
/// around every multiple of 64 (vectors, chunks, workgroups), and every seventh.
pub(crate) fn sweep_lengths() -> Vec<usize> {
    let sample = std::env::var("OLYMPUS_SWEEP").is_ok_and(|v| v == "sample");
    (0..=SWEEP)
        .filter(|n| !sample || *n <= 300 || n % 64 <= 2 || n % 64 == 63 || n % 7 == 0)
        .collect()
}

/// Multiples of 1/64 in [-8, 8]: sums of up to 2^18 of them are exact in float32.
fn sixty_fourths(r: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| f64::from(r.random_range(-512i32..=512)) / 64.0)
        .collect()
}

/// Multiples of 1/8 in [-4, 4]: products are multiples of 1/64, and sums of up to 2^14
/// of them exact in float32.
fn eighths(r: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| f64::from(r.random_range(-32i32..=32)) / 8.0)
        .collect()
}

/// ±1/2, ±1, ±2: products are exact powers of two.
fn powers(r: &mut StdRng, n: usize) -> Vec<f64> {
    const V: [f64; 6] = [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0];
    (0..n).map(|_| V[r.random_range(0..6)]).collect()
}

/// The views a sweep reads a base array of at least `2 * SWEEP + 8` elements through:
/// aligned, offset by three (no `vec4` path), and every other element from one.
fn views(x: &Array, n: usize) -> Vec<(&'static str, Array, Vec<usize>)> {
    let idx = |start: usize, step: usize| (0..n).map(|i| start + i * step).collect::<Vec<_>>();
    vec![
        ("aligned", x.slice(s![0..n]).unwrap(), idx(0, 1)),
        ("offset", x.slice(s![3..3 + n]).unwrap(), idx(3, 1)),
        ("strided", x.slice(s![1..1 + 2 * n;2]).unwrap(), idx(1, 2)),
    ]
}

fn pick(v: &[f64], idx: &[usize]) -> Vec<f64> {
    idx.iter().map(|&i| v[i]).collect()
}

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let h = s.len() / 2;
    if s.len() % 2 == 1 {
        s[h]
    } else {
        (s[h - 1] + s[h]) / 2.0
    }
}

/// Checks one scalar result: exact, or within `rel` of the reference.
fn check(what: &str, got: Result<Array>, want: f64, dtype: DType, rel: f64) {
    let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.dtype(), dtype, "{what}: dtype");
    let g = got.to_f64_vec().unwrap()[0];
    let ok = if want.is_nan() {
        g.is_nan()
    } else if rel == 0.0 {
        g == want
    } else {
        (g - want).abs() <= rel * want.abs().max(1.0)
    };
    assert!(ok, "{what}: got {g}, want {want}");
}

type Full = fn(&Array, Option<&[isize]>, bool) -> Result<Array>;

/// The float32 families at one length through one view: sum, max and argmax always;
/// with `composites` also min, argmin and those built from several reductions (mean, var,
/// std, logsumexp, count_nonzero, median), which run the same kernels as the first three
/// on the layouts of their intermediates.
fn float32_families(what: &str, x: &Array, v: &[f64], composites: bool) {
    let n = v.len();
    let f = DType::Float32;
    let sum: f64 = v.iter().sum();
    let full: [(&str, Full, f64); 3] = [
        ("sum", |x, a, k| np::sum(x, a, k), sum),
        (
            "max",
            |x, a, k| np::max(x, a, k),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ),
        (
            "min",
            |x, a, k| np::min(x, a, k),
            v.iter().copied().fold(f64::INFINITY, f64::min),
        ),
    ];
    for (name, op, want) in full {
        if !composites && name == "min" {
            continue;
        }
        if n == 0 && name != "sum" {
            eprintln!("{what}: {name} of an empty array");
            assert_error(op(x, None, false), name, "ShapeMismatch");
            continue;
        }
        check(&format!("{what}: {name}"), op(x, None, false), want, f, 0.0);
    }
    if n == 0 {
        eprintln!("{what}: argmax and argmin of an empty array");
        assert_error(np::argmax(x, None, false), "argmax", "ShapeMismatch");
        assert_error(np::argmin(x, None, false), "argmin", "ShapeMismatch");
    } else {
        let i = DType::Int32;
        check(
            &format!("{what}: argmax"),
            np::argmax(x, None, false),
            first_extreme(v, true),
            i,
            0.0,
        );
        if composites {
            check(
                &format!("{what}: argmin"),
                np::argmin(x, None, false),
                first_extreme(v, false),
                i,
                0.0,
            );
        }
    }
    if !composites {
        return;
    }
    let mean = sum / n as f64;
    check(
        &format!("{what}: mean"),
        np::mean(x, None, false),
        f64::from(mean as f32),
        f,
        1.2e-7,
    );
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
    check(
        &format!("{what}: var"),
        np::var(x, None, 0, false),
        var,
        f,
        2e-5,
    );
    check(
        &format!("{what}: std"),
        np::std(x, None, 0, false),
        var.sqrt(),
        f,
        2e-5,
    );
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lse = if n == 0 {
        f64::NEG_INFINITY
    } else {
        m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
    };
    if n == 0 {
        let g = np::logsumexp(x, None, false).unwrap().to_f64_vec().unwrap()[0];
        assert_eq!(g, f64::NEG_INFINITY, "{what}: logsumexp of empty");
    } else {
        check(
            &format!("{what}: logsumexp"),
            np::logsumexp(x, None, false),
            lse,
            f,
            2e-6,
        );
    }
    let nz = v.iter().filter(|&&x| x != 0.0).count() as f64;
    check(
        &format!("{what}: count_nonzero"),
        np::count_nonzero(x, None, false),
        nz,
        DType::Int32,
        0.0,
    );
    check(
        &format!("{what}: median"),
        np::median(x, None, false),
        median(v),
        f,
        1.2e-7,
    );
}

#[test]
fn float32_reductions_at_every_length() {
    let mut r = rng();
    let base = sixty_fourths(&mut r, 2 * SWEEP + 8);
    let x = make(&base, &[base.len()], DType::Float32);
    for n in sweep_lengths() {
        for (view, xv, idx) in views(&x, n) {
            let composites = view == "aligned" || n % 8 == 0;
            float32_families(
                &format!("float32 n={n} {view}"),
                &xv,
                &pick(&base, &idx),
                composites,
            );
        }
    }
}

#[test]
fn products_and_nan_aware_reductions_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let p = powers(&mut r, 2 * SWEEP + 8);
    let xp = make(&p, &[p.len()], f);
    // About one NaN in 40, so short views often hold none.
    let mut q = sixty_fourths(&mut r, 2 * SWEEP + 8);
    for e in q.iter_mut() {
        if r.random_range(0..40) == 0 {
            *e = f64::NAN;
        }
    }
    let xq = make(&q, &[q.len()], f);
    for n in sweep_lengths() {
        for ((view, pv, idx), (_, qv, _)) in views(&xp, n).into_iter().zip(views(&xq, n)) {
            let what = format!("n={n} {view}");
            let want: f64 = idx.iter().map(|&i| p[i]).product();
            check(
                &format!("{what}: prod"),
                np::prod(&pv, None, false),
                want,
                f,
                0.0,
            );
            let v = pick(&q, &idx);
            let clean: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
            let any_nan = clean.len() < v.len();
            if n > 0 {
                // NaN propagates through max, sum and argmax (the first NaN wins).
                let want = if any_nan {
                    f64::NAN
                } else {
                    clean.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                };
                check(
                    &format!("{what}: max with NaN"),
                    np::max(&qv, None, false),
                    want,
                    f,
                    0.0,
                );
                let want = if any_nan {
                    f64::NAN
                } else {
                    clean.iter().sum()
                };
                check(
                    &format!("{what}: sum with NaN"),
                    np::sum(&qv, None, false),
                    want,
                    f,
                    0.0,
                );
                check(
                    &format!("{what}: argmax with NaN"),
                    np::argmax(&qv, None, false),
                    first_extreme(&v, true),
                    DType::Int32,
                    0.0,
                );
            }
            // The nan- variants are masks in front of the same reductions: every length
            // aligned, every fourth through the other views.
            if view != "aligned" && n % 4 != 0 {
                continue;
            }
            check(
                &format!("{what}: nansum"),
                np::nansum(&qv, None, false),
                clean.iter().sum(),
                f,
                0.0,
            );
            let nanmean = clean.iter().sum::<f64>() / clean.len() as f64;
            check(
                &format!("{what}: nanmean"),
                np::nanmean(&qv, None, false),
                f64::from(nanmean as f32),
                f,
                1.2e-7,
            );
            if !clean.is_empty() {
                let mx = clean.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mn = clean.iter().copied().fold(f64::INFINITY, f64::min);
                check(
                    &format!("{what}: nanmax"),
                    np::nanmax(&qv, None, false),
                    mx,
                    f,
                    0.0,
                );
                check(
                    &format!("{what}: nanmin"),
                    np::nanmin(&qv, None, false),
                    mn,
                    f,
                    0.0,
                );
            }
        }
    }
}

#[test]
fn integer_float16_and_bool_reductions_at_every_length() {
    let mut r = rng();
    let len = 2 * SWEEP + 8;
    let ints: Vec<i32> = (0..len).map(|_| r.random()).collect();
    let xi = Array::from_slice(&ints, &[len]).unwrap();
    let uints: Vec<u32> = (0..len).map(|_| r.random()).collect();
    let xu = Array::from_slice(&uints, &[len]).unwrap();
    let halves = sixty_fourths(&mut r, len);
    let xh = make(&halves, &[len], DType::Float16);
    // Sparse falses (for `all`) and sparse trues (for `any`).
    let sparse: Vec<bool> = (0..len).map(|_| r.random_range(0..300) == 0).collect();
    let xs = Array::from_slice(&sparse, &[len]).unwrap();
    let xd = np::logical_not(&xs).unwrap();
    for n in sweep_lengths() {
        let views_i = views(&xi, n);
        let views_u = views(&xu, n);
        let views_h = views(&xh, n);
        let views_s = views(&xs, n);
        let views_d = views(&xd, n);
        for k in 0..3 {
            let (view, ref iv, ref idx) = views_i[k];
            let what = format!("n={n} {view}");
            let i = DType::Int32;
            let vi: Vec<i32> = idx.iter().map(|&j| ints[j]).collect();
            let sum = vi.iter().fold(0i32, |a, &b| a.wrapping_add(b));
            let prod = vi.iter().fold(1i32, |a, &b| a.wrapping_mul(b));
            check(
                &format!("{what}: int32 sum"),
                np::sum(iv, None, false),
                f64::from(sum),
                i,
                0.0,
            );
            // The rest every length aligned, every fourth through the other views.
            let full = view == "aligned" || n % 4 == 0;
            if full {
                check(
                    &format!("{what}: int32 prod"),
                    np::prod(iv, None, false),
                    f64::from(prod),
                    i,
                    0.0,
                );
            }
            if n > 0 && full {
                let vf: Vec<f64> = vi.iter().map(|&v| f64::from(v)).collect();
                check(
                    &format!("{what}: int32 max"),
                    np::max(iv, None, false),
                    vf.iter().copied().fold(f64::MIN, f64::max),
                    i,
                    0.0,
                );
                check(
                    &format!("{what}: int32 argmin"),
                    np::argmin(iv, None, false),
                    first_extreme(&vf, false),
                    i,
                    0.0,
                );
            }
            let (_, ref uv, _) = views_u[k];
            let vu: Vec<u32> = idx.iter().map(|&j| uints[j]).collect();
            let u = DType::UInt32;
            let sum = vu.iter().fold(0u32, |a, &b| a.wrapping_add(b));
            check(
                &format!("{what}: uint32 sum"),
                np::sum(uv, None, false),
                f64::from(sum),
                u,
                0.0,
            );
            if n > 0 && full {
                let vf: Vec<f64> = vu.iter().map(|&v| f64::from(v)).collect();
                check(
                    &format!("{what}: uint32 min"),
                    np::min(uv, None, false),
                    vf.iter().copied().fold(f64::MAX, f64::min),
                    u,
                    0.0,
                );
                check(
                    &format!("{what}: uint32 argmax"),
                    np::argmax(uv, None, false),
                    first_extreme(&vf, true),
                    i,
                    0.0,
                );
            }
            // float16 accumulates in float32 and rounds once.
            let (_, ref hv, _) = views_h[k];
            let vh = pick(&halves, idx);
            let h = DType::Float16;
            let sum: f64 = vh.iter().sum();
            check(
                &format!("{what}: float16 sum"),
                np::sum(hv, None, false),
                f16::from_f64(sum).to_f64(),
                h,
                0.0,
            );
            if full {
                let mean = f16::from_f32(sum as f32 / n as f32).to_f64();
                check(
                    &format!("{what}: float16 mean"),
                    np::mean(hv, None, false),
                    mean,
                    h,
                    1e-3,
                );
            }
            let (_, ref sv, _) = views_s[k];
            let (_, ref dv, _) = views_d[k];
            let any = idx.iter().any(|&j| sparse[j]);
            let b = DType::Bool;
            check(
                &format!("{what}: any"),
                np::any(sv, None, false),
                f64::from(u8::from(any)),
                b,
                0.0,
            );
            check(
                &format!("{what}: all"),
                np::all(dv, None, false),
                f64::from(u8::from(!any)),
                b,
                0.0,
            );
            let count = idx.iter().filter(|&&j| sparse[j]).count();
            if !full {
                continue;
            }
            check(
                &format!("{what}: count_nonzero of bool"),
                np::count_nonzero(sv, None, false),
                count as f64,
                i,
                0.0,
            );
        }
    }
}

/// The 8- and 16-bit dtypes, packed four or two to a word: at every length through the
/// three views (an offset of three starts mid-word, a stride of two reads every other
/// lane), the elementwise kernel's packed reads and its whole-word writes at the tail, and
/// the widening into the 32-bit reduction, scan and sort kernels and back.
#[test]
fn narrow_dtypes_at_every_length() {
    let mut r = rng();
    let len = 2 * SWEEP + 8;
    let narrow = [
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::BFloat16,
    ];
    for d in narrow {
        // bfloat16: multiples of 1/8 in [-8, 8], whose sums float32 holds exactly.
        let values = |r: &mut StdRng| -> Vec<f64> {
            if d == DType::BFloat16 {
                (0..len)
                    .map(|_| f64::from(r.random_range(-64i32..=64)) / 8.0)
                    .collect()
            } else {
                random_values(r, d, len)
            }
        };
        let (a, b) = (values(&mut r), values(&mut r));
        let (xa, xb) = (make(&a, &[len], d), make(&b, &[len], d));
        // JAX's sum of small integers counts in 32 bits.
        let acc = match d {
            DType::Int8 | DType::Int16 => DType::Int32,
            DType::UInt8 | DType::UInt16 => DType::UInt32,
            _ => d,
        };
        for n in sweep_lengths() {
            for ((view, va, ia), (_, vb, ib)) in views(&xa, n).into_iter().zip(views(&xb, n)) {
                let what = format!("{d} n={n} {view}");
                let av = pick(&a, &ia);
                let want: Vec<f64> = av
                    .iter()
                    .zip(pick(&b, &ib))
                    .map(|(&x, y)| add_ref(x, y, d))
                    .collect();
                assert_close(
                    &format!("{what}: add"),
                    &np::add(&va, &vb).unwrap(),
                    &want,
                    d,
                    EXACT,
                );
                // The rest run the 32-bit kernels the other sweeps try at every length, on
                // the widened values: sums every length aligned and every third otherwise,
                // extremes and scans every fifth and fifteenth, sorts every eleventh and
                // thirty-third (odd steps, so the views end at every offset into a word).
                let every = |k: usize| n % if view == "aligned" { k } else { 3 * k } == 0;
                if !every(1) {
                    continue;
                }
                check(
                    &format!("{what}: sum"),
                    np::sum(&va, None, false),
                    round_to(av.iter().sum(), acc),
                    acc,
                    0.0,
                );
                if !every(5) {
                    continue;
                }
                if n > 0 {
                    check(
                        &format!("{what}: max"),
                        np::max(&va, None, false),
                        av.iter().copied().fold(f64::MIN, f64::max),
                        d,
                        0.0,
                    );
                    check(
                        &format!("{what}: argmin"),
                        np::argmin(&va, None, false),
                        first_extreme(&av, false),
                        DType::Int32,
                        0.0,
                    );
                }
                // cumsum keeps the dtype: integers wrap, bfloat16 rounds after every
                // addition, in XLA's order.
                assert_close(
                    &format!("{what}: cumsum"),
                    &np::cumsum(&va, None).unwrap(),
                    &xla_scan(&av, d, false),
                    d,
                    EXACT,
                );
                if !every(11) {
                    continue;
                }
                let order = host_argsort_by(&av, false);
                let sorted: Vec<f64> = order.iter().map(|&i| av[i]).collect();
                assert_close(
                    &format!("{what}: sort"),
                    &np::sort(&va, None).unwrap(),
                    &sorted,
                    d,
                    EXACT,
                );
                let order: Vec<f64> = order.iter().map(|&i| i as f64).collect();
                assert_close(
                    &format!("{what}: argsort"),
                    &np::argsort(&va, None).unwrap(),
                    &order,
                    DType::Int32,
                    EXACT,
                );
            }
        }
    }
}

/// Rows and columns at the edges of vectors (4), row chunks (64), column chunks (16)
/// and workgroups (256 threads).
const EDGES: [usize; 13] = [1, 2, 3, 5, 31, 64, 96, 100, 127, 128, 129, 1000, 5000];

/// Sum, max, argmax and mean along each axis and over both, of contiguous and transposed
/// `(rows, cols)` arrays; shapes of more than `limit` elements are skipped.
fn two_d_sweep(limit: usize) {
    let mut r = rng();
    let f = DType::Float32;
    for &rows in &EDGES {
        for &cols in &EDGES {
            if rows * cols > limit {
                continue;
            }
            let v = sixty_fourths(&mut r, rows * cols);
            let at = |i: usize, j: usize| v[i * cols + j];
            let plain = make(&v, &[rows, cols], f);
            // The same values, stored transposed and read through a transposed view.
            let t: Vec<f64> = (0..cols * rows).map(|e| at(e % rows, e / rows)).collect();
            let transposed = np::transpose(make(&t, &[cols, rows], f), None).unwrap();
            for (layout, x) in [("contiguous", &plain), ("transposed", &transposed)] {
                let what = format!("({rows}, {cols}) {layout}");
                for axis in [0usize, 1] {
                    let (outer, inner) = if axis == 0 {
                        (cols, rows)
                    } else {
                        (rows, cols)
                    };
                    let line = |o: usize| -> Vec<f64> {
                        (0..inner)
                            .map(|e| if axis == 0 { at(e, o) } else { at(o, e) })
                            .collect()
                    };
                    let ax = [axis as isize];
                    let sums: Vec<f64> = (0..outer).map(|o| line(o).iter().sum()).collect();
                    assert_close(
                        &format!("{what}: sum axis {axis}"),
                        &np::sum(x, Some(&ax), false).unwrap(),
                        &sums,
                        f,
                        EXACT,
                    );
                    let maxs: Vec<f64> = (0..outer)
                        .map(|o| line(o).into_iter().fold(f64::MIN, f64::max))
                        .collect();
                    assert_close(
                        &format!("{what}: max axis {axis}"),
                        &np::max(x, Some(&ax), false).unwrap(),
                        &maxs,
                        f,
                        EXACT,
                    );
                    let args: Vec<f64> =
                        (0..outer).map(|o| first_extreme(&line(o), true)).collect();
                    assert_close(
                        &format!("{what}: argmax axis {axis}"),
                        &np::argmax(x, Some(axis as isize), false).unwrap(),
                        &args,
                        DType::Int32,
                        EXACT,
                    );
                    let means: Vec<f64> = sums
                        .iter()
                        .map(|s| f64::from((s / inner as f64) as f32))
                        .collect();
                    assert_close(
                        &format!("{what}: mean axis {axis}"),
                        &np::mean(x, Some(&ax), false).unwrap(),
                        &means,
                        f,
                        1.0,
                    );
                }
                check(
                    &format!("{what}: sum"),
                    np::sum(x, None, false),
                    v.iter().sum(),
                    f,
                    0.0,
                );
                check(
                    &format!("{what}: argmin"),
                    np::argmin(x, None, false),
                    first_extreme(&v, false),
                    DType::Int32,
                    0.0,
                );
            }
        }
    }
}

#[test]
fn reductions_along_each_axis_of_edge_shapes() {
    two_d_sweep(1 << 20);
}

#[test]
fn fused_batched_and_transposed_reductions_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let base = sixty_fourths(&mut r, SWEEP + 8);
    let x = make(&base, &[base.len()], f);
    // jit fuses the producer chain into the reduction's first pass.
    let fused = jit(|x: Array| -> Result<(Array, Array, Array)> {
        let y = np::add(np::multiply(&x, 2.0)?, 1.0)?;
        Ok((
            np::sum(&y, None, false)?,
            np::max(&y, None, false)?,
            np::argmin(&y, None, false)?,
        ))
    });
    for n in 1..=SWEEP {
        let v: Vec<f64> = base[..n].iter().map(|x| 2.0 * x + 1.0).collect();
        let xv = x.slice(s![0..n]).unwrap();
        let (sum, max, arg) = fused.call(xv).unwrap();
        let what = format!("jit n={n}");
        check(&format!("{what}: sum"), Ok(sum), v.iter().sum(), f, 0.0);
        check(
            &format!("{what}: max"),
            Ok(max),
            v.iter().copied().fold(f64::MIN, f64::max),
            f,
            0.0,
        );
        check(
            &format!("{what}: argmin"),
            Ok(arg),
            first_extreme(&v, false),
            DType::Int32,
            0.0,
        );
    }
    // vmap of a full reduction over rows of every length (three rows at a time).
    let rows = vmap(|x: Array| np::sum(&x, None, false), 0, 0);
    for n in (0..=SWEEP).step_by(3) {
        let v = sixty_fourths(&mut r, 3 * n);
        let got = rows(make(&v, &[3, n], f)).unwrap();
        let want: Vec<f64> = (0..3).map(|i| v[i * n..(i + 1) * n].iter().sum()).collect();
        assert_close(&format!("vmap sum n={n}"), &got, &want, f, EXACT);
    }
    // grad's transpose of a broadcast is a sum over the broadcast axis.
    let g = olympus::grad(|(b, y): (Array, Array)| {
        let n = y.shape()[0];
        np::sum(
            np::multiply(np::broadcast_to(&b, &[n, 3])?, &y)?,
            None,
            false,
        )
    });
    for n in (1..=SWEEP).step_by(7) {
        let y = sixty_fourths(&mut r, 3 * n);
        let b = make(&[1.0, 2.0, 3.0], &[3], f);
        let (gb, _) = g((b, make(&y, &[n, 3], f))).unwrap();
        let want: Vec<f64> = (0..3).map(|j| (0..n).map(|i| y[i * 3 + j]).sum()).collect();
        assert_close(&format!("grad n={n}"), &gb, &want, f, EXACT);
    }
}

#[test]
fn contractions_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let a = eighths(&mut r, 5 * SWEEP + 8);
    let b = eighths(&mut r, 5 * SWEEP + 8);
    let xa = make(&a, &[a.len()], f);
    let xb = make(&b, &[b.len()], f);
    for k in 0..=SWEEP {
        let (_, va, ia) = views(&xa, k).swap_remove(0);
        let (_, vb, ib) = views(&xb, k).swap_remove(1);
        let want: f64 = ia.iter().zip(&ib).map(|(&i, &j)| a[i] * b[j]).sum();
        check(&format!("dot k={k}"), np::dot(&va, &vb), want, f, 0.0);
        if k % 5 == 0 {
            check(&format!("vdot k={k}"), np::vdot(&va, &vb), want, f, 0.0);
            check(&format!("inner k={k}"), np::inner(&va, &vb), want, f, 0.0);
        }
        // (3, k) @ (k, 5): the matmul kernel's `k` loop and its single-step tail.
        let ma = make(&a[..3 * k], &[3, k], f);
        let mb = make(&b[..5 * k], &[k, 5], f);
        let want: Vec<f64> = (0..15)
            .map(|e| (0..k).map(|t| a[(e / 5) * k + t] * b[t * 5 + e % 5]).sum())
            .collect();
        assert_close(
            &format!("matmul (3, {k}) @ ({k}, 5)"),
            &np::matmul(&ma, &mb).unwrap(),
            &want,
            f,
            EXACT,
        );
        if k % 11 == 0 {
            let e = np::einsum("ij,jk->ik", [&ma, &mb]).unwrap();
            assert_close(&format!("einsum k={k}"), &e, &want, f, EXACT);
            let t = np::tensordot(&ma, &mb, &[1], &[0]).unwrap();
            assert_close(&format!("tensordot k={k}"), &t, &want, f, EXACT);
        }
    }
}

/// Reductions and matrix-vector products whose elementwise consumers `jit` computes in
/// their kernel (an epilogue) at every length: row sums of `[n, 5]` (read from a
/// buffer), column sums of `[5, n]` (the column kernel's vector path where `n` is a
/// multiple of four), a count of positives (a fused int32 reduction), products
/// `[n, 7] @ [7]` and with `[n, 7]` transposed twice (the column kernel), each with
/// consumers of their own reading strided, offset and broadcast operands, with bool and
/// int32 outputs; rows longer than a CPU adapter's one pass (the epilogue in the last
/// pass of a tree). Each against its f64 value and the bits of the same function run
/// eagerly.
#[test]
fn reductions_with_consumers_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    type Outs = (Array, Array, Array, Array, Array, Array);
    let step = |(x, xt, w, v, y, z): Outs| -> Result<Outs> {
        let rows = np::add(np::multiply(np::sum(&x, Some(&[1]), false)?, 2.0)?, &y)?;
        let cols = np::subtract(np::multiply(np::sum(&xt, Some(&[0]), false)?, &z)?, 1.0)?;
        let mv = np::subtract(np::multiply(np::dot(&w, &v)?, 0.5)?, 3.0)?;
        let wt = np::transpose(np::transpose(&w, None)?.copy()?, None)?;
        let tmv = np::greater(np::dot(&wt, &v)?, z.slice(s![..;-1])?)?;
        let counts = np::add(np::sum(np::greater(&x, 0.0)?, Some(&[1]), false)?, 1)?;
        Ok((rows, cols, mv, tmv, counts, w))
    };
    let jitted = jit(step);
    let long = [4095, 4096, 4097, 8191, 70_001];
    for n in sweep_lengths().into_iter().chain(long) {
        let (xv, wv) = (sixty_fourths(&mut r, 5 * n), eighths(&mut r, 7 * n));
        let (vv, yv) = (eighths(&mut r, 7), eighths(&mut r, 3 * n + 1));
        let x = make(&xv, &[n, 5], f);
        let xt = np::transpose(&x, None).unwrap().copy().unwrap();
        let w = make(&wv, &[n, 7], f);
        let v = make(&vv, &[7], f);
        // Every other element, and a run from an offset: operands of the consumers.
        let base = make(&yv, &[3 * n + 1], f);
        let y = base.slice(s![..2 * n;2]).unwrap();
        let z = base.slice(s![2 * n + 1..]).unwrap();
        let args = (x, xt, w, v, y, z);
        let got = jitted.call(args.clone()).unwrap();
        let eager = step(args).unwrap();
        let (g, e) = (&got, &eager);
        let pairs = [
            (&g.0, &e.0),
            (&g.1, &e.1),
            (&g.2, &e.2),
            (&g.3, &e.3),
            (&g.4, &e.4),
        ];
        for (i, (a, b)) in pairs.into_iter().enumerate() {
            assert_eq!(
                words(a),
                words(b),
                "n={n}: output {i} under jit and eagerly"
            );
        }
        let y: Vec<f64> = (0..n).map(|i| yv[2 * i]).collect();
        let z: Vec<f64> = yv[2 * n + 1..].to_vec();
        let row_sum = |i: usize| xv[i * 5..i * 5 + 5].iter().sum::<f64>();
        let dot = |i: usize| (0..7).map(|j| wv[i * 7 + j] * vv[j]).sum::<f64>();
        let want: Vec<f64> = (0..n).map(|i| row_sum(i) * 2.0 + y[i]).collect();
        assert_close(&format!("rows n={n}"), &g.0, &want, f, EXACT);
        let want: Vec<f64> = (0..n).map(|i| row_sum(i) * z[i] - 1.0).collect();
        assert_close(&format!("columns n={n}"), &g.1, &want, f, EXACT);
        let want: Vec<f64> = (0..n).map(|i| dot(i) * 0.5 - 3.0).collect();
        assert_close(&format!("matvec n={n}"), &g.2, &want, f, EXACT);
        let want: Vec<f64> = (0..n)
            .map(|i| f64::from(u8::from(dot(i) > z[n - 1 - i])))
            .collect();
        assert_close(
            &format!("transposed matvec n={n}"),
            &g.3,
            &want,
            DType::Bool,
            EXACT,
        );
        let want: Vec<f64> = (0..n)
            .map(|i| 1.0 + xv[i * 5..i * 5 + 5].iter().filter(|&&a| a > 0.0).count() as f64)
            .collect();
        assert_close(&format!("counts n={n}"), &g.4, &want, DType::Int32, EXACT);
    }
    // Rows past a CPU adapter's one pass.
    for k in long {
        let xv = sixty_fourths(&mut r, 3 * k);
        let x = make(&xv, &[3, k], f);
        let y = make(&[1.0, 2.0, 3.0], &[3], f);
        let g = jit(|(x, y): (Array, Array)| np::multiply(np::sum(&x, Some(&[1]), false)?, &y));
        let got = g.call((x, y)).unwrap();
        let want: Vec<f64> = (0..3)
            .map(|i| xv[i * k..(i + 1) * k].iter().sum::<f64>() * (i + 1) as f64)
            .collect();
        assert_close(&format!("long rows k={k}"), &got, &want, f, EXACT);
    }
}

/// Matrix-vector products with a transposed matrix (a backward pass's `W.T @ g` and
/// `g @ W.T`), which sum along the matrix's stored rows rather than through its
/// strides, at every `k` (widths across the column kernel's vectors), batched at every
/// seventh, and at lengths around a CPU adapter's one-pass limit; and plain row and
/// column sums at those lengths. The vector starts at an offset of 0-4 elements in its
/// buffer: the reductions read it at their row's position (`Walk`), plus the offset.
#[test]
fn transposed_matrix_vector_products_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let t = |x: &Array| np::transpose(x, None).unwrap();
    let long = [2047, 2048, 2049, 4095, 4096, 4097, 8191];
    for k in sweep_lengths().into_iter().chain(long) {
        let m = [1, 3, 4, 8, 13, 64, 100][k % 7];
        // w: [k, m] stored; w.T @ v: [m].
        let (w, v) = (eighths(&mut r, k * m), eighths(&mut r, k + 4));
        let off = k % 5;
        let xw = make(&w, &[k, m], f);
        let xv = make(&v, &[k + 4], f).slice(s![off..off + k]).unwrap();
        let v = &v[off..off + k];
        let want: Vec<f64> = (0..m)
            .map(|j| (0..k).map(|i| w[i * m + j] * v[i]).sum())
            .collect();
        let got = np::matmul(t(&xw), &xv).unwrap();
        assert_close(&format!("w.T @ v, w ({k}, {m})"), &got, &want, f, EXACT);
        // u: [m, k] stored; v @ u.T: [m].
        let u = eighths(&mut r, m * k);
        let xu = make(&u, &[m, k], f);
        let want: Vec<f64> = (0..m)
            .map(|j| (0..k).map(|i| v[i] * u[j * k + i]).sum())
            .collect();
        let got = np::matmul(&xv, t(&xu)).unwrap();
        assert_close(&format!("v @ u.T, u ({m}, {k})"), &got, &want, f, EXACT);
        if k % 7 == 0 || long.contains(&k) {
            // Two batch entries: [2, k, m] -> [2, m, k] @ [2, k, 1].
            let w2 = eighths(&mut r, 2 * k * m);
            let v2 = eighths(&mut r, 2 * k);
            let xw2 = np::transpose(make(&w2, &[2, k, m], f), Some(&[0, 2, 1])).unwrap();
            let got = np::matmul(&xw2, make(&v2, &[2, k, 1], f)).unwrap();
            let want: Vec<f64> = (0..2 * m)
                .map(|e| {
                    let (b, j) = (e / m, e % m);
                    (0..k)
                        .map(|i| w2[(b * k + i) * m + j] * v2[b * k + i])
                        .sum()
                })
                .collect();
            assert_close(
                &format!("batched w.T @ v ({k}, {m})"),
                &got,
                &want,
                f,
                EXACT,
            );
        }
        if long.contains(&k) || k % 97 == 0 {
            let rows: Vec<f64> = (0..k).map(|j| w[j * m..(j + 1) * m].iter().sum()).collect();
            let cols: Vec<f64> = (0..m).map(|j| (0..k).map(|i| w[i * m + j]).sum()).collect();
            let got = np::sum(&xw, Some(&[1]), false).unwrap();
            assert_close(&format!("row sums ({k}, {m})"), &got, &rows, f, EXACT);
            let got = np::sum(&xw, Some(&[0]), false).unwrap();
            assert_close(&format!("column sums ({k}, {m})"), &got, &cols, f, EXACT);
            let got = np::sum(t(&xw), Some(&[1]), false).unwrap();
            assert_close(
                &format!("transposed row sums ({m}, {k})"),
                &got,
                &cols,
                f,
                EXACT,
            );
        }
    }
}

#[test]
fn matmul_at_tile_edges() {
    let mut r = rng();
    let f = DType::Float32;
    let edges = [
        1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
    ];
    for &m in &edges {
        for &n in &edges {
            for k in [1usize, 3, 4, 5, 67] {
                let a: Vec<f64> = (0..m * k)
                    .map(|_| f64::from(r.random_range(-8i32..=8)))
                    .collect();
                let b: Vec<f64> = (0..k * n)
                    .map(|_| f64::from(r.random_range(-8i32..=8)))
                    .collect();
                let want: Vec<f64> = (0..m * n)
                    .map(|e| (0..k).map(|t| a[(e / n) * k + t] * b[t * n + e % n]).sum())
                    .collect();
                // Contiguous operands, and the left one read through a transposed view.
                let xa = make(&a, &[m, k], f);
                let xb = make(&b, &[k, n], f);
                assert_close(
                    &format!("({m}, {k}) @ ({k}, {n})"),
                    &np::matmul(&xa, &xb).unwrap(),
                    &want,
                    f,
                    EXACT,
                );
                let at: Vec<f64> = (0..k * m).map(|e| a[(e % m) * k + e / m]).collect();
                let ta = np::transpose(make(&at, &[k, m], f), None).unwrap();
                assert_close(
                    &format!("({m}, {k})ᵀ @ ({k}, {n})"),
                    &np::matmul(&ta, &xb).unwrap(),
                    &want,
                    f,
                    EXACT,
                );
            }
        }
    }
}

/// Elementwise kernels reading broadcast operands at every length: a row repeated over
/// rows (`x[3, n] + row[n]`), a column spread across `n` columns (`x[3, n] + col[3, 1]`),
/// a vector's elements each spread over 20 (`x[n, 20] + v[n, 1]`) and blocks repeated
/// over a middle axis (`x[2, 3, n] + b[2, 1, n]`), each operand read from an offset of
/// 0-4 elements, eagerly and (with a second operation fused) under `jit`; and the row
/// case past 4M elements, where a CPU adapter's threads write their vectors out. On a
/// CPU adapter a thread finds its place in the run, spread or block once and steps
/// through its vectors from there (`Walk::Vectors`). Against the host's exact sums. Also
/// strided operands (a transposed `[n, 3]`, every other column of `[n, 40]`, a
/// transposed `[n, 20, 2]`: offsets stepped along rows), iotas along every axis of `[3,
/// n]`, `[n, 20]` and `[2, n, 20]` (each a division and a remainder of the index), and
/// random bits of `[3, n]` and `[2, n, 20]` (whose counters are iotas), which are the
/// bits of the flat shape.
#[test]
fn broadcast_operands_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let jitted = jit(|(x, y): (Array, Array)| np::multiply(np::add(&x, &y)?, 2.0));
    let long = 1 << 20;
    for n in sweep_lengths().into_iter().chain([long + 3]) {
        let off = n % 5;
        // An operand of `shape` whose values start `off` elements into their buffer.
        let mut operand = |shape: &[usize]| {
            let len: usize = shape.iter().product();
            let v = eighths(&mut r, off + len);
            let dims: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
            let a = make(&v, &[off + len], f).slice(s![off..]).unwrap();
            (np::reshape(&a, &dims[..]).unwrap(), v[off..].to_vec())
        };
        let mut cases: Vec<(Vec<usize>, Vec<usize>, Box<dyn Fn(usize) -> usize>)> = vec![
            // (x's shape, the operand's shape, the operand's element of x's element e)
            (vec![3, n], vec![n], Box::new(move |e| e % n.max(1))),
            (vec![3, n], vec![3, 1], Box::new(move |e| e / n.max(1))),
            (vec![n, 20], vec![n, 1], Box::new(|e| e / 20)),
            (
                vec![2, 3, n],
                vec![2, 1, n],
                Box::new(move |e| e / (3 * n).max(1) * n + e % n.max(1)),
            ),
        ];
        if n > long {
            cases.truncate(1);
            cases[0].0 = vec![4, n];
        }
        for (xs, ys, at) in cases {
            let (x, xv) = operand(&xs);
            let (y, yv) = operand(&ys);
            let sums: Vec<f64> = (0..xv.len()).map(|e| xv[e] + yv[at(e)]).collect();
            let what = format!("{xs:?} + {ys:?} at offset {off}");
            assert_close(&what, &np::add(&x, &y).unwrap(), &sums, f, EXACT);
            let twice: Vec<f64> = sums.iter().map(|s| 2.0 * s).collect();
            let got = jitted.call((x, y)).unwrap();
            assert_close(&format!("jitted {what}"), &got, &twice, f, EXACT);
        }
        if n > long {
            continue;
        }
        // Strided operands: a transposed matrix, every other column, a transposed batch.
        let (x, xv) = operand(&[3, n]);
        let (y, yv) = operand(&[n, 3]);
        let strided = [
            (
                x,
                xv,
                np::transpose(&y, None).unwrap(),
                (0..3 * n)
                    .map(|e| yv[e % n * 3 + e / n])
                    .collect::<Vec<f64>>(),
            ),
            {
                let (x, xv) = operand(&[n, 20]);
                let (z, zv) = operand(&[n, 40]);
                let every = z.slice(s![.., ..;2]).unwrap();
                (x, xv, every, (0..20 * n).map(|e| zv[2 * e]).collect())
            },
            {
                let (x, xv) = operand(&[2, n, 20]);
                let (w, wv) = operand(&[n, 20, 2]);
                let t = np::transpose(&w, Some(&[2, 0, 1])).unwrap();
                let at = |e: usize| (e % (20 * n)) * 2 + e / (20 * n);
                (x, xv, t, (0..40 * n).map(|e| wv[at(e)]).collect())
            },
        ];
        for (x, xv, y, yv) in strided {
            let sums: Vec<f64> = xv.iter().zip(&yv).map(|(a, b)| a + b).collect();
            let what = format!(
                "{:?} + a strided {:?} at offset {off}",
                x.shape(),
                y.shape()
            );
            assert_close(&what, &np::add(&x, &y).unwrap(), &sums, f, EXACT);
            let twice: Vec<f64> = sums.iter().map(|s| 2.0 * s).collect();
            let got = jitted.call((x, y)).unwrap();
            assert_close(&format!("jitted {what}"), &got, &twice, f, EXACT);
        }
        for shape in [vec![3, n], vec![n, 20], vec![2, n, 20]] {
            for dim in 0..shape.len() {
                let got = olympus::lax::iota(DType::Int32, &shape, dim, None).unwrap();
                let stride: usize = shape[dim + 1..].iter().product();
                let size: usize = shape.iter().product();
                let want: Vec<f64> = (0..size)
                    .map(|e| (e / stride % shape[dim]) as f64)
                    .collect();
                let what = format!("iota {shape:?} along {dim}");
                assert_close(&what, &got, &want, DType::Int32, EXACT);
            }
        }
        let key = olympus::random::key(n as u64).unwrap();
        let flat = words(&olympus::random::bits(&key, &[40 * n]).unwrap());
        for shape in [vec![3, n], vec![2, n, 20]] {
            let size: usize = shape.iter().product();
            let bits = olympus::random::bits(&key, &shape).unwrap();
            assert_eq!(words(&bits), flat[..size], "random bits of {shape:?}");
        }
    }
}

#[test]
fn scans_sorts_and_elementwise_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let len = 2 * SWEEP + 8;
    let a = sixty_fourths(&mut r, len);
    let b = sixty_fourths(&mut r, len);
    let p = powers(&mut r, len);
    let (xa, xb, xp) = (
        make(&a, &[len], f),
        make(&b, &[len], f),
        make(&p, &[len], f),
    );
    for n in sweep_lengths() {
        for ((view, va, ia), ((_, vb, ib), (_, vp, _))) in views(&xa, n)
            .into_iter()
            .zip(views(&xb, n).into_iter().zip(views(&xp, n)))
        {
            let what = format!("n={n} {view}");
            let av = pick(&a, &ia);
            let sum: Vec<f64> = av.iter().zip(pick(&b, &ib)).map(|(x, y)| x + y).collect();
            assert_close(
                &format!("{what}: add"),
                &np::add(&va, &vb).unwrap(),
                &sum,
                f,
                EXACT,
            );
            // Scans every length aligned and every fourth otherwise; sorts (dozens of
            // passes each) every length aligned and every eighth otherwise.
            if view != "aligned" && n % 4 != 0 {
                continue;
            }
            let scan: Vec<f64> = av
                .iter()
                .scan(0.0, |s, x| {
                    *s += x;
                    Some(*s)
                })
                .collect();
            assert_close(
                &format!("{what}: cumsum"),
                &np::cumsum(&va, None).unwrap(),
                &scan,
                f,
                EXACT,
            );
            let pv = pick(&p, &ia);
            let scan: Vec<f64> = pv
                .iter()
                .scan(1.0, |s, x| {
                    *s *= x;
                    Some(*s)
                })
                .collect();
            assert_close(
                &format!("{what}: cumprod"),
                &np::cumprod(&vp, None).unwrap(),
                &scan,
                f,
                EXACT,
            );
            if view != "aligned" && n % 8 != 0 {
                continue;
            }
            // Stable: ties keep their order (1025 distinct values, so long views have ties).
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&i, &j| av[i].partial_cmp(&av[j]).unwrap());
            let sorted: Vec<f64> = order.iter().map(|&i| av[i]).collect();
            assert_close(
                &format!("{what}: sort"),
                &np::sort(&va, None).unwrap(),
                &sorted,
                f,
                EXACT,
            );
            let order: Vec<f64> = order.iter().map(|&i| i as f64).collect();
            assert_close(
                &format!("{what}: argsort"),
                &np::argsort(&va, None).unwrap(),
                &order,
                DType::Int32,
                EXACT,
            );
        }
    }
}

#[test]
fn gathers_and_scatters_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let len = 2 * SWEEP + 8;
    let a = sixty_fourths(&mut r, len);
    let xa = make(&a, &[len], f);
    for n in sweep_lengths() {
        // Gather n random positions of a view of n + 1 elements.
        let m = n + 1;
        for (view, va, ia) in views(&xa, m) {
            let what = format!("n={n} {view}");
            let pos: Vec<i32> = (0..n).map(|_| r.random_range(0..m as i32)).collect();
            let idx = Array::from_slice(&pos, &[n]).unwrap();
            let want: Vec<f64> = pos.iter().map(|&q| a[ia[q as usize]]).collect();
            assert_close(
                &format!("{what}: take"),
                &np::take(&va, &idx, None).unwrap(),
                &want,
                f,
                EXACT,
            );
            if view != "aligned" && n % 4 != 0 {
                continue;
            }
            // Scatter-add n values into the view's m positions (duplicates accumulate).
            let upd = sixty_fourths(&mut r, n);
            let mut want = pick(&a, &ia);
            for (&q, &u) in pos.iter().zip(&upd) {
                want[q as usize] += u;
            }
            let got = va.at(&idx).add(make(&upd, &[n], f)).unwrap();
            assert_close(&format!("{what}: at[].add"), &got, &want, f, EXACT);
        }
        // Sums into few bins (summed in workgroup memory once every bin gets an update on
        // average): bincount and its float32 weights, exact in any order.
        let bins = n % 67 + 1;
        let x: Vec<i32> = (0..n)
            .map(|_| r.random_range(-1..bins as i32 + 2))
            .collect();
        let w = sixty_fourths(&mut r, n);
        let (mut counts, mut sums) = (vec![0.0; bins], vec![0.0; bins]);
        for (&q, &u) in x.iter().zip(&w) {
            // Negative values count in bin 0; those past `length` drop.
            if let Some(k) = usize::try_from(q.max(0)).ok().filter(|&k| k < bins) {
                counts[k] += 1.0;
                sums[k] += u;
            }
        }
        let xi = Array::from_slice(&x, &[n]).unwrap();
        let what = format!("n={n} into {bins}");
        assert_close(
            &format!("{what}: bincount"),
            &np::bincount(&xi, None, 0, Some(bins)).unwrap(),
            &counts,
            DType::Int32,
            EXACT,
        );
        assert_close(
            &format!("{what}: weighted bincount"),
            &np::bincount(&xi, Some(&make(&w, &[n], f)), 0, Some(bins)).unwrap(),
            &sums,
            f,
            EXACT,
        );
    }
}

/// `searchsorted` (one binary search per query) into sorted rows of every length through
/// each view, for every element, the values between them and beyond both ends (the left
/// side at even lengths, the right at odd); and into int32, bfloat16 and uint8 rows of
/// repeats.
#[test]
fn sorted_searches_at_every_length() {
    let mut r = rng();
    let f = DType::Float32;
    let len = 2 * SWEEP + 8;
    // Sorted halves: every view of n elements of `sorted` is sorted.
    let a: Vec<f64> = (0..len).map(|i| (i / 2) as f64).collect();
    let xa = make(&a, &[len], f);
    for n in sweep_lengths() {
        for (view, va, ia) in views(&xa, n) {
            let row = pick(&a, &ia);
            let mut q: Vec<f64> = row.iter().flat_map(|&v| [v, v - 0.5, v + 0.25]).collect();
            q.extend([-1.0, f64::INFINITY, f64::NAN, 1e9]);
            let qa = make(&q, &[q.len()], f);
            // One side per length, alternating: each meets every view at half the lengths.
            let side = [Side::Left, Side::Right][n % 2];
            let want = host_searchsorted(&row, &q, side == Side::Right);
            assert_close(
                &format!("n={n} {view} {side:?}: searchsorted"),
                &np::searchsorted(&va, &qa, side, None).unwrap(),
                &want,
                DType::Int32,
                EXACT,
            );
        }
        if n % 5 != 0 {
            continue;
        }
        for d in [DType::Int32, DType::BFloat16, DType::UInt8] {
            let mut v: Vec<f64> = (0..n).map(|_| f64::from(r.random_range(0..9))).collect();
            v.sort_by(|x, y| x.partial_cmp(y).unwrap());
            let q: Vec<f64> = (0..10).map(f64::from).collect();
            let got = np::searchsorted(make(&v, &[n], d), make(&q, &[10], d), Side::Right, None);
            let want: Vec<f64> = q
                .iter()
                .map(|&x| v.partition_point(|&y| y <= x) as f64)
                .collect();
            assert_close(
                &format!("n={n} {d}: searchsorted"),
                &got.unwrap(),
                &want,
                DType::Int32,
                EXACT,
            );
        }
    }
}

/// Large arrays: `sizes` elements (float32 past one 128 MiB binding from 33.5M on).
fn large_sweep(sizes: &[usize]) {
    let mut r = rng();
    let f = DType::Float32;
    for &n in sizes {
        // A pattern with a known sum and a unique maximum and minimum at random places.
        let v: Vec<f32> = (0..n).map(|i| ((i % 61) as f32 - 30.0) / 8.0).collect();
        let (hi, lo) = (r.random_range(0..n), r.random_range(0..n));
        let mut v = v;
        v[hi] = 100.0;
        if lo != hi {
            v[lo] = -100.0;
        }
        let sum: f64 = v.iter().map(|&x| f64::from(x)).sum();
        let x = Array::from_slice(&v, &[n]).unwrap();
        let what = format!("n={n}");
        // The pattern's sums are multiples of 1/8 below 2^24 / 8 in every partial:
        // exact for any order.
        check(
            &format!("{what}: sum"),
            np::sum(&x, None, false),
            sum,
            f,
            0.0,
        );
        check(
            &format!("{what}: max"),
            np::max(&x, None, false),
            100.0,
            f,
            0.0,
        );
        check(
            &format!("{what}: argmax"),
            np::argmax(&x, None, false),
            hi as f64,
            DType::Int32,
            0.0,
        );
        check(
            &format!("{what}: argmin"),
            np::argmin(&x, None, false),
            if lo != hi {
                lo as f64
            } else {
                first_extreme(&v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>(), false)
            },
            DType::Int32,
            0.0,
        );
        // Partial sums of ones are exact below 2^24; past it a few additions may round
        // (which ones depends on how the passes and slices of `k` split the sum).
        let (nf, half) = (n as f64, (n / 2) as f64);
        let tol = if n > 1 << 24 {
            4.0 * f64::from(f32::EPSILON)
        } else {
            0.0
        };
        let half_ulps = if n / 2 > 1 << 24 { 4.0 } else { EXACT };
        let ones = np::ones(&[n], f).unwrap();
        check(
            &format!("{what}: sum of ones"),
            np::sum(&ones, None, false),
            nf,
            f,
            tol,
        );
        check(
            &format!("{what}: int32 sum of ones"),
            np::sum(np::ones(&[n], DType::Int32).unwrap(), None, false),
            n as f64,
            DType::Int32,
            0.0,
        );
        check(
            &format!("{what}: dot of ones"),
            np::dot(&ones, &ones),
            nf,
            f,
            tol,
        );
        check(
            &format!("{what}: any"),
            np::any(np::equal(&x, 100.0).unwrap(), None, false),
            1.0,
            DType::Bool,
            0.0,
        );
        // Along an axis of a (rows, 2) reshape, rows past 2^23.
        if n % 2 == 0 {
            let m = np::reshape(&ones, &[(n / 2) as isize, 2]).unwrap();
            assert_close(
                &format!("{what}: sum axis 0"),
                &np::sum(&m, Some(&[0]), false).unwrap(),
                &[half; 2],
                f,
                half_ulps,
            );
            let mm = np::matmul(np::reshape(&ones, &[2, (n / 2) as isize]).unwrap(), &m).unwrap();
            assert_close(
                &format!("{what}: (2, k) @ (k, 2)"),
                &mm,
                &[half; 4],
                f,
                half_ulps,
            );
        }
        // A scan past one binding: the running count of int32 ones, read at the ends,
        // the middle, and across a binding's edge (element 2^25 starts the second
        // 128 MiB window).
        let counts = np::cumsum(np::ones(&[n], DType::Int32).unwrap(), None).unwrap();
        let mut at: Vec<usize> = [0, n / 2, n - 1, 1 << 25, (1 << 25) - 1]
            .into_iter()
            .filter(|&i| i < n)
            .collect();
        at.sort_unstable();
        at.dedup();
        let idx: Vec<i32> = at.iter().map(|&i| i as i32).collect();
        let want: Vec<f64> = at.iter().map(|&i| (i + 1) as f64).collect();
        assert_close(
            &format!("{what}: cumsum of int32 ones"),
            &np::take(
                &counts,
                Array::from_slice(&idx, &[idx.len()]).unwrap(),
                None,
            )
            .unwrap(),
            &want,
            DType::Int32,
            EXACT,
        );
        // A scatter into an array past one binding: duplicates accumulate, and the
        // updated elements (in the last window too) read back.
        let spots = Array::from_slice(&idx, &[idx.len()]).unwrap();
        let twice = np::concatenate([&spots, &spots], 0).unwrap();
        let bumped = np::ones(&[n], DType::Int32)
            .unwrap()
            .at(twice)
            .add(3)
            .unwrap();
        assert_close(
            &format!("{what}: scatter add"),
            &np::take(&bumped, &spots, None).unwrap(),
            &vec![7.0; idx.len()],
            DType::Int32,
            EXACT,
        );
        // Counts of `i % 5` (summed in workgroup memory, the positions in several
        // windows) and searches of a sorted row past one binding, at both sides of the
        // edge.
        let iota = np::arange(0..n as i32).unwrap();
        let fives = np::remainder(&iota, 5).unwrap();
        let want: Vec<f64> = (0..5)
            .map(|k| (n / 5 + usize::from(k < n % 5)) as f64)
            .collect();
        assert_close(
            &format!("{what}: bincount"),
            &np::bincount(&fives, None, 0, Some(5)).unwrap(),
            &want,
            DType::Int32,
            EXACT,
        );
        for (side, plus) in [(Side::Left, 0.0), (Side::Right, 1.0)] {
            let want: Vec<f64> = at.iter().map(|&i| i as f64 + plus).collect();
            assert_close(
                &format!("{what}: searchsorted {side:?}"),
                &np::searchsorted(&iota, &spots, side, None).unwrap(),
                &want,
                DType::Int32,
                EXACT,
            );
        }
        // Two copies joined: the elements on either side of the seam and at the ends.
        let joined = np::concatenate([&x, &x], 0).unwrap();
        let seams = [0, n - 1, n, n + hi, 2 * n - 1];
        let at = Array::from_slice(&seams.map(|i| i as i32), &[5]).unwrap();
        let want = seams.map(|i| f64::from(v[i % n]));
        assert_close(
            &format!("{what}: concatenate"),
            &np::take(&joined, &at, None).unwrap(),
            &want,
            f,
            EXACT,
        );
        // Gather the last and first elements back.
        let idx = Array::from_slice(&[(n - 1) as i32, 0, hi as i32], &[3]).unwrap();
        let want = [f64::from(v[n - 1]), f64::from(v[0]), 100.0];
        assert_close(
            &format!("{what}: take"),
            &np::take(&x, &idx, None).unwrap(),
            &want,
            f,
            EXACT,
        );
    }
}

/// `pattern` repeated to `n` elements (whole copies at a time: fast in a debug build).
fn repeat<T: Copy>(pattern: &[T], n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    while v.len() + pattern.len() <= n {
        v.extend_from_slice(pattern);
    }
    let rest = n - v.len();
    v.extend_from_slice(&pattern[..rest]);
    v
}

/// An array of `n` elements of a narrow dtype: `pattern` repeated, with the values of
/// `spots` placed over it.
fn narrow_upload(d: DType, n: usize, pattern: &[f64], spots: [(usize, f64); 2]) -> Array {
    fn build<T: Copy + olympus::Element>(
        p: &[f64],
        n: usize,
        spots: [(usize, f64); 2],
        cast: impl Fn(f64) -> T,
    ) -> olympus::Result<Array> {
        let mut v = repeat(&p.iter().map(|&x| cast(x)).collect::<Vec<T>>(), n);
        for (i, x) in spots {
            v[i] = cast(x);
        }
        Array::from_slice(&v, &[n])
    }
    match d {
        DType::Int8 => build(pattern, n, spots, |x| x as i8),
        DType::UInt8 => build(pattern, n, spots, |x| x as u8),
        DType::Int16 => build(pattern, n, spots, |x| x as i16),
        DType::UInt16 => build(pattern, n, spots, |x| x as u16),
        DType::BFloat16 => build(pattern, n, spots, half::bf16::from_f64),
        _ => unreachable!("narrow dtypes only"),
    }
    .unwrap()
}

/// A narrow array of `n` elements, packed four or two to a word: the widening reduction,
/// the packed elementwise kernel, a scan, conversions both ways and a join, read at the
/// ends, at a unique maximum and minimum and on either side of the element where the
/// second 128 MiB binding starts.
fn narrow_large(d: DType, n: usize) {
    let mut r = rng();
    // Integers cycle through 250 values strictly inside the range; bfloat16 through
    // -1/8, 0, 1/8 with extremes of ±2, so that every partial sum, in any order, is exact
    // in bfloat16.
    let (top, bottom) = match d {
        DType::BFloat16 => (2.0, -2.0),
        d => d
            .integer_range()
            .map(|(lo, hi)| (hi as f64, lo as f64))
            .unwrap(),
    };
    let (hi, lo) = (r.random_range(0..n), r.random_range(0..n));
    let lo = if lo == hi { (hi + 1) % n } else { lo };
    let pattern: Vec<f64> = if d == DType::BFloat16 {
        vec![-0.125, 0.0, 0.125]
    } else {
        let shift = if d.is_signed_integer() { -126.0 } else { 0.0 };
        (1..=250).map(|k| f64::from(k) + shift).collect()
    };
    let period = pattern.len();
    let f = |i: usize| {
        if i == hi {
            top
        } else if i == lo {
            bottom
        } else {
            pattern[i % period]
        }
    };
    // The exact running sum through element `i` (exact in f64: rounding or wrapping it
    // once gives the dtype's running sum).
    let cycle: f64 = pattern.iter().sum();
    let running = |i: usize| -> f64 {
        let k = i + 1;
        let mut s = (k / period) as f64 * cycle + pattern[..k % period].iter().sum::<f64>();
        for (at, v) in [(hi, top), (lo, bottom)] {
            if at <= i {
                s += v - pattern[at % period];
            }
        }
        s
    };
    let x = narrow_upload(d, n, &pattern, [(hi, top), (lo, bottom)]);
    let what = format!("{d} n={n}");
    let acc = match d {
        DType::Int8 | DType::Int16 => DType::Int32,
        DType::UInt8 | DType::UInt16 => DType::UInt32,
        _ => d,
    };
    let edge = (128usize << 20) * 8 / d.bits() as usize;
    let mut at: Vec<usize> = [0, 1, n / 2, n - 1, edge - 1, edge, edge + 1, hi, lo]
        .into_iter()
        .filter(|&i| i < n)
        .collect();
    at.sort_unstable();
    at.dedup();
    let total = running(n - 1);
    let prefix: Vec<f64> = at.iter().map(|&i| round_to(running(i), d)).collect();
    check(
        &format!("{what}: sum"),
        np::sum(&x, None, false),
        round_to(total, acc),
        acc,
        0.0,
    );
    check(
        &format!("{what}: max"),
        np::max(&x, None, false),
        top,
        d,
        0.0,
    );
    let spots = Array::from_slice(
        &at.iter().map(|&i| i as i32).collect::<Vec<_>>(),
        &[at.len()],
    )
    .unwrap();
    let probe = |y: &Array| np::take(y, &spots, None).unwrap();
    let want: Vec<f64> = at.iter().map(|&i| add_ref(f(i), f(i), d)).collect();
    assert_close(
        &format!("{what}: add"),
        &probe(&np::add(&x, &x).unwrap()),
        &want,
        d,
        EXACT,
    );
    assert_close(
        &format!("{what}: cumsum"),
        &probe(&np::cumsum(&x, None).unwrap()),
        &prefix,
        d,
        EXACT,
    );
    let wide = x.astype(DType::Float32).unwrap();
    let want: Vec<f64> = at.iter().map(|&i| f(i)).collect();
    assert_close(
        &format!("{what}: astype float32"),
        &probe(&wide),
        &want,
        DType::Float32,
        EXACT,
    );
    assert_close(
        &format!("{what}: astype back"),
        &probe(&np::negative(&wide).unwrap().astype(d).unwrap()),
        // Floats saturate into integers, as XLA converts.
        &want
            .iter()
            .map(|&v| match d.integer_range() {
                Some((lo, hi)) => (-v).clamp(lo as f64, hi as f64),
                None => round_to(-v, d),
            })
            .collect::<Vec<_>>(),
        d,
        EXACT,
    );
    drop(wide);
    let joined = np::concatenate([&x, &x], 0).unwrap();
    let seams = [0, n - 1, n, n + hi, 2 * n - 1];
    let at = Array::from_slice(&seams.map(|i| i as i32), &[5]).unwrap();
    assert_close(
        &format!("{what}: concatenate"),
        &np::take(&joined, &at, None).unwrap(),
        &seams.map(|i| f(i % n)),
        d,
        EXACT,
    );
}

#[test]
fn narrow_dtypes_past_one_binding() {
    // Four to a word (the full sweep tries every narrow dtype at log-spaced lengths).
    narrow_large(DType::UInt8, 135_000_003);
}

#[test]
fn reductions_and_contractions_past_one_binding() {
    large_sweep(&[(1 << 22) + 3, 10_000_000, 40_000_000]);
}

#[test]
fn matmul_outputs_past_one_binding() {
    // (16384, 64) @ (64, 4096): a 256 MiB output. b = u wᵀ, so every output element is
    // (a u)_i w_j, which checks all 67M of them cheaply; small integers keep it exact.
    let mut r = rng();
    let (m, k, n) = (16384usize, 64usize, 4096usize);
    let a: Vec<f32> = (0..m * k)
        .map(|_| r.random_range(-8i32..=8) as f32)
        .collect();
    let u: Vec<f32> = (0..k).map(|_| r.random_range(-4i32..=4) as f32).collect();
    let w: Vec<f32> = (0..n).map(|_| r.random_range(-4i32..=4) as f32).collect();
    let b: Vec<f32> = (0..k * n).map(|e| u[e / n] * w[e % n]).collect();
    let got = np::matmul(
        Array::from_slice(&a, &[m, k]).unwrap(),
        Array::from_slice(&b, &[k, n]).unwrap(),
    )
    .unwrap()
    .to_vec::<f32>()
    .unwrap();
    let au: Vec<f32> = (0..m)
        .map(|i| (0..k).map(|t| a[i * k + t] * u[t]).sum())
        .collect();
    for (e, &g) in got.iter().enumerate() {
        let want = au[e / n] * w[e % n];
        assert!(
            g == want,
            "element ({}, {}): got {g}, want {want}",
            e / n,
            e % n
        );
    }
}

/// The whole sweep: every 2-D edge shape and log-spaced lengths to 40M.
#[test]
#[ignore = "minutes on a software adapter; run with --ignored"]
fn full_sweep_past_one_binding() {
    two_d_sweep(usize::MAX);
    let mut sizes = Vec::new();
    let mut n = 1101f64;
    while n < 40e6 {
        sizes.push(n as usize);
        n *= 1.7;
    }
    sizes.extend([1 << 25, (1 << 25) + 1, 33_554_436, 40_000_000]);
    large_sweep(&sizes);
    for d in [
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::BFloat16,
    ] {
        for n in [
            1101,
            40_000,
            3_000_000,
            67_108_865,
            134_217_729,
            140_000_000,
        ] {
            narrow_large(d, n);
        }
    }
}

/// Sizes past the device's largest buffer are `OutOfMemory` errors naming the function,
/// never a wrapped size or a grid error.
#[test]
fn sizes_past_the_device_are_out_of_memory_errors() {
    let f = DType::Float32;
    let cases: [(&str, Result<Array>); 5] = [
        ("zeros", np::zeros(&[usize::MAX], f)),
        ("zeros", np::zeros(&[usize::MAX / 4 + 1], f)),
        ("ones", np::ones(&[1 << 40], DType::Int32)),
        ("empty", np::empty(&[1 << 62], DType::Bool)),
        ("ones", np::ones(&[1 << 31, 1 << 31], f)),
    ];
    for (name, r) in cases {
        match r {
            Err(olympus::Error::OutOfMemory { func, .. }) => assert_eq!(func, name),
            Err(e) => panic!("{name}: {e}"),
            Ok(a) => panic!("{name}: returned an array of shape {:?}", a.shape()),
        }
    }
    // Still usable afterwards.
    check(
        "after",
        np::sum(np::ones(&[10], f), None, false),
        10.0,
        f,
        0.0,
    );
}

/// Sorts past one 128 MiB binding (keys and positions bound as two windows each): 34M
/// int32 keys, checked sorted and as a permutation, and argsort's positions against them.
/// Half a minute on lavapipe.
#[test]
fn sort_past_one_binding() {
    let n = 34_000_000usize;
    // A permutation of 0..n (a multiplicative scramble), so the sorted keys are 0..n.
    let keys: Vec<i32> = (0..n as u64)
        .map(|i| ((i * 2_654_435_761) % n as u64) as i32)
        .collect();
    let x = Array::from_slice(&keys, &[n]).unwrap();
    let sorted = np::sort(&x, None).unwrap().to_vec::<i32>().unwrap();
    assert!(sorted.iter().enumerate().all(|(i, &v)| v == i as i32));
    let order = np::argsort(&x, None).unwrap().to_vec::<i32>().unwrap();
    assert!(order
        .iter()
        .enumerate()
        .all(|(i, &p)| keys[p as usize] == i as i32));
}

/// Arrays past what one kernel may bind on wgpu's GL backend (16 storage buffers of 128
/// MiB): a 2 GiB array summed, and two 700 MB arrays added, in slabs. On adapters with
/// more bindings it checks the same values in one kernel. Run with
/// `OLYMPUS_BACKEND=gl cargo test --test core sizes::past_every -- --ignored`.
#[test]
#[ignore = "4 GB of memory and a minute on a software adapter; run with --ignored"]
fn past_every_binding_of_one_kernel() {
    // 16 windows of 128 MiB for the input, one more for the partial sums.
    let n = 510_000_000;
    let x = np::ones(&[n], DType::Float32).unwrap();
    let total = np::sum(&x, None, false).unwrap().to_vec::<f32>().unwrap()[0];
    assert_eq!(total, n as f32);
    let halves = np::sum(
        np::reshape(&x, &[2, n as isize / 2]).unwrap(),
        Some(&[1]),
        false,
    )
    .unwrap();
    assert_eq!(halves.to_vec::<f32>().unwrap(), vec![(n / 2) as f32; 2]);
    drop((x, halves));
    // Six windows each, eighteen bindings in all.
    let m = 175_000_000;
    let a = np::arange(m as i64).unwrap();
    let b = np::full(&[m], -1, None).unwrap();
    let c = np::add(&a, &b).unwrap();
    let at = [0, 1, m as i32 / 2, m as i32 - 1];
    let probe = np::take(&c, Array::from_slice(&at, &[4]).unwrap(), None).unwrap();
    let want: Vec<i32> = at.iter().map(|i| i - 1).collect();
    assert_eq!(probe.to_vec::<i32>().unwrap(), want);
}

/// Every dtype's values as f64, bit-exact (the sign of zero kept).
fn host_values(a: &Array) -> Vec<f64> {
    match a.dtype() {
        DType::Float32 => a
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::Float16 => a
            .to_vec::<f16>()
            .unwrap()
            .iter()
            .map(|v| v.to_f64())
            .collect(),
        DType::Int32 => a
            .to_vec::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::UInt32 => a
            .to_vec::<u32>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::Bool => a
            .to_vec::<bool>()
            .unwrap()
            .iter()
            .map(|&v| v as u8 as f64)
            .collect(),
        _ => a.to_f64_vec().unwrap(),
    }
}

/// Sorts across the radix kernels' tiles (1024 keys a thread with the CPU profile, 4096 a
/// workgroup with the GPU profile; CI runs both) and the switch from the bitonic network
/// (rows of 128 and 1024 keys): every dtype with ties and special values (NaN of either
/// sign, ±0, ±inf, subnormals, the extremes), rows of several lengths, contiguous and
/// transposed, ascending and descending, checked against a stable host sort.
#[test]
fn sorts_at_radix_tile_edges() {
    let mut r = rng();
    let pools: [(DType, Vec<f64>); 10] = [
        (
            DType::Float32,
            vec![
                f64::NAN,
                -f64::NAN,
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                1e-45,
                -1e-45,
                3e38,
                -3e38,
                1.5,
                -1.5,
            ],
        ),
        (
            DType::Int32,
            vec![
                i32::MIN as f64,
                i32::MAX as f64,
                -1.0,
                0.0,
                1.0,
                65536.0,
                -65537.0,
            ],
        ),
        (
            DType::UInt32,
            vec![
                0.0,
                1.0,
                u32::MAX as f64,
                2147483648.0,
                2147483647.0,
                65535.0,
            ],
        ),
        (
            DType::Float16,
            vec![
                f64::NAN,
                0.0,
                -0.0,
                f64::INFINITY,
                -65504.0,
                6e-8,
                -6e-8,
                1.0,
                -2.5,
            ],
        ),
        (DType::Bool, vec![0.0, 1.0]),
        (DType::Int8, vec![-128.0, 127.0, -1.0, 0.0, 1.0]),
        (DType::UInt8, vec![0.0, 1.0, 127.0, 128.0, 255.0]),
        (
            DType::Int16,
            vec![-32768.0, 32767.0, -1.0, 0.0, 256.0, -257.0],
        ),
        (
            DType::UInt16,
            vec![0.0, 1.0, 255.0, 256.0, 32768.0, 65535.0],
        ),
        (
            DType::BFloat16,
            vec![
                f64::NAN,
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                3.3895313892515355e38,
                -1.0,
                9.183549615799121e-41,
            ],
        ),
    ];
    let lengths = [
        127, 128, 129, 1023, 1024, 1025, 2047, 2049, 4095, 4096, 4097, 8193, 20000,
    ];
    for &n in &lengths {
        for (d, pool) in &pools {
            let rows = if n > 5000 { 1 } else { 3 };
            // Mostly ties from the pool, some fresh values.
            let v: Vec<f64> = (0..rows * n)
                .map(|_| match (r.random_range(0..4), *d) {
                    (0, d) if d.is_floating() => r.random_range(-100..100) as f64 / 8.0,
                    (0, d) if d != DType::Bool => random_values(&mut r, d, 1)[0],
                    _ => pool[r.random_range(0..pool.len())],
                })
                .collect();
            let x = make(&v, &[rows, n], *d);
            // The stored values (float16 rounds the fresh ones).
            let v = host_values(&x);
            let xt = np::transpose(make(&v, &[n, rows], *d), None).unwrap();
            let vt: Vec<f64> = (0..rows * n).map(|e| v[(e % n) * rows + e / n]).collect();
            for (layout, x, v) in [("rows", &x, &v), ("transposed", &xt, &vt)] {
                for descending in [false, true] {
                    let what = format!("{d} ({rows}, {n}) {layout} descending={descending}");
                    let got = np::argsort_with(x, Some(-1), descending, true)
                        .unwrap()
                        .to_vec::<i32>()
                        .unwrap();
                    let sorted =
                        host_values(&np::sort_with(x, Some(-1), descending, true).unwrap());
                    for row in 0..rows {
                        let g = &v[row * n..(row + 1) * n];
                        let want = host_argsort_by(g, descending);
                        // JAX's descending values are the ascending sort reversed (equal
                        // elements, -0 and +0, reversed), its positions stable.
                        let ascending = host_argsort_by(g, false);
                        let at = row * n;
                        for (i, &w) in want.iter().enumerate() {
                            assert_eq!(got[at + i] as usize, w, "{what}: argsort row {row} at {i}");
                            let e = match descending {
                                true => g[ascending[n - 1 - i]],
                                false => g[w],
                            };
                            let s = sorted[at + i];
                            assert!(
                                s.to_bits() == e.to_bits() || (s.is_nan() && e.is_nan()),
                                "{what}: sort row {row} at {i}: got {s}, want {e}"
                            );
                        }
                    }
                }
            }
        }
    }
}

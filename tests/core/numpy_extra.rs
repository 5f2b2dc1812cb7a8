//! The newer numpy functions against host references on fresh random inputs: float
//! neighbours bit for bit over random and special floats, convolutions at many lengths,
//! partitions, lexsort, insert/delete, frexp/ldexp round trips, kron, unravel/ravel,
//! gradient and histogramdd; and their errors on bad input.

use crate::common::*;
use olympus::numpy::{self as np, Bins, ConvMode, IndexMode};
use olympus::{Array, DType};
use rand::Rng;

/// Random float32 values of every magnitude, with zeros, infinities, NaN and subnormals.
fn wild_f32(r: &mut rand::rngs::StdRng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| match r.random_range(0..12) {
            0 => 0.0,
            1 => -0.0,
            2 => f32::INFINITY,
            3 => f32::MIN_POSITIVE * r.random_range(-1.0f32..1.0), // subnormal
            4 => f32::MAX,
            5 => 1.0,
            _ => {
                f32::from_bits(r.random::<u32>() & 0x7f7f_ffff)
                    * if r.random() { 1.0 } else { -1.0 }
            }
        })
        .collect()
}

/// C's nextafterf.
fn next_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return if y > 0.0 {
            f32::from_bits(1)
        } else {
            -f32::from_bits(1)
        };
    }
    let b = x.to_bits();
    let away = (y > x) == (x > 0.0);
    f32::from_bits(if away { b + 1 } else { b - 1 })
}

#[test]
fn nextafter_and_spacing_match_the_bits() {
    let mut r = rng();
    let mut x = wild_f32(&mut r, 4000);
    let mut y = wild_f32(&mut r, 4000);
    // Steps onto and off both zeros and through the subnormals.
    let tiny = f32::from_bits(1);
    for (a, b) in [
        (-tiny, 1.0),
        (tiny, -1.0),
        (0.0, -1.0),
        (-0.0, 1.0),
        (-0.0, 0.0),
        (0.0, -0.0),
    ] {
        x.push(a);
        y.push(b);
    }
    let got: Vec<f32> = np::nextafter(np::array(x.clone()).unwrap(), np::array(y.clone()).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    for ((&a, &b), &g) in x.iter().zip(&y).zip(&got) {
        let w = next_f32(a, b);
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "nextafter({a:e}, {b:e}) = {g:e}, want {w:e}"
        );
    }
    let sp: Vec<f32> = np::spacing(np::array(x.clone()).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    for (&a, &g) in x.iter().zip(&sp) {
        let toward = if a.is_sign_negative() {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        let d = next_f32(a, toward) - a;
        let w = if d == 0.0 {
            f32::from_bits(1).copysign(a)
        } else {
            d
        };
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "spacing({a:e}) = {g:e}, want {w:e}"
        );
    }
    // float16: every finite value toward +inf and -inf.
    let all: Vec<half::f16> = (0..0x7c00u16)
        .flat_map(|b| [half::f16::from_bits(b), half::f16::from_bits(b | 0x8000)])
        .collect();
    let xs = np::array(all.clone()).unwrap();
    for (dir, want) in [(f64::INFINITY, 1i32), (f64::NEG_INFINITY, -1)] {
        let got: Vec<half::f16> = np::nextafter(
            &xs,
            np::astype(np::full(&[all.len()], dir, None).unwrap(), DType::Float16).unwrap(),
        )
        .unwrap()
        .to_vec()
        .unwrap();
        for (&a, &g) in all.iter().zip(&got) {
            let f = a.to_f32();
            let w = if f == 0.0 {
                half::f16::from_bits(1).to_f32() * want as f32
            } else {
                let away = (want > 0) == (f > 0.0);
                let b = a.to_bits();
                half::f16::from_bits(if away { b + 1 } else { b - 1 }).to_f32()
            };
            assert_eq!(g.to_f32(), w, "float16 nextafter({f:e}, {dir})");
        }
    }
    // bfloat16: every finite value toward +inf and -inf, by its bits.
    let all: Vec<half::bf16> = (0..0x7f80u16)
        .flat_map(|b| [half::bf16::from_bits(b), half::bf16::from_bits(b | 0x8000)])
        .collect();
    let xs = np::array(all.clone()).unwrap();
    for (dir, up) in [(f64::INFINITY, true), (f64::NEG_INFINITY, false)] {
        let to = np::astype(np::full(&[all.len()], dir, None).unwrap(), DType::BFloat16).unwrap();
        let got: Vec<half::bf16> = np::nextafter(&xs, to).unwrap().to_vec().unwrap();
        for (&a, &g) in all.iter().zip(&got) {
            let b = a.to_bits();
            let w = match (b & 0x7fff, up == (b & 0x8000 == 0)) {
                (0, _) => half::bf16::from_bits(if up { 1 } else { 0x8001 }),
                (_, true) => half::bf16::from_bits(b + 1),
                (_, false) => half::bf16::from_bits(b - 1),
            };
            assert_eq!(g.to_bits(), w.to_bits(), "bfloat16 nextafter({a}, {dir})");
        }
    }
    let sp: Vec<half::bf16> = np::spacing(&xs).unwrap().to_vec().unwrap();
    for (&a, &g) in all.iter().zip(&sp) {
        let b = a.to_bits();
        let w = match b & 0x7fff {
            0 => half::bf16::from_bits(b | 1),
            0x7f7f => half::bf16::from_f32(f32::INFINITY.copysign(a.to_f32())),
            _ => half::bf16::from_f64(half::bf16::from_bits(b + 1).to_f64() - a.to_f64()),
        };
        assert_eq!(g.to_bits(), w.to_bits(), "bfloat16 spacing({a})");
    }
}

#[test]
fn frexp_and_ldexp_round_trip() {
    let mut r = rng();
    let x: Vec<f32> = wild_f32(&mut r, 4000)
        .into_iter()
        .filter(|v| v.is_finite())
        .collect();
    let (m, e) = np::frexp(np::array(x.clone()).unwrap()).unwrap();
    let (m, e): (Vec<f32>, Vec<i32>) = (m.to_vec().unwrap(), e.to_vec().unwrap());
    for ((&v, &mm), &ee) in x.iter().zip(&m).zip(&e) {
        if v == 0.0 {
            assert_eq!((mm.to_bits(), ee), (v.to_bits(), 0));
            continue;
        }
        assert!((0.5..1.0).contains(&mm.abs()), "frexp({v:e}) mantissa {mm}");
        assert_eq!(
            f64::from(mm) * 2f64.powi(ee),
            f64::from(v),
            "frexp({v:e}) = ({mm}, {ee})"
        );
    }
    let back: Vec<f32> = np::ldexp(np::array(m).unwrap(), np::array(e).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    for (&v, &b) in x.iter().zip(&back) {
        // A subnormal result comes from a product, which adapters that flush subnormals
        // (NVIDIA) flush to zero of its sign, as XLA:CPU does.
        let flushed = v.is_subnormal() && b == 0.0 && b.is_sign_negative() == v.is_sign_negative();
        assert!(
            v.to_bits() == b.to_bits() || flushed,
            "ldexp(frexp({v:e})) = {b:e}"
        );
    }
}

#[test]
fn convolutions_match_direct_sums_at_many_lengths() {
    let mut r = rng();
    for &(n, m) in &[
        (1, 1),
        (1, 5),
        (2, 3),
        (7, 7),
        (31, 4),
        (100, 9),
        (1000, 33),
        (5, 200),
    ] {
        let a: Vec<f32> = (0..n).map(|_| r.random_range(-4i32..5) as f32).collect();
        let v: Vec<f32> = (0..m).map(|_| r.random_range(-4i32..5) as f32).collect();
        let full: Vec<f64> = (0..n + m - 1)
            .map(|k| {
                (0..m)
                    .filter(|&j| k >= j && k - j < n)
                    .map(|j| f64::from(a[k - j] * v[j]))
                    .sum()
            })
            .collect();
        let (x, y) = (np::array(a.clone()).unwrap(), np::array(v.clone()).unwrap());
        let got = |mode| np::convolve(&x, &y, mode).unwrap().to_f64_vec().unwrap();
        assert_eq!(got(ConvMode::Full), full, "full {n} {m}");
        let (big, small) = (n.max(m), n.min(m));
        let same = got(ConvMode::Same);
        assert_eq!(same.len(), big);
        // JAX centres `same` with the shorter operand's length // 2 before the start.
        let lo = small - 1 - small / 2;
        assert_eq!(same, full[lo..lo + big].to_vec(), "same {n} {m}");
        assert_eq!(
            got(ConvMode::Valid),
            full[small - 1..big].to_vec(),
            "valid {n} {m}"
        );
        // correlate(a, v) is convolve(a, reversed v) when a is the longer one.
        if n >= m {
            let rv: Vec<f32> = v.iter().rev().copied().collect();
            let c = np::correlate(&x, np::array(rv).unwrap(), ConvMode::Full)
                .unwrap()
                .to_f64_vec()
                .unwrap();
            assert_eq!(c, full, "correlate {n} {m}");
        }
    }
}

#[test]
fn partitions_lexsort_insert_and_delete_match_the_host() {
    let mut r = rng();
    for &n in &[1usize, 2, 5, 64, 1000] {
        let v: Vec<i32> = (0..n).map(|_| r.random_range(-9..10)).collect();
        let x = np::array(v.clone()).unwrap();
        let mut sorted = v.clone();
        sorted.sort();
        for kth in [0, n / 2, n - 1] {
            let p: Vec<i32> = np::partition(&x, kth as isize, -1)
                .unwrap()
                .to_vec()
                .unwrap();
            let ip: Vec<i32> = np::argpartition(&x, kth as isize, -1)
                .unwrap()
                .to_vec()
                .unwrap();
            assert_eq!(p[kth], sorted[kth]);
            assert!(p[..kth].iter().all(|&a| a <= p[kth]) && p[kth..].iter().all(|&a| a >= p[kth]));
            let mut perm = ip.clone();
            perm.sort();
            assert_eq!(
                perm,
                (0..n as i32).collect::<Vec<_>>(),
                "argpartition is a permutation"
            );
            assert_eq!(
                ip.iter().map(|&i| v[i as usize]).collect::<Vec<_>>()[kth],
                sorted[kth]
            );
        }
        let k2: Vec<i32> = (0..n).map(|_| r.random_range(0..3)).collect();
        let got: Vec<i32> = np::lexsort([x.clone(), np::array(k2.clone()).unwrap()], -1)
            .unwrap()
            .to_vec()
            .unwrap();
        let mut want: Vec<i32> = (0..n as i32).collect();
        want.sort_by_key(|&i| (k2[i as usize], v[i as usize]));
        assert_eq!(got, want, "lexsort n={n}");
        // delete and insert against Vec operations.
        let drop: Vec<isize> = (0..3)
            .map(|_| r.random_range(-(n as i64)..n as i64) as isize)
            .collect();
        let got: Vec<i32> = np::delete(&x, &drop, None).unwrap().to_vec().unwrap();
        let gone: Vec<usize> = drop
            .iter()
            .map(|&i| {
                if i < 0 {
                    (i + n as isize) as usize
                } else {
                    i as usize
                }
            })
            .collect();
        let want: Vec<i32> = (0..n).filter(|i| !gone.contains(i)).map(|i| v[i]).collect();
        assert_eq!(got, want, "delete {drop:?}");
        let at: Vec<isize> = (0..3)
            .map(|_| r.random_range(0..=n as i64) as isize)
            .collect();
        let got: Vec<i32> = np::insert(&x, &at, np::array(vec![100, 200, 300]).unwrap(), None)
            .unwrap()
            .to_vec()
            .unwrap();
        let mut want = v.clone();
        let mut order: Vec<usize> = (0..3).collect();
        order.sort_by_key(|&j| at[j]);
        for (rank, &j) in order.iter().enumerate() {
            want.insert(at[j] as usize + rank, 100 * (j as i32 + 1));
        }
        assert_eq!(got, want, "insert at {at:?}");
    }
}

#[test]
fn kron_unravel_gradient_and_histogramdd_match_the_host() {
    let mut r = rng();
    let (a, av) = random_array(&mut r, &[2, 3], DType::Float32, true);
    let (b, bv) = random_array(&mut r, &[3, 2], DType::Float32, false);
    let k = np::kron(&a, &b).unwrap();
    assert_eq!(k.shape(), &[6, 6]);
    let kv = k.to_f64_vec().unwrap();
    for i in 0..6 {
        for j in 0..6 {
            let want = av[(i / 3) * 3 + j / 2] * bv[(i % 3) * 2 + j % 2];
            assert_eq!(kv[i * 6 + j], f64::from(want as f32), "kron at ({i}, {j})");
        }
    }
    let shape = [3usize, 4, 5];
    let flat: Vec<i32> = (0..60).map(|_| r.random_range(0..60)).collect();
    let ix = np::unravel_index(np::array(flat.clone()).unwrap(), &shape).unwrap();
    let back: Vec<i32> = np::ravel_multi_index(ix.clone(), &shape, IndexMode::Raise)
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(back, flat);
    assert_error(
        np::ravel_multi_index(
            [
                np::array([3]).unwrap(),
                np::array([0]).unwrap(),
                np::array([0]).unwrap(),
            ],
            &shape,
            IndexMode::Raise,
        ),
        "ravel_multi_index",
        "InvalidArgument",
    );
    // gradient: central differences inside, one-sided at the ends.
    let v: Vec<f32> = (0..17).map(|_| r.random_range(-3.0f32..3.0)).collect();
    let g: Vec<f32> = np::gradient(np::array(v.clone()).unwrap(), &[0.5], None)
        .unwrap()
        .remove(0)
        .to_vec()
        .unwrap();
    for i in 0..17 {
        let want = match i {
            0 => (v[1] - v[0]) / 0.5,
            16 => (v[16] - v[15]) / 0.5,
            _ => (v[i + 1] - v[i - 1]) * 0.5 / 0.5,
        };
        assert!(
            (g[i] - want).abs() <= 1e-6 * want.abs().max(1.0),
            "gradient at {i}: {} vs {want}",
            g[i]
        );
    }
    // histogramdd of random points in a fixed 2-d range.
    let pts: Vec<f32> = (0..400).map(|_| r.random_range(-0.2f32..1.2)).collect();
    let (h, _) = np::histogramdd(
        np::reshape(np::array(pts.clone()).unwrap(), &[200, 2]).unwrap(),
        &[Bins::Count(4), Bins::Count(5)],
        Some(&[(0.0, 1.0), (0.0, 1.0)]),
        None,
        false,
    )
    .unwrap();
    let mut want = vec![0f64; 20];
    for p in pts.chunks(2) {
        let bin = |x: f32, nb: usize| -> Option<usize> {
            if !(0.0..=1.0).contains(&x) {
                return None;
            }
            let edges: Vec<f32> = (0..=nb).map(|k| k as f32 * (1.0 / nb as f32)).collect();
            Some(edges.partition_point(|&e| e <= x).clamp(1, nb) - 1)
        };
        if let (Some(i), Some(j)) = (bin(p[0], 4), bin(p[1], 5)) {
            want[i * 5 + j] += 1.0;
        }
    }
    assert_eq!(h.to_f64_vec().unwrap(), want);
}

#[test]
fn bad_inputs_name_the_function() {
    let m = np::reshape(np::arange(6).unwrap(), &[2, 3]).unwrap();
    let named = |r: olympus::Result<Array>, f: &str| {
        let e = r.expect_err(f).to_string();
        assert!(e.contains(f), "{f}: {e}");
    };
    named(
        np::select([np::array([true]).unwrap()], Vec::<Array>::new(), 0),
        "select",
    );
    named(
        np::choose(np::array([0.5f32]).unwrap(), [m.clone()], IndexMode::Clip),
        "choose",
    );
    named(
        np::choose(np::array([2]).unwrap(), [m.clone()], IndexMode::Raise),
        "choose",
    );
    named(np::place(&m, np::array([true]).unwrap(), 1), "place");
    named(np::delete(&m, &[7], None), "delete");
    named(
        np::put_along_axis(&m, np::array([0]).unwrap(), 1, Some(1), IndexMode::Fill),
        "put_along_axis",
    );
    named(np::partition(&m, 5, -1), "partition");
    named(np::lexsort(Vec::<Array>::new(), -1), "lexsort");
    named(np::convolve(&m, [1.0f32], ConvMode::Full), "convolve");
    named(
        np::correlate(
            np::zeros(&[0], DType::Float32).unwrap(),
            [1.0f32],
            ConvMode::Full,
        ),
        "correlate",
    );
    named(
        np::gradient([1.0f32], &[], None).map(|mut v| v.remove(0)),
        "gradient",
    );
    named(
        np::gradient(&m, &[1.0, 2.0, 3.0], None).map(|mut v| v.remove(0)),
        "gradient",
    );
    named(np::ldexp([1.0f32], [0.5f32]), "ldexp");
    named(
        np::frombuffer(&[1, 2, 3], DType::Float32, None, 0),
        "frombuffer",
    );
    named(
        np::frombuffer(&[1, 2, 3, 4], DType::Int32, Some(2), 0),
        "frombuffer",
    );
    named(
        np::fromfile("/nonexistent/olympus.bin", DType::Int32, None, 0),
        "fromfile",
    );
    named(
        np::histogramdd(&m, &[Bins::Count(2), Bins::Count(2)], None, None, false).map(|h| h.0),
        "histogramdd",
    );
    named(np::block(Vec::<Array>::new()), "block");
    named(
        np::block(vec![m.clone(), np::zeros(&[3, 3], DType::Int32).unwrap()]),
        "block",
    );
    named(
        np::ravel_multi_index([np::array([0]).unwrap()], &[2, 2], IndexMode::Clip),
        "ravel_multi_index",
    );
    named(
        np::unravel_index([0.5f32], &[2]).map(|mut v| v.remove(0)),
        "unravel_index",
    );
    named(np::vander(&m, None, false), "vander");
    named(np::cross([1, 2, 3, 4], [1, 2, 3, 4], -1), "cross");
    // (A zero bound is no error: JAX gives NaN, tests/data/jax_rules.txt.)
    named(np::polyint([1.0f32], 2, Some(&[1.0, 2.0, 3.0])), "polyint");
    named(
        np::mask_indices(3, |a, _| np::ravel(a), 0, None).map(|t| t.0),
        "mask_indices",
    );
    // fromfile and frombuffer agree on little-endian bytes.
    let p = std::env::temp_dir().join(format!("olympus-fromfile-{}.bin", std::process::id()));
    std::fs::write(
        &p,
        1.5f32
            .to_le_bytes()
            .iter()
            .chain(&(-2.0f32).to_le_bytes())
            .copied()
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    assert_eq!(
        np::fromfile(&p, DType::Float32, None, 0)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![1.5, -2.0]
    );
    let _ = std::fs::remove_file(&p);
}

//! Linear algebra against f64 (and wrapping-integer) host references.

use crate::common::*;
use olympus::numpy as np;
use olympus::{Array, DType};

/// Host batched matmul of `[b, m, k] x [b, k, n]` values in dtype semantics; returns the
/// result and, for floats, the sum of |products| of each element (the error scale).
fn host_matmul(
    a: &[f64],
    b: &[f64],
    dims: (usize, usize, usize, usize),
    d: DType,
) -> (Vec<f64>, Vec<f64>) {
    let (nb, m, k, n) = dims;
    let mut out = vec![0.0; nb * m * n];
    let mut scale = vec![0.0; nb * m * n];
    for p in 0..nb {
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut sa) = (0.0f64, 0.0f64);
                let (mut si, mut su, mut sb) = (0i32, 0u32, false);
                for q in 0..k {
                    let x = a[(p * m + i) * k + q];
                    let y = b[(p * k + q) * n + j];
                    s += x * y;
                    sa += (x * y).abs();
                    si = si.wrapping_add((x as i32).wrapping_mul(y as i32));
                    su = su.wrapping_add((x as u32).wrapping_mul(y as u32));
                    sb |= x != 0.0 && y != 0.0;
                }
                let o = (p * m + i) * n + j;
                out[o] = match d {
                    d if d.is_signed_integer() => round_to(f64::from(si), d),
                    d if d.is_unsigned_integer() => round_to(f64::from(su), d),
                    DType::Bool => f64::from(u8::from(sb)),
                    _ => s,
                };
                scale[o] = sa;
            }
        }
    }
    (out, scale)
}

fn check(what: &str, got: &Array, want: &[f64], scale: &[f64], k: usize, d: DType) {
    assert_eq!(got.dtype(), d, "{what}");
    let g = got.to_f64_vec().unwrap();
    assert_eq!(g.len(), want.len(), "{what}");
    for i in 0..g.len() {
        let ok = if d.is_floating() {
            // float32 accumulation error (k terms) plus the final rounding.
            let tol = scale[i] * (k as f64 + 2.0) * 2f64.powi(-24) + ulp_of(want[i], d);
            !g[i].is_nan() && (g[i] - want[i]).abs() <= tol
        } else {
            g[i] == want[i]
        };
        assert!(
            ok,
            "{what}: element {i}: got {}, want {} ({d}, k={k})",
            g[i], want[i]
        );
    }
}

#[test]
fn matmul_every_dtype_odd_sizes_and_views() {
    let mut r = rng();
    for d in every_dtype() {
        for &(m, k, n) in &[
            (1, 1, 1),
            (7, 5, 3),
            (65, 17, 70),
            (3, 130, 1),
            // Matrix-vector shapes (a broadcast multiply and a reduction) and long-k
            // products with few output tiles (k split into slices summed afterwards).
            (32, 512, 1),
            (1, 300, 9),
            (40, 1024, 70),
            (0, 4, 3),
            (2, 0, 3),
        ] {
            for transposed in [false, true] {
                let (a, av) = random_array(&mut r, &[m, k], d, transposed);
                let (b, bv) = random_array(&mut r, &[k, n], d, !transposed);
                let c = np::matmul(&a, &b).unwrap();
                assert_eq!(c.shape(), &[m, n]);
                let (want, scale) = host_matmul(&av, &bv, (1, m, k, n), d);
                check(&format!("matmul {m}x{k}x{n}"), &c, &want, &scale, k, d);
            }
        }
    }
}

/// The CPU kernels' block sizes and each way they read an operand: `vec4`s along `k`
/// (contiguous), across (transposed), or elements (sizes that break the alignment), with
/// `k` tails, edges past the output, and the four combinations of transposed operands.
/// Both CPU kernels: the subgroup one this adapter runs (8 or 16 rows by 32 columns per
/// workgroup) and the direct one (4 to 16 rows and columns per thread) adapters without
/// 8-lane subgroups run.
#[test]
fn matmul_block_sizes_and_read_modes() {
    for subgroups in [None, Some(false)] {
        let dev = olympus::Device::new(olympus::DeviceOptions {
            matmul_subgroups: subgroups,
            ..Default::default()
        })
        .unwrap();
        olympus::with_device(&dev, block_sizes_and_read_modes);
    }
}

fn block_sizes_and_read_modes() {
    let mut r = rng();
    for d in [DType::Float32, DType::Int32, DType::Float16] {
        for &(m, k, n) in &[
            (64, 36, 68),
            (300, 40, 264),
            (130, 44, 200),
            (257, 9, 129),
            (36, 40, 33),
            (8, 12, 36),
            (5, 7, 64),
            // Tall enough for the subgroup kernel's 32-row tiles.
            (2052, 9, 36),
        ] {
            if d == DType::Float16 && m > 64 {
                continue;
            }
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                let (a, av) = random_array(&mut r, &[m, k], d, ta);
                let (b, bv) = random_array(&mut r, &[k, n], d, tb);
                let c = np::matmul(&a, &b).unwrap();
                assert_eq!(c.shape(), &[m, n]);
                let (want, scale) = host_matmul(&av, &bv, (1, m, k, n), d);
                check(
                    &format!("matmul {m}x{k}x{n} {d} transposed {ta} {tb}"),
                    &c,
                    &want,
                    &scale,
                    k,
                    d,
                );
            }
        }
    }
}

/// Few outputs over a long `k` (a GPU's kernel choices take them as one fused reduction,
/// a CPU adapter's as the tiled kernel in slices of `k`), on both profiles: batches,
/// transposed operands, float32 and wrapping int32.
#[test]
fn matmul_few_outputs_over_long_k() {
    let mut r = rng();
    for profile in [olympus::KernelProfile::Gpu, olympus::KernelProfile::Cpu] {
        let dev = olympus::Device::new(olympus::DeviceOptions {
            profile,
            ..Default::default()
        })
        .unwrap();
        olympus::with_device(&dev, || {
            for &(nb, m, k, n) in &[
                (1, 2, 4096, 2),
                (1, 1, 4097, 3),
                (2, 3, 5000, 5),
                (1, 8, 65537, 8),
                (1, 8, 4100, 9),
                (4, 4, 4095, 4),
            ] {
                for d in [DType::Float32, DType::Int32] {
                    for (ta, tb) in [(false, false), (true, true)] {
                        let (a, av) = random_array(&mut r, &[nb, m, k], d, ta);
                        let (b, bv) = random_array(&mut r, &[nb, k, n], d, tb);
                        let c = np::matmul(&a, &b).unwrap();
                        assert_eq!(c.shape(), &[nb, m, n]);
                        let (want, scale) = host_matmul(&av, &bv, (nb, m, k, n), d);
                        check(
                            &format!("{profile:?} {nb}x{m}x{k}x{n} {d} transposed {ta} {tb}"),
                            &c,
                            &want,
                            &scale,
                            k,
                            d,
                        );
                    }
                }
            }
        });
    }
}

#[test]
fn matmul_batches_broadcast_and_vectors() {
    let mut r = rng();
    let d = DType::Float32;
    let (a, av) = random_array(&mut r, &[2, 3, 4, 5], d, false);
    let (b, bv) = random_array(&mut r, &[5, 6], d, false);
    let c = np::matmul(&a, &b).unwrap();
    assert_eq!(c.shape(), &[2, 3, 4, 6]);
    let bb: Vec<f64> = (0..6).flat_map(|_| bv.clone()).collect();
    let (want, scale) = host_matmul(&av, &bb, (6, 4, 5, 6), d);
    check("broadcast batch", &c, &want, &scale, 5, d);
    // Batch dims broadcast against each other: [3, 1, 2, 4] x [5, 4, 2].
    let (a, av) = random_array(&mut r, &[3, 1, 2, 4], d, false);
    let (b, bv) = random_array(&mut r, &[5, 4, 2], d, false);
    let c = np::matmul(&a, &b).unwrap();
    assert_eq!(c.shape(), &[3, 5, 2, 2]);
    let mut aa = Vec::new();
    let mut bb = Vec::new();
    for i in 0..3 {
        for j in 0..5 {
            aa.extend_from_slice(&av[i * 8..(i + 1) * 8]);
            bb.extend_from_slice(&bv[j * 8..(j + 1) * 8]);
        }
    }
    let (want, scale) = host_matmul(&aa, &bb, (15, 2, 4, 2), d);
    check("mutual broadcast", &c, &want, &scale, 4, d);
    // 1-D operands.
    let (v, vv) = random_array(&mut r, &[4], d, false);
    let (m2, mv) = random_array(&mut r, &[4, 3], d, false);
    let c = np::matmul(&v, &m2).unwrap();
    assert_eq!(c.shape(), &[3]);
    let (want, scale) = host_matmul(&vv, &mv, (1, 1, 4, 3), d);
    check("vector matrix", &c, &want, &scale, 4, d);
    let c = np::matmul(np::transpose(&m2, None).unwrap(), &v).unwrap();
    assert_eq!(c.shape(), &[3]);
    check("matrix vector", &c, &want, &scale, 4, d);
    let c = np::matmul(&v, &v).unwrap();
    assert_eq!(c.shape(), &[] as &[usize]);
    // Promotion: int32 x float32 -> float32; weak scalars are rejected as 0-d.
    assert_eq!(
        np::matmul(
            np::ones(&[2, 2], DType::Int32).unwrap(),
            np::ones(&[2, 2], DType::Float16).unwrap()
        )
        .unwrap()
        .dtype(),
        DType::Float16
    );
    let e = np::matmul(
        np::ones(&[2, 3], DType::Float32).unwrap(),
        np::ones(&[2, 3], DType::Float32).unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("matmul") && e.contains("(2, 3)"), "{e}");
    assert_error(
        np::matmul(2.0, np::ones(&[2], DType::Float32).unwrap()),
        "matmul",
        "ShapeMismatch",
    );
    assert_error(
        np::matmul(
            np::ones(&[2, 2, 2], DType::Float32).unwrap(),
            np::ones(&[3, 2, 2], DType::Float32).unwrap(),
        ),
        "matmul",
        "ShapeMismatch",
    );
}

#[test]
fn dot_inner_outer_vdot_tensordot() {
    let mut r = rng();
    let d = DType::Float32;
    let (a, av) = random_array(&mut r, &[3, 4], d, true);
    let (b, bv) = random_array(&mut r, &[2, 4, 5], d, false);
    // dot(2-D, 3-D): sum over a's last and b's second-to-last.
    let c = np::dot(&a, &b).unwrap();
    assert_eq!(c.shape(), &[3, 2, 5]);
    let want = map_ref(&[3, 2, 5], |o| {
        (0..4)
            .map(|q| av[o[0] * 4 + q] * bv[(o[1] * 4 + q) * 5 + o[2]])
            .sum()
    });
    assert_close_tol("dot", &c, &want, 1e-5);
    let (v, vv) = random_array(&mut r, &[4], d, false);
    let c = np::dot(&a, &v).unwrap();
    let want = map_ref(&[3], |o| (0..4).map(|q| av[o[0] * 4 + q] * vv[q]).sum());
    assert_close_tol("dot matrix vector", &c, &want, 1e-5);
    assert_eq!(
        np::dot(2, np::array([1, 2]).unwrap())
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![2, 4]
    );
    let c = np::inner(&a, &a).unwrap();
    let want = map_ref(&[3, 3], |o| {
        (0..4).map(|q| av[o[0] * 4 + q] * av[o[1] * 4 + q]).sum()
    });
    assert_close_tol("inner", &c, &want, 1e-5);
    let c = np::outer(&v, &a).unwrap();
    assert_eq!(c.shape(), &[4, 12]);
    let want = map_ref(&[4, 12], |o| round_to(vv[o[0]] * av[o[1]], d));
    assert_close("outer", &c, &want, d, EXACT);
    let c = np::vdot(&a, &a).unwrap();
    assert_close_tol("vdot", &c, &[av.iter().map(|x| x * x).sum()], 1e-5);
    assert_error(np::vdot(&a, &v), "vdot", "ShapeMismatch");
    let c = np::tensordot(&b, &a, &[1], &[1]).unwrap();
    assert_eq!(c.shape(), &[2, 5, 3]);
    let want = map_ref(&[2, 5, 3], |o| {
        (0..4)
            .map(|q| bv[(o[0] * 4 + q) * 5 + o[1]] * av[o[2] * 4 + q])
            .sum()
    });
    assert_close_tol("tensordot", &c, &want, 1e-5);
    assert_error(
        np::tensordot(&b, &a, &[0], &[1]),
        "tensordot",
        "ShapeMismatch",
    );
}

fn assert_close_tol(what: &str, got: &Array, want: &[f64], rel: f64) {
    let g = got.to_f64_vec().unwrap();
    assert_eq!(g.len(), want.len(), "{what}");
    for (i, (&x, &y)) in g.iter().zip(want).enumerate() {
        assert!(
            !x.is_nan() && (x - y).abs() <= rel * (1.0 + y.abs()) * 8.0,
            "{what}: element {i}: got {x}, want {y}"
        );
    }
}

#[test]
fn diagonal_trace_einsum() {
    let mut r = rng();
    for d in every_dtype() {
        let (x, xv) = random_array(&mut r, &[3, 4, 5], d, true);
        for off in [-2isize, 0, 1, 4, 7] {
            let g = np::diagonal(&x, off, 1, 2).unwrap();
            let (r0, c0) = if off >= 0 {
                (0, off as usize)
            } else {
                ((-off) as usize, 0)
            };
            let len = (4usize.saturating_sub(r0)).min(5usize.saturating_sub(c0));
            assert_eq!(g.shape(), &[3, len]);
            let want = map_ref(&[3, len], |o| xv[o[0] * 20 + (r0 + o[1]) * 5 + c0 + o[1]]);
            assert_close("diagonal", &g, &want, d, EXACT);
        }
        let g = np::diagonal(&x, 0, 2, 0).unwrap();
        let want = map_ref(&[4, 3], |o| xv[o[1] * 20 + o[0] * 5 + o[1]]);
        assert_close("diagonal axes", &g, &want, d, EXACT);
    }
    let x = np::reshape(np::arange(12).unwrap(), &[3, 4]).unwrap();
    assert_eq!(np::trace(&x, 0, 0, 1).unwrap().item::<i32>().unwrap(), 15);
    assert_eq!(
        np::trace(&x, 1, 0, 1).unwrap().item::<i32>().unwrap(),
        1 + 6 + 11
    );
    assert_error(
        np::diagonal(np::arange(3).unwrap(), 0, 0, 1),
        "diagonal",
        "ShapeMismatch",
    );
    assert_error(np::diagonal(&x, 0, 1, 1), "diagonal", "InvalidArgument");

    let mut r2 = rng();
    let f = DType::Float32;
    let (a, av) = random_array(&mut r2, &[2, 3, 4], f, false);
    let (b, bv) = random_array(&mut r2, &[2, 4, 5], f, true);
    let c = np::einsum("bij,bjk->bik", [&a, &b]).unwrap();
    let (want, _) = host_matmul(&av, &bv, (2, 3, 4, 5), f);
    assert_close_tol("einsum batched", &c, &want, 1e-5);
    let c = np::einsum("bij,bjk->kib", [&a, &b]).unwrap();
    assert_eq!(c.shape(), &[5, 3, 2]);
    let want2 = map_ref(&[5, 3, 2], |o| want[(o[2] * 3 + o[1]) * 5 + o[0]]);
    assert_close_tol("einsum permuted output", &c, &want2, 1e-5);
    let c = np::einsum("bij->jb", [&a]).unwrap();
    let want = map_ref(&[4, 2], |o| {
        (0..3).map(|i| av[o[1] * 12 + i * 4 + o[0]]).sum()
    });
    assert_close_tol("einsum sum", &c, &want, 1e-5);
    let c = np::einsum(
        "i,j",
        [
            np::array([1.0f32, 2.0]).unwrap(),
            np::array([3.0f32, 4.0, 5.0]).unwrap(),
        ],
    )
    .unwrap();
    assert_eq!(
        c.to_vec::<f32>().unwrap(),
        vec![3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
    );
    let sq = np::reshape(np::arange(9).unwrap(), &[3, 3]).unwrap();
    assert_eq!(np::einsum("ii", [&sq]).unwrap().item::<i32>().unwrap(), 12);
    assert_eq!(
        np::einsum("ii->i", [&sq]).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 4, 8]
    );
    assert_eq!(
        np::einsum("ij->ji", [&sq])
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![0, 3, 6, 1, 4, 7, 2, 5, 8]
    );
    assert_eq!(
        np::einsum("ij,jk,kl->il", [&sq, &sq, &sq])
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        np::matmul(np::matmul(&sq, &sq).unwrap(), &sq)
            .unwrap()
            .to_vec::<i32>()
            .unwrap()
    );
    assert_error(np::einsum("ij,jk", [&sq]), "einsum", "InvalidArgument");
    assert_error(np::einsum("ij,jk", [&sq, &a]), "einsum", "ShapeMismatch");
    assert_error(np::einsum("ij->q", [&sq]), "einsum", "InvalidArgument");
    assert_error(np::einsum("i...", [&sq, &sq]), "einsum", "InvalidArgument");
    assert_eq!(
        np::einsum("...i", [&sq]).unwrap().to_vec::<i32>().unwrap(),
        sq.to_vec::<i32>().unwrap()
    );
}

/// The workgroup-memory (staged) variant GPUs use, forced on this adapter: same results.
#[test]
fn staged_matmul_kernel_matches() {
    let dev = olympus::Device::new(olympus::DeviceOptions {
        matmul_workgroup_tiles: Some(true),
        ..Default::default()
    })
    .unwrap();
    let mut r = rng();
    olympus::with_device(&dev, || {
        for d in every_dtype() {
            for &(m, k, n) in &[(1, 1, 1), (65, 17, 70), (3, 130, 5)] {
                let (a, av) = random_array(&mut r, &[m, k], d, true);
                let (b, bv) = random_array(&mut r, &[k, n], d, false);
                assert_eq!(a.device(), &dev);
                let c = np::matmul(&a, &b).unwrap();
                let (want, scale) = host_matmul(&av, &bv, (1, m, k, n), d);
                check(
                    &format!("staged matmul {m}x{k}x{n}"),
                    &c,
                    &want,
                    &scale,
                    k,
                    d,
                );
            }
        }
    });
}

/// The register-blocked variant (128x128 tiles, 8x8 blocks per thread), forced on this
/// adapter: the same results at its tile edges, with `k` tails of every length modulo its
/// depth of 8, transposed operands, batches, every dtype, and the products under 128 rows
/// or columns that fall back to the staged kernel.
#[test]
fn register_matmul_kernel_matches() {
    let dev = olympus::Device::new(olympus::DeviceOptions {
        matmul_workgroup_tiles: Some(true),
        matmul_register_tiles: Some(true),
        ..Default::default()
    })
    .unwrap();
    let mut r = rng();
    olympus::with_device(&dev, || {
        let mut shapes = vec![(127, 9, 200), (130, 5, 64), (128, 67, 128)];
        // Every `k` from 1 to 16: each tail of the kernel's 8 steps, one or two steps.
        for (i, &m) in [128usize, 129, 255, 257].iter().enumerate() {
            for (j, &n) in [128usize, 131, 256, 260].iter().enumerate() {
                shapes.push((m, 1 + 4 * i + j, n));
            }
        }
        for &(m, k, n) in &shapes {
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                let (a, av) = random_array(&mut r, &[m, k], DType::Float32, ta);
                let (b, bv) = random_array(&mut r, &[k, n], DType::Float32, tb);
                assert_eq!(a.device(), &dev);
                let c = np::matmul(&a, &b).unwrap();
                let (want, scale) = host_matmul(&av, &bv, (1, m, k, n), DType::Float32);
                let what = format!("register matmul {m}x{k}x{n} ({ta}, {tb})");
                check(&what, &c, &want, &scale, k, DType::Float32);
            }
        }
        for d in every_dtype() {
            let (a, av) = random_array(&mut r, &[2, 133, 11], d, true);
            let (b, bv) = random_array(&mut r, &[2, 11, 140], d, false);
            let c = np::matmul(&a, &b).unwrap();
            let (want, scale) = host_matmul(&av, &bv, (2, 133, 11, 140), d);
            check(
                &format!("register matmul batched {d}"),
                &c,
                &want,
                &scale,
                11,
                d,
            );
        }
    });
}

/// JAX's `precision=`: every level gives the full-float32 product (Olympus has no
/// reduced-precision passes), bit for bit the same as `matmul`/`dot`, eagerly and under
/// `jit`, for float32 and float16 operands (float16 accumulates in float32 either way).
#[test]
fn precision_levels_give_the_full_float32_product() {
    let mut r = rng();
    for dtype in [DType::Float32, DType::Float16] {
        let (a, _) = random_array(&mut r, &[7, 33], dtype, false);
        let (b, _) = random_array(&mut r, &[33, 5], dtype, true);
        let want = np::matmul(&a, &b).unwrap();
        let want_dot = np::dot(&a, &b).unwrap();
        let bits = |x: &Array| x.astype(DType::Float32).unwrap().to_vec::<f32>().unwrap();
        for p in [
            np::Precision::Default,
            np::Precision::High,
            np::Precision::Highest,
        ] {
            let got = np::matmul_with(&a, &b, p).unwrap();
            assert_eq!(got.dtype(), dtype);
            assert_eq!(bits(&got), bits(&want), "{p:?} {dtype}");
            assert_eq!(bits(&np::dot_with(&a, &b, p).unwrap()), bits(&want_dot));
            let jitted = olympus::jit(move |(a, b): (Array, Array)| np::matmul_with(&a, &b, p));
            assert_eq!(
                bits(&jitted.call((a.clone(), b.clone())).unwrap()),
                bits(&want)
            );
        }
    }
}

/// Whether `got` has `want`'s bits (any NaN for a NaN).
fn same_bits(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits())
}

/// Products over `k == 1` (outer products) give each product's bits, as JAX's do (XLA
/// makes such a dot a multiply): a `-0.0` product stays `-0.0` (a sum started from `0.0`
/// would lose the sign), infinity times zero is NaN, narrow floats round once, integers
/// wrap and bool is `and`. Eagerly, under `jit`, by `vmap` of a column times a row, and
/// by `einsum`. Values from `python3 tests/data/gen_outer_products.py` (JAX 0.10.2).
#[test]
fn products_over_one_keep_each_product_as_jax() {
    for line in include_str!("../data/outer_products.txt").lines() {
        let parts: Vec<&str> = line.split(" | ").collect();
        let d = DType::from_name(parts[0]).unwrap();
        let vals = |s: &str| -> Vec<f64> { s.split(' ').map(|v| v.parse().unwrap()).collect() };
        let (av, bv, want) = (vals(parts[1]), vals(parts[2]), vals(parts[3]));
        let a = make(&av, &[2, 3, 1], d);
        let b = make(&bv, &[2, 1, 4], d);
        let product = |(a, b): (Array, Array)| np::matmul(&a, &b);
        let got = [
            ("eager", np::matmul(&a, &b).unwrap()),
            (
                "jit",
                olympus::jit(product).call((a.clone(), b.clone())).unwrap(),
            ),
            (
                "vmap",
                olympus::vmap(product, (0, 0), 0)((a.clone(), b.clone())).unwrap(),
            ),
            ("einsum", np::einsum("bik,bkj->bij", [&a, &b]).unwrap()),
        ];
        for (how, r) in got {
            assert_eq!(r.dtype(), d, "{d} {how}");
            assert_eq!(r.shape(), &[2, 3, 4], "{d} {how}");
            let g = r.to_f64_vec().unwrap();
            assert!(same_bits(&g, &want), "{d} {how}: {g:?} against {want:?}");
        }
    }
    // 1-D operands of one element (a dot of one product, -0.0 in JAX too), a column
    // times a row, and a row times a one-element column.
    let v = |x: &[f32], shape: &[usize]| Array::from_slice(x, shape).unwrap();
    let dot = np::dot(v(&[-0.0], &[1]), v(&[3.0], &[1])).unwrap();
    assert_eq!(dot.shape(), &[] as &[usize]);
    assert!(dot.to_vec::<f32>().unwrap()[0].is_sign_negative());
    let outer = np::matmul(v(&[-0.0, 2.0], &[2, 1]), v(&[1.0, -0.0, 4.0], &[1, 3])).unwrap();
    let got: Vec<u32> = outer
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    let want: Vec<u32> = [-0.0f32, 0.0, -0.0, 2.0, -0.0, 8.0]
        .iter()
        .map(|x| x.to_bits())
        .collect();
    assert_eq!(got, want);
    let row = np::matmul(v(&[-0.0], &[1, 1]), v(&[5.0, -1.0], &[1, 2])).unwrap();
    let got: Vec<u32> = row
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    assert_eq!(got, [(-0.0f32).to_bits(), 0.0f32.to_bits()]);
}

/// The weight gradient `vmap` of `grad` makes per example (the outer product of an input
/// row and an output cotangent) keeps each product's sign, and under `jit` its uses read
/// it without storing it: the squared norm per example is one fused reduction.
#[test]
fn per_example_outer_products_fuse_into_their_reductions() {
    let x = Array::from_slice(&[-0.0f32, 1.0, -1.0, 2.0, 0.5, -3.0], &[2, 3]).unwrap();
    let c = Array::from_slice(&[0.0f32, -2.0, 1.5, -0.0, 4.0, 1.0, -1.0, 0.25], &[2, 4]).unwrap();
    let w = np::ones(&[3, 4], DType::Float32).unwrap();
    // d/dw sum(x_row @ w * c_row) is x_row's column times c_row.
    let grad_w = |(x, c, w): (Array, Array, Array)| {
        olympus::grad(move |w: Array| {
            np::sum(
                np::multiply(np::matmul(np::expand_dims(&x, &[0])?, &w)?, &c)?,
                None,
                false,
            )
        })(w)
    };
    let per_example = olympus::vmap(grad_w, (0, 0, olympus::Axes::Unmapped), 0);
    let g = per_example((x.clone(), c.clone(), w.clone())).unwrap();
    assert_eq!(g.shape(), &[2, 3, 4]);
    let xv = x.to_vec::<f32>().unwrap();
    let cv = c.to_vec::<f32>().unwrap();
    let want: Vec<f64> = (0..24)
        .map(|e| f64::from(xv[e / 12 * 3 + e / 4 % 3] * cv[e / 12 * 4 + e % 4]))
        .collect();
    assert!(
        same_bits(&g.to_f64_vec().unwrap(), &want),
        "{:?} against {want:?}",
        g.to_f64_vec().unwrap()
    );
    let norms = olympus::jit(move |(x, c, w): (Array, Array, Array)| {
        let g = olympus::vmap(grad_w, (0, 0, olympus::Axes::Unmapped), 0)((x, c, w))?;
        np::sum(np::square(&g)?, Some(&[1, 2]), false)
    });
    let args = (x.clone(), c.clone(), w.clone());
    let lowered = norms.lower(&args).unwrap();
    // One product, the forward one (dead under `grad`): the gradient's is a multiply,
    // which the norm's reduction computes as it reads it. One kernel: the reduction, which
    // also computes the cotangent (`c` times the loss's unit seed) where it reads its
    // broadcast; nothing is stored but the norms.
    assert_eq!(
        lowered.to_string().matches("batch_matmul").count(),
        1,
        "{lowered}"
    );
    assert_eq!(lowered.fused_kernels(), 1, "{lowered}");
    let got = norms.call(args).unwrap().to_vec::<f32>().unwrap();
    let sq: Vec<f32> = want.iter().map(|&v| (v * v) as f32).collect();
    let host: Vec<f32> = sq.chunks(12).map(|r| r.iter().sum()).collect();
    for (g, h) in got.iter().zip(&host) {
        assert!((g - h).abs() <= 1e-5 * h.abs(), "{got:?} against {host:?}");
    }
}

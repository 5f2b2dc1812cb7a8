//! argmax/argmin, var/std, logsumexp, nan-reductions, count_nonzero, cumsum/cumprod,
//! sort/argsort and median against f64 host references.

use crate::common::*;
use olympus::{numpy as np, Array, DType};

/// The elements of each output position's slice over `axes`, in C order, and the output
/// shape (reduced axes removed).
fn groups(v: &[f64], shape: &[usize], axes: &[usize]) -> (Vec<usize>, Vec<Vec<f64>>) {
    let out_shape: Vec<usize> = (0..shape.len())
        .filter(|i| !axes.contains(i))
        .map(|i| shape[i])
        .collect();
    let n_out: usize = out_shape.iter().product();
    let mut out = vec![Vec::new(); n_out];
    for (i, &x) in v.iter().enumerate() {
        let idx = unravel_c(i, shape);
        let o = (0..shape.len())
            .filter(|d| !axes.contains(d))
            .fold(0, |acc, d| acc * shape[d] + idx[d]);
        out[o].push(x);
    }
    (out_shape, out)
}

fn with_nans(r: &mut rand::rngs::StdRng, v: &mut [f64]) {
    use rand::Rng;
    for x in v.iter_mut() {
        if r.random_range(0..5) == 0 {
            *x = f64::NAN;
        }
    }
}

/// Rows and columns long enough for three and four passes of (value, position) pairs,
/// with many ties, so the first of equal values must survive every pass whichever thread,
/// lane or partial meets it first: every dtype, rows and columns, a transposed operand,
/// NaNs late in a row (the first wins), rows of nothing but -inf or +inf, and the best
/// value in a row's last element.
#[test]
fn argmax_argmin_keep_the_first_over_many_passes() {
    use olympus::{Device, DeviceOptions};
    let devices = [
        Device::new(DeviceOptions::default()).unwrap(),
        // Storage buffers read through 64 KiB windows (no textures).
        Device::new(DeviceOptions {
            max_binding_bytes: Some(1 << 16),
            texture_input_bytes: Some(u64::MAX),
            ..DeviceOptions::default()
        })
        .unwrap(),
        // Partials of the passes bound as many 1 KiB windows (inputs read as textures).
        Device::new(DeviceOptions {
            max_binding_bytes: Some(1024),
            texture_input_bytes: Some(0),
            ..DeviceOptions::default()
        })
        .unwrap(),
        // Too few bindings for one pass over 8 KiB windows: the two-tree form, which
        // reduces slabs of rows and stores its compared values first.
        Device::new(DeviceOptions {
            max_binding_bytes: Some(8192),
            max_storage_buffers: Some(4),
            texture_input_bytes: Some(u64::MAX),
            ..DeviceOptions::default()
        })
        .unwrap(),
    ];
    let long = [
        ([3usize, 70_001usize], 1usize, false),
        // Rows four at a time.
        ([3, 70_000], 1, false),
        ([5_003, 3], 0, false),
        // Columns four at a time.
        ([5_003, 8], 0, false),
        ([3, 5_003], 1, true),
    ];
    let few = [
        ([64, 515], 1, false),
        ([64, 512], 1, false),
        ([515, 64], 0, false),
    ];
    let windows = [([3, 70_000], 1, false), ([5_003, 8], 0, false)];
    for (dev, cases) in devices.iter().zip([&long[..], &long, &windows, &few]) {
        olympus::with_device(dev, || arg_reductions_keep_the_first(cases));
    }
}

fn arg_reductions_keep_the_first(cases: &[([usize; 2], usize, bool)]) {
    use rand::Rng;
    let mut r = rng();
    for d in every_dtype() {
        for &(shape, axis, transposed) in cases {
            let n = shape[0] * shape[1];
            let top = if d == DType::Bool { 2 } else { 5 };
            let v: Vec<f64> = (0..n).map(|_| f64::from(r.random_range(0..top))).collect();
            // The row or column at `line` in C order of `shape`.
            let at = |line: usize, j: usize| {
                if axis == 1 {
                    line * shape[1] + j
                } else {
                    j * shape[1] + line
                }
            };
            let len = shape[axis];
            let build = |v: &[f64]| {
                if transposed {
                    let t = map_ref(&[shape[1], shape[0]], |o| v[o[1] * shape[1] + o[0]]);
                    np::transpose(make(&t, &[shape[1], shape[0]], d), None).unwrap()
                } else {
                    make(v, &shape, d)
                }
            };
            for is_max in [true, false] {
                let mut vv = v.clone();
                // Line 0: the best value only in its last element.
                let (fill, best) = match (d == DType::Bool, is_max) {
                    (true, true) => (0.0, 1.0),
                    (true, false) => (1.0, 0.0),
                    (false, true) => (1.0, 4.0),
                    (false, false) => (1.0, 0.0),
                };
                for j in 0..len {
                    vv[at(0, j)] = fill;
                }
                vv[at(0, len - 1)] = best;
                if d.is_floating() {
                    // Line 1: NaNs late, the first of them at len - len / 8.
                    vv[at(1, len - len / 8)] = f64::NAN;
                    vv[at(1, len - 3)] = f64::NAN;
                }
                // Line 2: every element the worst value of the dtype (the passes'
                // identity: -inf, the least integer, false), so only positions decide.
                let (lo, hi) = match d.integer_range() {
                    Some((lo, hi)) => (lo as f64, hi as f64),
                    None if d == DType::Bool => (0.0, 1.0),
                    None => (f64::NEG_INFINITY, f64::INFINITY),
                };
                for j in 0..len {
                    vv[at(2, j)] = if is_max { lo } else { hi };
                }
                let xx = build(&vv);
                let got = if is_max {
                    np::argmax(&xx, Some(axis as isize), false)
                } else {
                    np::argmin(&xx, Some(axis as isize), false)
                }
                .unwrap();
                let (_, gs) = groups(&vv, &shape, &[axis]);
                let want: Vec<f64> = gs.iter().map(|g| first_extreme(g, is_max)).collect();
                let what = format!(
                    "arg{} of {d}{shape:?} along {axis}{}",
                    if is_max { "max" } else { "min" },
                    if transposed { ", transposed" } else { "" }
                );
                assert_close(&what, &got, &want, DType::Int32, EXACT);
            }
        }
    }
}

#[test]
fn argmax_argmin_first_occurrence_and_nan() {
    let mut r = rng();
    let shape = [4usize, 6];
    for d in every_dtype() {
        for transposed in [false, true] {
            let (_, mut v) = random_array(&mut r, &shape, d, false);
            // Repeats, so "first occurrence" matters; NaNs for floats.
            for i in 0..v.len() / 3 {
                v[i * 3 + 1] = v[i * 3];
            }
            if d.is_floating() {
                with_nans(&mut r, &mut v);
            }
            let x = if transposed {
                np::transpose(
                    make(&map_ref(&[6, 4], |o| v[o[1] * 6 + o[0]]), &[6, 4], d),
                    None,
                )
                .unwrap()
            } else {
                make(&v, &shape, d)
            };
            for axis in [None, Some(0isize), Some(-1)] {
                for is_max in [true, false] {
                    let got = if is_max {
                        np::argmax(&x, axis, false)
                    } else {
                        np::argmin(&x, axis, false)
                    }
                    .unwrap();
                    let axes: Vec<usize> = match axis {
                        None => vec![0, 1],
                        Some(a) => vec![a.rem_euclid(2) as usize],
                    };
                    let (os, gs) = groups(&v, &shape, &axes);
                    let want: Vec<f64> = gs.iter().map(|g| first_extreme(g, is_max)).collect();
                    assert_eq!(got.shape(), os.as_slice());
                    assert_close(
                        &format!("arg{} {axis:?} {d}", if is_max { "max" } else { "min" }),
                        &got,
                        &want,
                        DType::Int32,
                        EXACT,
                    );
                }
            }
            let k = np::argmax(&x, Some(1), true).unwrap();
            assert_eq!(k.shape(), &[4, 1]);
            assert_eq!(np::argmin(&x, None, true).unwrap().shape(), &[1, 1]);
        }
    }
    let e = np::argmax(np::zeros(&[3, 0], DType::Float32).unwrap(), Some(1), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("argmax") && e.contains("empty"), "{e}");
    assert_eq!(
        np::argmax(np::zeros(&[0, 3], DType::Float32).unwrap(), Some(1), false)
            .unwrap()
            .shape(),
        &[0]
    );
}

#[test]
fn var_std_logsumexp_nan_reductions_count() {
    let mut r = rng();
    let shape = [5usize, 7, 3];
    for d in [DType::Float32, DType::Float16, DType::Int32] {
        let (x, mut v) = random_array(&mut r, &shape, d, true);
        let f = if d == DType::Float16 {
            DType::Float16
        } else {
            DType::Float32
        };
        let tol = if d == DType::Float16 { 2.0 } else { 8.0 };
        for axes in [vec![1usize], vec![0, 2], vec![0, 1, 2]] {
            let ax: Vec<isize> = axes.iter().map(|&a| a as isize).collect();
            let (os, gs) = groups(&v, &shape, &axes);
            for ddof in [0usize, 1] {
                let want: Vec<f64> = gs
                    .iter()
                    .map(|g| {
                        let m = g.iter().sum::<f64>() / g.len() as f64;
                        round_to(
                            g.iter().map(|x| (x - m) * (x - m)).sum::<f64>()
                                / (g.len() - ddof) as f64,
                            f,
                        )
                    })
                    .collect();
                let got = np::var(&x, Some(&ax), ddof, false).unwrap();
                assert_eq!(got.shape(), os.as_slice());
                assert_close(&format!("var {axes:?} {d}"), &got, &want, f, tol * 4.0);
                let got = np::std(&x, Some(&ax), ddof, true).unwrap();
                assert_eq!(got.ndim(), 3);
                let want: Vec<f64> = want.iter().map(|w| round_to(w.sqrt(), f)).collect();
                assert_close(&format!("std {axes:?} {d}"), &got, &want, f, tol * 4.0);
            }
            if d.is_floating() {
                // log(sum) + max can cancel: the error is measured against the scale of
                // the terms (the max), in ulps of the dtype.
                let got = np::logsumexp(&x, Some(&ax), false)
                    .unwrap()
                    .to_f64_vec()
                    .unwrap();
                for (i, g) in gs.iter().enumerate() {
                    let m = g.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    let want = m + g.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
                    let scale = ulp_of(m.abs().max(want.abs()).max(1.0), f);
                    assert!(
                        (got[i] - want).abs() <= tol * scale,
                        "logsumexp {axes:?} {d}: element {i}: got {}, want {want}",
                        got[i]
                    );
                }
            }
        }
        if d.is_floating() {
            with_nans(&mut r, &mut v);
            // Make one slice all NaN.
            v[..3].fill(f64::NAN);
            let x = make(&v, &shape, d);
            let (_, gs) = groups(&v, &shape, &[2]);
            let clean = |g: &Vec<f64>| {
                g.iter()
                    .copied()
                    .filter(|x| !x.is_nan())
                    .collect::<Vec<f64>>()
            };
            let want: Vec<f64> = gs
                .iter()
                .map(|g| round_to(clean(g).iter().sum(), f))
                .collect();
            assert_close(
                "nansum",
                &np::nansum(&x, Some(&[2]), false).unwrap(),
                &want,
                f,
                tol,
            );
            let want: Vec<f64> = gs
                .iter()
                .map(|g| {
                    let c = clean(g);
                    round_to(c.iter().sum::<f64>() / c.len() as f64, f)
                })
                .collect();
            assert_close(
                "nanmean",
                &np::nanmean(&x, Some(&[2]), false).unwrap(),
                &want,
                f,
                tol,
            );
            let want: Vec<f64> = gs
                .iter()
                .map(|g| {
                    let c = clean(g);
                    if c.is_empty() {
                        f64::NAN
                    } else {
                        c.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                    }
                })
                .collect();
            assert_close(
                "nanmax",
                &np::nanmax(&x, Some(&[2]), false).unwrap(),
                &want,
                f,
                EXACT,
            );
            let want: Vec<f64> = gs
                .iter()
                .map(|g| {
                    let c = clean(g);
                    if c.is_empty() {
                        f64::NAN
                    } else {
                        c.iter().cloned().fold(f64::INFINITY, f64::min)
                    }
                })
                .collect();
            assert_close(
                "nanmin",
                &np::nanmin(&x, Some(&[2]), false).unwrap(),
                &want,
                f,
                EXACT,
            );
            let want: Vec<f64> = gs
                .iter()
                .map(|g| g.iter().filter(|&&x| x != 0.0).count() as f64)
                .collect();
            assert_close(
                "count_nonzero",
                &np::count_nonzero(&x, Some(&[-1]), false).unwrap(),
                &want,
                DType::Int32,
                EXACT,
            );
        }
    }
    // logsumexp edge values: all -inf, +inf, empty.
    let x = np::array([f32::NEG_INFINITY, f32::NEG_INFINITY]).unwrap();
    assert_eq!(
        np::logsumexp(&x, None, false)
            .unwrap()
            .item::<f32>()
            .unwrap(),
        f32::NEG_INFINITY
    );
    let x = np::array([1.0f32, f32::INFINITY]).unwrap();
    assert_eq!(
        np::logsumexp(&x, None, false)
            .unwrap()
            .item::<f32>()
            .unwrap(),
        f32::INFINITY
    );
    assert_eq!(
        np::logsumexp(np::zeros(&[0], DType::Float32).unwrap(), None, false)
            .unwrap()
            .item::<f32>()
            .unwrap(),
        f32::NEG_INFINITY
    );
    assert_error(
        np::nanmax(np::zeros(&[0], DType::Float32).unwrap(), None, false),
        "nanmax",
        "ShapeMismatch",
    );
    assert_eq!(
        np::count_nonzero([true, false, true], None, false)
            .unwrap()
            .item::<i32>()
            .unwrap(),
        2
    );
}

#[test]
fn cumsum_cumprod() {
    let mut r = rng();
    for d in every_dtype() {
        for &n in &[1usize, 7, 257] {
            let (x, v) = random_array(&mut r, &[3, n], d, true);
            let got = np::cumsum(&x, Some(1)).unwrap();
            let out = if d == DType::Bool { DType::Int32 } else { d };
            let want = map_ref(&[3, n], |o| {
                let row = &v[o[0] * n..o[0] * n + o[1] + 1];
                match d {
                    DType::Int32 | DType::Bool => {
                        f64::from(row.iter().fold(0i32, |a, &x| a.wrapping_add(x as i32)))
                    }
                    DType::UInt32 => {
                        f64::from(row.iter().fold(0u32, |a, &x| a.wrapping_add(x as u32)))
                    }
                    // Floats in XLA's order, rounded after every operation.
                    _ => xla_scan(&v[o[0] * n..(o[0] + 1) * n], d, false)[o[1]],
                }
            });
            assert_close(&format!("cumsum {d} n={n}"), &got, &want, out, EXACT);
        }
    }
    let x = np::array([[1.5f32, 2.0], [-1.0, 4.0]]).unwrap();
    assert_eq!(
        np::cumprod(&x, None).unwrap().to_vec::<f32>().unwrap(),
        vec![1.5, 3.0, -3.0, -12.0]
    );
    assert_eq!(
        np::cumprod(&x, Some(0)).unwrap().to_vec::<f32>().unwrap(),
        vec![1.5, 2.0, -1.5, 8.0]
    );
    assert_eq!(
        np::cumsum(np::zeros(&[0], DType::Int32).unwrap(), None)
            .unwrap()
            .shape(),
        &[0]
    );
    assert_eq!(
        np::cumsum(5, None).unwrap().to_vec::<i32>().unwrap(),
        vec![5]
    );
}

fn host_argsort(g: &[f64]) -> Vec<usize> {
    host_argsort_by(g, false)
}

#[test]
fn sort_argsort_median() {
    let mut r = rng();
    for d in every_dtype() {
        for &n in &[1usize, 7, 33, 1000] {
            let (_, mut v) = random_array(&mut r, &[3, n], d, false);
            for i in 0..v.len() / 4 {
                v[i * 4 + 2] = v[i * 4]; // ties: stability matters
            }
            if d.is_floating() {
                with_nans(&mut r, &mut v);
            }
            let x = make(&v, &[3, n], d);
            let xt = np::transpose(
                make(&map_ref(&[n, 3], |o| v[o[1] * n + o[0]]), &[n, 3], d),
                None,
            )
            .unwrap();
            for input in [&x, &xt] {
                let s = np::sort(input, Some(-1)).unwrap();
                let a = np::argsort(input, Some(1)).unwrap();
                let (mut ws, mut wa) = (Vec::new(), Vec::new());
                for row in 0..3 {
                    let g = &v[row * n..(row + 1) * n];
                    let p = host_argsort(g);
                    ws.extend(p.iter().map(|&i| g[i]));
                    wa.extend(p.iter().map(|&i| i as f64));
                }
                assert_close(&format!("sort {d} n={n}"), &s, &ws, d, EXACT);
                assert_close(&format!("argsort {d} n={n}"), &a, &wa, DType::Int32, EXACT);
                let back = np::take_along_axis(input, &a, 1).unwrap();
                assert_close("take_along_axis(argsort)", &back, &ws, d, EXACT);
                // Descending (JAX's descending=True): NaN first, ties in original order.
                let s = np::sort_with(input, Some(-1), true, true).unwrap();
                let a = np::argsort_with(input, Some(1), true, true).unwrap();
                let (mut ws, mut wa) = (Vec::new(), Vec::new());
                for row in 0..3 {
                    let g = &v[row * n..(row + 1) * n];
                    let p = host_argsort_by(g, true);
                    ws.extend(p.iter().map(|&i| g[i]));
                    wa.extend(p.iter().map(|&i| i as f64));
                }
                assert_close(&format!("sort descending {d} n={n}"), &s, &ws, d, EXACT);
                let what = format!("argsort descending {d} n={n}");
                assert_close(&what, &a, &wa, DType::Int32, EXACT);
            }
            if d != DType::Bool {
                let m = np::median(&x, Some(&[1]), false).unwrap();
                let f = if matches!(d, DType::Float16 | DType::BFloat16) {
                    d
                } else {
                    DType::Float32
                };
                let want: Vec<f64> = (0..3)
                    .map(|row| {
                        let g = &v[row * n..(row + 1) * n];
                        if g.iter().any(|x| x.is_nan()) {
                            return f64::NAN;
                        }
                        let mut s = g.to_vec();
                        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
                        // As JAX: the values become float32 (or stay 16-bit floats) first, then
                        // the two middles average in float32.
                        let (a, b) = (round_to(s[(n - 1) / 2], f), round_to(s[n / 2], f));
                        if n % 2 == 1 {
                            a
                        } else {
                            round_to(round_to(a + b, DType::Float32) / 2.0, f)
                        }
                    })
                    .collect();
                assert_close(&format!("median {d} n={n}"), &m, &want, f, EXACT);
            }
        }
    }
    // Along axis 0, flattened, over several axes, 0-d and empty.
    let x = np::array([[3, 1], [2, 5], [1, 4]]).unwrap();
    assert_eq!(
        np::sort(&x, Some(0)).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 1, 2, 4, 3, 5]
    );
    assert_eq!(
        np::sort(&x, None).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 1, 2, 3, 4, 5]
    );
    assert_eq!(
        np::median(&x, None, true).unwrap().to_vec::<f32>().unwrap(),
        vec![2.5]
    );
    assert_error(
        np::sort(np::asarray(1).unwrap(), Some(0)),
        "sort",
        "ShapeMismatch",
    );
    assert_eq!(
        np::sort(np::zeros(&[2, 0], DType::Float32).unwrap(), Some(1))
            .unwrap()
            .shape(),
        &[2, 0]
    );
    assert!(
        np::median(np::zeros(&[0], DType::Float32).unwrap(), None, false)
            .unwrap()
            .item::<f32>()
            .unwrap()
            .is_nan()
    );
    let _: Option<Array> = None;
}

/// Leading-axis reductions take the column kernel (vec4 columns when rows are whole
/// vectors, scalar otherwise) over several passes: check them on shapes that hit each.
#[test]
fn leading_axis_reductions_every_kernel_path() {
    let mut r = rng();
    for d in [DType::Float32, DType::Int32, DType::UInt32, DType::Float16] {
        for shape in [[37usize, 8], [300, 12], [5, 7], [1, 4], [20, 1]] {
            let (x, v) = random_array(&mut r, &shape, d, false);
            let (_, gs) = groups(&v, &shape, &[0]);
            let sum_want: Vec<f64> = gs
                .iter()
                .map(|g| match d {
                    DType::Int32 => {
                        f64::from(g.iter().fold(0i32, |a, &b| a.wrapping_add(b as i32)))
                    }
                    DType::UInt32 => {
                        f64::from(g.iter().fold(0u32, |a, &b| a.wrapping_add(b as u32)))
                    }
                    _ => round_to(g.iter().sum(), d),
                })
                .collect();
            let tol = if d == DType::Float16 { 2.0 } else { 64.0 };
            let got = np::sum(&x, Some(&[0]), false).unwrap();
            if d == DType::Float32 {
                // Tree of 16-way sums: error bounded by the scale of the terms.
                let g = got.to_f64_vec().unwrap();
                for (i, (&a, &b)) in g.iter().zip(&sum_want).enumerate() {
                    let scale: f64 = gs[i].iter().map(|x| x.abs()).sum();
                    assert!(
                        (a - b).abs() <= scale * 1e-6 + 1e-6,
                        "sum {shape:?} column {i}: {a} vs {b}"
                    );
                }
            } else {
                assert_close(&format!("sum {shape:?} {d}"), &got, &sum_want, d, tol);
            }
            let max_want: Vec<f64> = gs
                .iter()
                .map(|g| g.iter().cloned().fold(f64::NEG_INFINITY, f64::max))
                .collect();
            assert_close(
                &format!("max {shape:?} {d}"),
                &np::max(&x, Some(&[0]), false).unwrap(),
                &max_want,
                d,
                EXACT,
            );
            let min_want: Vec<f64> = gs
                .iter()
                .map(|g| g.iter().cloned().fold(f64::INFINITY, f64::min))
                .collect();
            assert_close(
                &format!("min {shape:?} {d}"),
                &np::min(&x, Some(&[0]), false).unwrap(),
                &min_want,
                d,
                EXACT,
            );
        }
    }
    // NaN propagates through vec4 column max.
    let mut v = vec![1.0f32; 64];
    v[37] = f32::NAN;
    let x = olympus::Array::from_slice(&v, &[16, 4]).unwrap();
    let m = np::max(&x, Some(&[0]), false)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(m[1].is_nan() && m[0] == 1.0 && m[2] == 1.0, "{m:?}");
}

/// JAX 0.10.2's own answers for `descending=True` (jnp.sort / jnp.argsort, stable).
#[test]
fn descending_sorts_match_jax() {
    let x = np::array([3.0f32, 1.0, f32::NAN, 3.0, 2.0, 1.0]).unwrap();
    let s = np::sort_with(&x, None, true, true)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(s[0].is_nan());
    assert_eq!(&s[1..], &[3.0, 3.0, 2.0, 1.0, 1.0]);
    let a = np::argsort_with(&x, None, true, true).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![2, 0, 3, 4, 1, 5]);
    let i = np::array([3, 1, 3, 2, 1]).unwrap();
    let a = np::argsort_with(&i, None, true, false).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![0, 2, 3, 1, 4]);
    let m = np::array([[3.0f32, 1.0, 2.0], [1.0, 1.0, 0.0]]).unwrap();
    let a = np::argsort_with(&m, Some(0), true, true).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![0, 0, 0, 1, 1, 1]);
    let a = np::argsort_with(&m, None, true, true).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![0, 2, 1, 3, 4, 5]);
}

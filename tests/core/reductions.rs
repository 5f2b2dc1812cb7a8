//! Reductions against f64 host references: every dtype, axes, keepdims, empty axes,
//! non-contiguous inputs, odd sizes, and 16M-element float32 sums.

use crate::common::*;
use half::f16;
use olympus::{numpy as np, DType};

type Reduce = fn(&olympus::Array, Option<&[isize]>, bool) -> olympus::Result<olympus::Array>;

fn host_reduce(
    v: &[f64],
    shape: &[usize],
    axes: &[usize],
    init: f64,
    f: impl Fn(f64, f64) -> f64,
) -> (Vec<usize>, Vec<f64>) {
    let out_shape: Vec<usize> = (0..shape.len())
        .filter(|i| !axes.contains(i))
        .map(|i| shape[i])
        .collect();
    let n_out: usize = out_shape.iter().product();
    let mut out = vec![init; n_out];
    let n: usize = shape.iter().product();
    for (i, &x) in v.iter().enumerate().take(n) {
        let mut rem = i;
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        let o = (0..shape.len())
            .filter(|d| !axes.contains(d))
            .fold(0, |acc, d| acc * shape[d] + idx[d]);
        out[o] = f(out[o], x);
    }
    (out_shape, out)
}

#[test]
fn every_reduction_every_dtype_and_axes() {
    let mut r = rng();
    let shape = [3usize, 4, 5];
    let axes_cases: &[Option<&[isize]>] = &[
        None,
        Some(&[0]),
        Some(&[1]),
        Some(&[-1]),
        Some(&[0, 2]),
        Some(&[2, 0, 1]),
        Some(&[]),
    ];
    for d in every_dtype() {
        let v: Vec<f64> = random_values(&mut r, d, 60)
            .into_iter()
            .map(|x| if d.is_integer() { (x % 7.0).trunc() } else { x })
            .collect();
        let x = make(&v, &shape, d);
        for &axis in axes_cases {
            let axes: Vec<usize> = match axis {
                None => vec![0, 1, 2],
                Some(a) => a
                    .iter()
                    .map(|&i| if i < 0 { (i + 3) as usize } else { i as usize })
                    .collect(),
            };
            // JAX's `promote_integers`: bool and small integers count in 32 bits.
            let sum_dtype = match d {
                DType::Bool => DType::Int32,
                d if d.is_integer() => d.compute_dtype(),
                d => d,
            };
            let wrap = |x: f64| -> f64 {
                match sum_dtype {
                    DType::Int32 => f64::from(x as i64 as i32),
                    DType::UInt32 => f64::from(x as i64 as u32),
                    _ => x,
                }
            };
            let cases: &[(&str, Reduce, f64, fn(f64, f64) -> f64, DType)] = &[
                (
                    "sum",
                    |a, x, k| np::sum(a, x, k),
                    0.0,
                    |a, b| a + b,
                    sum_dtype,
                ),
                (
                    "prod",
                    |a, x, k| np::prod(a, x, k),
                    1.0,
                    |a, b| a * b,
                    sum_dtype,
                ),
                (
                    "max",
                    |a, x, k| np::max(a, x, k),
                    f64::NEG_INFINITY,
                    f64::max,
                    d,
                ),
                (
                    "min",
                    |a, x, k| np::min(a, x, k),
                    f64::INFINITY,
                    f64::min,
                    d,
                ),
                (
                    "any",
                    |a, x, k| np::any(a, x, k),
                    0.0,
                    |a, b| f64::from(u8::from(a != 0.0 || b != 0.0)),
                    DType::Bool,
                ),
                (
                    "all",
                    |a, x, k| np::all(a, x, k),
                    1.0,
                    |a, b| f64::from(u8::from(a != 0.0 && b != 0.0)),
                    DType::Bool,
                ),
            ];
            for (name, f, init, op, out_dtype) in cases {
                let (out_shape, want) = host_reduce(&v, &shape, &axes, *init, op);
                let want: Vec<f64> = want
                    .into_iter()
                    .map(|w| {
                        if out_dtype.is_integer() {
                            wrap(w)
                        } else {
                            round_to(w, *out_dtype)
                        }
                    })
                    .collect();
                let got = f(&x, axis, false).unwrap();
                assert_eq!(got.shape(), out_shape.as_slice(), "{name} {d} {axis:?}");
                let count: usize = axes.iter().map(|&a| shape[a]).product();
                if out_dtype.is_floating() && (*name == "sum" || *name == "prod") {
                    // Rounding differs with the order: sums are bounded at the scale of the
                    // summed magnitudes, products relatively, both growing with the count.
                    let (_, mag) = host_reduce(&v, &shape, &axes, *init, |a, b| {
                        if *name == "sum" {
                            a + b.abs()
                        } else {
                            a * b.abs()
                        }
                    });
                    let g = got.to_f64_vec().unwrap();
                    for ((&gi, &wi), &mi) in g.iter().zip(&want).zip(&mag) {
                        let bound =
                            (count as f64 + 2.0) * ulp_of(mi, *out_dtype) + ulp_of(wi, *out_dtype);
                        assert!(
                            gi == wi || (gi - wi).abs() <= bound,
                            "{name} {d} {axis:?}: got {gi}, want {wi}"
                        );
                    }
                } else {
                    assert_close(
                        &format!("{name} {d} {axis:?}"),
                        &got,
                        &want,
                        *out_dtype,
                        EXACT,
                    );
                }
                let kept = f(&x, axis, true).unwrap();
                let kshape: Vec<usize> = (0..3)
                    .map(|i| if axes.contains(&i) { 1 } else { shape[i] })
                    .collect();
                assert_eq!(kept.shape(), kshape.as_slice());
            }
            let (_, s) = host_reduce(&v, &shape, &axes, 0.0, |a, b| a + b);
            let count: usize = axes.iter().map(|&a| shape[a]).product();
            let md = if matches!(d, DType::Float16 | DType::BFloat16) {
                d
            } else {
                DType::Float32
            };
            let want: Vec<f64> = s.iter().map(|x| round_to(x / count as f64, md)).collect();
            let (_, mag) = host_reduce(&v, &shape, &axes, 0.0, |a, b| a + b.abs());
            let g = np::mean(&x, axis, false).unwrap().to_f64_vec().unwrap();
            for ((&gi, &wi), &mi) in g.iter().zip(&want).zip(&mag) {
                let bound = (count as f64 + 2.0) * ulp_of(mi / count as f64, DType::Float32)
                    + ulp_of(wi, md);
                assert!(
                    count == 0 || (gi - wi).abs() <= bound,
                    "mean {d} {axis:?}: got {gi}, want {wi}"
                );
            }
        }
    }
}

#[test]
fn reductions_of_views_odd_sizes_and_empty_axes() {
    let mut r = rng();
    // A transposed input.
    let v = random_values(&mut r, DType::Float32, 7 * 257);
    let x = make(&v, &[7, 257], DType::Float32);
    let t = np::transpose(&x, None).unwrap();
    let got = np::sum(&t, Some(&[1]), false)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    for (j, g) in got.iter().enumerate() {
        let want: f64 = (0..7).map(|i| v[i * 257 + j]).sum();
        assert!(
            (g - want).abs() <= 1e-5 * (1.0 + want.abs()),
            "{j}: {g} vs {want}"
        );
    }
    for n in [1usize, 7, 257, 4096, 4097, 1_000_003] {
        let v = random_values(&mut r, DType::Int32, n)
            .into_iter()
            .map(|x| (x % 1000.0).trunc())
            .collect::<Vec<_>>();
        let a = make(&v, &[n], DType::Int32);
        let want: f64 = v.iter().sum();
        assert_eq!(
            np::sum(&a, None, false).unwrap().item::<i32>().unwrap() as f64,
            want,
            "n = {n}"
        );
        let mx = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(
            f64::from(np::max(&a, None, false).unwrap().item::<i32>().unwrap()),
            mx,
            "n = {n}"
        );
    }
    let e = np::zeros(&[3, 0], DType::Float32).unwrap();
    assert_eq!(
        np::sum(&e, Some(&[1]), false)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![0.0; 3]
    );
    assert_eq!(
        np::prod(&e, Some(&[1]), false)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![1.0; 3]
    );
    assert_eq!(np::sum(&e, Some(&[0]), false).unwrap().shape(), &[0]);
    assert!(np::all(&e, None, false).unwrap().item::<bool>().unwrap());
    assert!(!np::any(&e, None, false).unwrap().item::<bool>().unwrap());
    let err = np::max(&e, Some(&[1]), false).unwrap_err().to_string();
    assert!(err.contains("max") && err.contains("(3, 0)"), "{err}");
    assert_error(np::min(&e, None, false), "min", "ShapeMismatch");
    assert!(np::max(&e, Some(&[0]), false).is_ok());
    assert!(np::mean(&e, None, false)
        .unwrap()
        .item::<f32>()
        .unwrap()
        .is_nan());
    assert_error(np::sum(&x, Some(&[2]), false), "sum", "InvalidArgument");
    assert_error(np::sum(&x, Some(&[0, 0]), false), "sum", "InvalidArgument");
    // NaN propagates through max and min.
    let n = np::array([1.0f32, f32::NAN, 3.0]).unwrap();
    assert!(np::max(&n, None, false)
        .unwrap()
        .item::<f32>()
        .unwrap()
        .is_nan());
    assert!(np::min(&n, None, false)
        .unwrap()
        .item::<f32>()
        .unwrap()
        .is_nan());
    // float16 accumulates in float32: 4096 ones (float16 alone saturates at 2048).
    let h = np::asarray(vec![f16::ONE; 4096]).unwrap();
    assert_eq!(
        np::sum(&h, None, false).unwrap().item::<f16>().unwrap(),
        f16::from_f32(4096.0)
    );
}

#[test]
fn sixteen_million_float32_sum_against_f64() {
    let n = 16 << 20;
    // ones: exact in every partial (a peer returned 262132 here).
    let ones = np::ones(&[n], DType::Float32).unwrap();
    assert_eq!(
        np::sum(&ones, None, false).unwrap().item::<f32>().unwrap(),
        n as f32
    );
    let mut r = rng();
    let v: Vec<f32> = random_values(&mut r, DType::Float32, n)
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let a = olympus::Array::from_slice(&v, &[n]).unwrap();
    let got = f64::from(np::sum(&a, None, false).unwrap().item::<f32>().unwrap());
    let want: f64 = v.iter().map(|&x| f64::from(x)).sum();
    let abs_sum: f64 = v.iter().map(|&x| f64::from(x).abs()).sum();
    // Tree accumulation: the error bound grows like log2(n) (plus the 16-element runs).
    let bound = (f64::from(n as u32).log2() + 16.0) * 2f64.powi(-24) * abs_sum;
    eprintln!(
        "16M float32 sum: error {:.3e}, bound {:.3e}",
        (got - want).abs(),
        bound
    );
    assert!(
        (got - want).abs() <= bound,
        "sum {got} vs {want}, bound {bound}"
    );
    let m = f64::from(np::mean(&a, None, false).unwrap().item::<f32>().unwrap());
    assert!((m - want / n as f64).abs() <= bound / n as f64 + 1e-7);
}

/// Long float16 reductions accumulate in float32 and round once, as JAX's do: sum, mean,
/// var, std, prod and logsumexp of a (100, 10000) float16 array, full and along each
/// axis, against f64 references; cumsum along the long axis; a 10000-long float16 dot.
/// float16 accumulation would give 2048 for the sum of 10000 ones (the old bug gave 0).
#[test]
fn long_float16_reductions_accumulate_in_float32() {
    use rand::Rng;
    let (rows, cols) = (100usize, 10000usize);
    let mut r = rng();
    // Values in [0.5, 1.5): sums grow past float16's 2048 integer limit.
    let v: Vec<f64> = (0..rows * cols)
        .map(|_| round_to(r.random_range(0.5..1.5), DType::Float16))
        .collect();
    let x = make(&v, &[rows, cols], DType::Float16);
    let ones = np::ones(&[10000], DType::Float16).unwrap();
    assert_eq!(
        np::sum(&ones, None, false).unwrap().to_f64_vec().unwrap(),
        [10000.0]
    );
    // Reference reductions over the selected elements.
    let lines = |axis: Option<usize>| -> Vec<Vec<f64>> {
        match axis {
            None => vec![v.clone()],
            Some(0) => (0..cols)
                .map(|c| (0..rows).map(|i| v[i * cols + c]).collect())
                .collect(),
            _ => (0..rows)
                .map(|i| v[i * cols..(i + 1) * cols].to_vec())
                .collect(),
        }
    };
    let check = |what: &str, got: &olympus::Array, want: Vec<f64>, rel: f64| {
        assert_eq!(got.dtype(), DType::Float16, "{what} keeps float16");
        for (g, w) in got.to_f64_vec().unwrap().iter().zip(&want) {
            // One float16 rounding of a float32 accumulation.
            let tol = ulp_of(*w, DType::Float16) + w.abs() * rel;
            assert!((g - w).abs() <= tol, "{what}: {g} vs {w}");
        }
    };
    for axis in [None, Some(0usize), Some(1)] {
        let ax: Option<Vec<isize>> = axis.map(|a| vec![a as isize]);
        let ax = ax.as_deref();
        let ls = lines(axis);
        let mean = |l: &[f64]| l.iter().sum::<f64>() / l.len() as f64;
        let var = |l: &[f64]| {
            let m = mean(l);
            l.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / l.len() as f64
        };
        let w = |f: &dyn Fn(&[f64]) -> f64| ls.iter().map(|l| f(l)).collect::<Vec<_>>();
        let rel = 1e-5; // float32 accumulation over up to 1M terms
        let sum = np::sum(&x, ax, false).unwrap();
        if axis.is_none() {
            // About 1e6: past float16's range once rounded, as JAX's gives it.
            assert_eq!(sum.to_f64_vec().unwrap(), [f64::INFINITY]);
        } else {
            check(&format!("sum {axis:?}"), &sum, w(&|l| l.iter().sum()), rel);
        }
        check(
            &format!("mean {axis:?}"),
            &np::mean(&x, ax, false).unwrap(),
            w(&mean),
            rel,
        );
        check(
            &format!("var {axis:?}"),
            &np::var(&x, ax, 0, false).unwrap(),
            w(&var),
            1e-3,
        );
        check(
            &format!("std {axis:?}"),
            &np::std(&x, ax, 0, false).unwrap(),
            w(&|l| var(l).sqrt()),
            1e-3,
        );
        let lse = |l: &[f64]| {
            let m = l.iter().cloned().fold(f64::MIN, f64::max);
            m + l.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
        };
        let l = np::logsumexp(&x, ax, false).unwrap();
        if axis.is_none() {
            // JAX's float16 logsumexp sums the exponentials into a float16 (about 6e5
            // here): infinite, and so is this one.
            assert_eq!(l.to_f64_vec().unwrap(), [f64::INFINITY]);
        } else {
            // float16 intermediates (exp, the sum, log), as JAX's: a few float16 ulps.
            check(&format!("logsumexp {axis:?}"), &l, w(&lse), 3e-3);
        }
    }
    // prod of values near 1 along the short axis (a long product leaves float16's range).
    let near: Vec<f64> = v
        .iter()
        .map(|x| round_to(1.0 + (x - 1.0) / 64.0, DType::Float16))
        .collect();
    let xn = make(&near, &[rows, cols], DType::Float16);
    let want: Vec<f64> = (0..cols)
        .map(|c| (0..rows).map(|i| near[i * cols + c]).product())
        .collect();
    check(
        "prod axis 0",
        &np::prod(&xn, Some(&[0]), false).unwrap(),
        want,
        1e-5,
    );
    // cumsum along the long axis: the first row, rounded as JAX rounds it.
    let c = np::cumsum(&x, Some(1)).unwrap();
    let row: Vec<f64> = c.to_f64_vec().unwrap()[..cols].to_vec();
    assert_eq!(row, xla_scan(&v[..cols], DType::Float16, false), "cumsum");
    // A float16 dot of 10000 terms.
    let a = make(&v[..10000], &[10000], DType::Float16);
    let d = np::dot(&a, &a).unwrap();
    let want: f64 = v[..10000].iter().map(|x| x * x).sum();
    check("dot", &d, vec![want], 1e-5);
}

/// float16 products over a long `k` (matmul, einsum) accumulate in float32 and round once,
/// as XLA does: a float16 accumulator would stop growing at 2048 (its spacing there is 2).
/// A long float16 cumprod rounds after every product, in XLA's order, as JAX's does.
#[test]
fn float16_contractions_accumulate_in_float32() {
    use rand::Rng;
    let mut r = rng();
    let (m, k, n) = (16usize, 4096usize, 16usize);
    let h = |len: usize, r: &mut rand::rngs::StdRng| -> Vec<f64> {
        (0..len)
            .map(|_| round_to(r.random_range(0.5..1.5), DType::Float16))
            .collect()
    };
    let (av, bv) = (h(m * k, &mut r), h(k * n, &mut r));
    let a = make(&av, &[m, k], DType::Float16);
    let b = make(&bv, &[k, n], DType::Float16);
    let want: Vec<f64> = (0..m * n)
        .map(|o| (0..k).map(|j| av[o / n * k + j] * bv[j * n + o % n]).sum())
        .collect();
    let check = |what: &str, got: &olympus::Array, want: &[f64]| {
        assert_eq!(got.dtype(), DType::Float16, "{what} keeps float16");
        let g = got.to_f64_vec().unwrap();
        assert_eq!(g.len(), want.len(), "{what}");
        for (g, w) in g.iter().zip(want) {
            let tol = ulp_of(*w, DType::Float16) + w.abs() * 1e-5;
            assert!((g - w).abs() <= tol, "{what}: {g} vs {w}");
        }
    };
    check("matmul", &np::matmul(&a, &b).unwrap(), &want);
    check("einsum", &np::einsum("ij,jk->ik", [&a, &b]).unwrap(), &want);
    // 20000 terms: about 2.2e4, within float16's range once rounded.
    let v = make(&av[..20000], &[20000], DType::Float16);
    let dot: f64 = av[..20000].iter().map(|x| x * x).sum();
    check(
        "einsum i,i->",
        &np::einsum("i,i->", [&v, &v]).unwrap(),
        &[dot],
    );
    // cumprod of 10000 values near 1: every prefix within one float16 rounding.
    let near: Vec<f64> = h(10000, &mut r)
        .iter()
        .map(|x| round_to(1.0 + (x - 1.0) / 64.0, DType::Float16))
        .collect();
    let c = np::cumprod(make(&near, &[10000], DType::Float16), None).unwrap();
    assert_close(
        "cumprod",
        &c,
        &xla_scan(&near, DType::Float16, true),
        DType::Float16,
        EXACT,
    );
}

/// The `_with` reductions' `where=` and `initial=`: what JAX refuses is an error naming
/// the function; a mask differentiates as JAX's `where` does (zero where it does not
/// hold); narrow integer maxima over an empty axis give their own bounds. (Values against
/// JAX: `jnp_more`'s `where_initial` section.)
#[test]
fn reduce_options_errors_gradients_and_empty_axes() {
    use np::ReduceOptions as R;
    let x = np::array([[1.0f32, 7.0, 3.0], [4.0, 9.0, 6.0]]).unwrap();
    let m = np::array([true, false, true]).unwrap();
    let err = |r: olympus::Result<olympus::Array>, func: &str, what: &str| {
        let e = r.unwrap_err().to_string();
        assert!(e.contains(func) && e.contains(what), "{e}");
    };
    err(
        np::max_with(&x, None, false, R::new().where_(&m)),
        "max_with",
        "initial",
    );
    err(
        np::nanmin_with(&x, None, false, R::new().where_(&m)),
        "nanmin_with",
        "initial",
    );
    err(
        np::mean_with(&x, None, false, R::new().initial(1.0)),
        "mean_with",
        "initial",
    );
    err(
        np::max_with(&x, None, false, R::new().dtype(DType::Int32)),
        "max_with",
        "dtype",
    );
    err(
        np::all_with(&x, None, false, R::new().initial(1.0)),
        "all_with",
        "initial",
    );
    err(
        np::sum_with(&x, None, false, R::new().mean(&x)),
        "sum_with",
        "mean",
    );
    err(
        np::var_with(&x, None, 0, false, R::new().initial(0.0)),
        "var_with",
        "initial",
    );
    err(
        np::std_with(&x, None, 0, false, R::new().dtype(DType::Int32)),
        "std_with",
        "float",
    );
    let ints = np::array([1i32, 0, 1]).unwrap();
    err(
        np::sum_with(&x, None, false, R::new().where_(&ints)),
        "sum_with",
        "bool",
    );
    let tall = np::array([[true], [false], [true]]).unwrap();
    err(
        np::sum_with(&x, None, false, R::new().where_(&tall)),
        "sum_with",
        "broadcast",
    );
    // `initial` joins a float16 sum before its one rounding, as JAX's (2048 + 1 would
    // round to 2048 in float16 on its own); a whole `initial` wraps as a Python int.
    let ones = np::ones(&[2048], DType::Float16).unwrap();
    let s = np::sum_with(&ones, None, false, R::new().initial(2.0)).unwrap();
    assert_eq!(
        s.astype(DType::Float32).unwrap().item::<f32>().unwrap(),
        2050.0
    );
    let u = np::array([3u8, 7]).unwrap();
    let m8 = np::min_with(&u, None, false, R::new().initial(-1.0)).unwrap();
    assert_eq!(m8.astype(DType::Int32).unwrap().item::<i32>().unwrap(), 3);
    // Gradients: the mask's zeros, and `initial` adds nothing to them.
    let g = olympus::grad(|x: olympus::Array| {
        np::sum_with(&x, None, false, R::new().where_(&m).initial(3.0))
    })(x.clone())
    .unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![1., 0., 1., 1., 0., 1.]);
    let g = olympus::grad(|x: olympus::Array| np::mean_with(&x, None, false, R::new().where_(&m)))(
        x.clone(),
    )
    .unwrap();
    assert_eq!(
        g.to_vec::<f32>().unwrap(),
        vec![0.25, 0., 0.25, 0.25, 0., 0.25]
    );
    // Empty axes with `initial`, eagerly and under jit, in every integer dtype.
    for d in [
        DType::Int8,
        DType::Int16,
        DType::UInt8,
        DType::Int32,
        DType::Float16,
    ] {
        let e = np::zeros(&[0, 2], d).unwrap();
        for (init, is_max) in [(5.0, false), (-5.0, true), (300.0, false)] {
            let opts = R::new().initial(init);
            // (A whole `initial` converts as a Python int: 300 wraps to 44 in int8.)
            let want = olympus::numpy::full(&[2], init as i64, Some(d)).unwrap();
            let f = |e: &olympus::Array| {
                if is_max {
                    np::max_with(e, Some(&[0]), false, opts.clone())
                } else {
                    np::min_with(e, Some(&[0]), false, opts.clone())
                }
            };
            let eager = f(&e).unwrap();
            let jitted = olympus::jit(|e: olympus::Array| f(&e))
                .call(e.clone())
                .unwrap();
            for (how, r) in [("eager", eager), ("jit", jitted)] {
                assert_eq!(r.dtype(), d, "{d:?} {how}");
                let (r, w) = (
                    r.astype(DType::Float32).unwrap(),
                    want.astype(DType::Float32).unwrap(),
                );
                assert_eq!(
                    r.to_vec::<f32>().unwrap(),
                    w.to_vec::<f32>().unwrap(),
                    "{d:?} {init} {how}"
                );
            }
        }
    }
}

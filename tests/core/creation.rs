//! Creation functions and conversions from Rust values.

use crate::common::*;
use half::f16;
use olympus::{numpy as np, Array, DType, Error, SupportsOlympusArray};

#[test]
fn zeros_ones_full_empty_every_dtype() {
    for d in every_dtype() {
        for shape in [&[][..], &[0], &[5], &[2, 3, 4]] {
            let n: usize = shape.iter().product();
            let z = np::zeros(shape, d).unwrap();
            let o = np::ones(shape, d).unwrap();
            let e = np::empty(shape, d).unwrap();
            assert_eq!((z.shape(), z.dtype(), z.weak_type()), (shape, d, false));
            assert_close("zeros", &z, &vec![0.0; n], d, EXACT);
            assert_close("empty", &e, &vec![0.0; n], d, EXACT);
            assert_close("ones", &o, &vec![1.0; n], d, EXACT);
        }
    }
    // Small fills are written from the host, large ones by a kernel: both sides of the
    // 4 KiB line in every dtype.
    for d in every_dtype() {
        for n in [7, 1023, 1024, 1025, 4096, 4097, 5000] {
            let f = np::full(&[n], 3, Some(d)).unwrap();
            let want = if d == DType::Bool { 1.0 } else { 3.0 };
            assert_eq!((f.dtype(), f.weak_type()), (d, false));
            assert_close(&format!("full {n} {d}"), &f, &vec![want; n], d, EXACT);
        }
    }
    let f = np::full(&[3], 2.5, None).unwrap();
    assert_eq!((f.dtype(), f.weak_type()), (DType::Float32, true));
    assert_eq!(f.to_vec::<f32>().unwrap(), vec![2.5; 3]);
    let f = np::full(&[2], 7, Some(DType::UInt32)).unwrap();
    assert_eq!(f.to_vec::<u32>().unwrap(), vec![7, 7]);
    let f = np::full(&[2], 0.1, Some(DType::Float16)).unwrap();
    assert_eq!(f.to_vec::<f16>().unwrap(), vec![f16::from_f64(0.1); 2]);
    let f = np::full(&[2, 2], np::array([1.0f32, 2.0]).unwrap(), None).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 1.0, 2.0]);
    assert_error(np::full(&[2], [1, 2, 3], None), "full", "ShapeMismatch");
    // Integers wrap into the dtype, as JAX's `full` does (more cases in
    // tests/data/jax_rules.txt).
    let f = np::full(&[2], -1, Some(DType::UInt32)).unwrap();
    assert_eq!(f.to_vec::<u32>().unwrap(), vec![u32::MAX; 2]);
    let f = np::full(&[2], 1i64 << 31, None).unwrap();
    assert_eq!(f.to_vec::<i32>().unwrap(), vec![i32::MIN; 2]);
}

#[test]
fn like_functions_keep_shape_dtype_and_weakness() {
    let x = np::array([[1u32, 2, 3], [4, 5, 6]]).unwrap();
    for (name, a, v) in [
        ("zeros_like", np::zeros_like(&x).unwrap(), 0.0),
        ("ones_like", np::ones_like(&x).unwrap(), 1.0),
        ("empty_like", np::empty_like(&x).unwrap(), 0.0),
        ("full_like", np::full_like(&x, 9).unwrap(), 9.0),
    ] {
        assert_eq!(
            (a.shape(), a.dtype()),
            (&[2usize, 3][..], DType::UInt32),
            "{name}"
        );
        assert_close(name, &a, &[v; 6], DType::UInt32, EXACT);
    }
    let w = np::zeros_like(1.5).unwrap();
    assert!(w.weak_type() && w.dtype() == DType::Float32 && w.ndim() == 0);
    let h = np::full_like(vec![f16::ONE; 3], 0.5).unwrap();
    assert_eq!(h.to_vec::<f16>().unwrap(), vec![f16::from_f32(0.5); 3]);
}

#[test]
fn arange_linspace_eye_identity() {
    let mut r = rng();
    use rand::Rng;
    for _ in 0..20 {
        let start: i32 = r.random_range(-50..50);
        let stop: i32 = r.random_range(-50..50);
        let step: i32 = *[-7, -3, -1, 1, 2, 5].get(r.random_range(0..6)).unwrap();
        let want: Vec<i32> = if step > 0 {
            (start..stop).step_by(step as usize).collect()
        } else {
            let mut v = Vec::new();
            let mut x = start;
            while x > stop {
                v.push(x);
                x += step;
            }
            v
        };
        let got = np::arange((start, stop, step)).unwrap();
        assert_eq!(got.dtype(), DType::Int32);
        assert_eq!(
            got.to_vec::<i32>().unwrap(),
            want,
            "arange({start}, {stop}, {step})"
        );
    }
    assert_eq!(np::arange(0).unwrap().shape(), &[0]);
    assert_eq!(
        np::arange(3u32..6).unwrap().to_vec::<u32>().unwrap(),
        vec![3, 4, 5]
    );
    assert_error(np::arange((0, 5, 0)), "arange", "InvalidArgument");
    let f = np::arange((0.5f64, 2.0, 0.3)).unwrap();
    let want: Vec<f32> = (0..5).map(|i| (0.5 + i as f64 * 0.3) as f32).collect();
    assert_eq!(f.to_vec::<f32>().unwrap(), want);

    let l = np::linspace(-1.0, 3.0, 9, true).unwrap();
    assert_eq!(
        l.to_vec::<f32>().unwrap(),
        vec![-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    );
    // A range that is not exactly representable: within float32 rounding of the f64 values.
    let l = np::linspace(0.1, 0.7, 7, true)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    for (i, v) in l.iter().enumerate() {
        assert!(
            approx::relative_eq!(f64::from(*v), 0.1 + 0.1 * i as f64, max_relative = 6e-8),
            "{i}: {v}"
        );
    }
    let l = np::linspace(0.0, 1.0, 4, false).unwrap();
    assert_eq!(l.to_vec::<f32>().unwrap(), vec![0.0, 0.25, 0.5, 0.75]);
    assert_eq!(np::linspace(0.0, 1.0, 0, true).unwrap().shape(), &[0]);
    assert_eq!(
        np::linspace(2.0, 5.0, 1, true)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        vec![2.0]
    );

    for d in every_dtype() {
        for (n, m, k) in [
            (3, None, 0),
            (2, Some(4), 1),
            (4, Some(2), -1),
            (3, Some(3), 5),
            (0, None, 0),
        ] {
            let e = np::eye(n, m, k, d).unwrap();
            let mm = m.unwrap_or(n);
            let want: Vec<f64> = (0..n * mm)
                .map(|i| f64::from(u8::from((i % mm) as isize - (i / mm) as isize == k)))
                .collect();
            assert_eq!(e.shape(), &[n, mm]);
            assert_close("eye", &e, &want, d, EXACT);
        }
    }
    assert_close(
        "identity",
        &np::identity(2, DType::Int32).unwrap(),
        &[1.0, 0.0, 0.0, 1.0],
        DType::Int32,
        EXACT,
    );
}

#[test]
fn arrays_from_rust_values() {
    let a = np::array([[1.0f32, 2.0], [3.0, 4.0]]).unwrap();
    assert_eq!((a.shape(), a.dtype()), (&[2usize, 2][..], DType::Float32));
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    let b = np::array([[[true], [false]]]).unwrap();
    assert_eq!((b.shape(), b.dtype()), (&[1usize, 2, 1][..], DType::Bool));
    assert_eq!(b.to_vec::<bool>().unwrap(), vec![true, false]);
    let v = np::asarray(vec![vec![1i64, 2], vec![3, 4]]).unwrap();
    assert_eq!((v.shape(), v.dtype()), (&[2usize, 2][..], DType::Int32));
    let s: &[u8] = &[1, 2, 3];
    assert_eq!(np::asarray(s).unwrap().dtype(), DType::UInt8);
    #[allow(clippy::needless_borrows_for_generic_args)] // &Vec is what this checks
    let f = np::asarray(&vec![0.25f64; 3]).unwrap();
    assert_eq!((f.dtype(), f.weak_type()), (DType::Float32, false));
    let h = np::asarray(f16::from_f32(1.5)).unwrap();
    assert_eq!(
        (h.dtype(), h.weak_type(), h.ndim()),
        (DType::Float16, false, 0)
    );
    let s = np::asarray(2.5).unwrap();
    assert_eq!((s.dtype(), s.weak_type()), (DType::Float32, true));
    assert_eq!(s.item::<f32>().unwrap(), 2.5);
    let e: Vec<f32> = vec![];
    assert_eq!(np::asarray(e).unwrap().shape(), &[0]);
    // Ragged data and out-of-range values are conversion errors naming the function.
    let e = np::asarray(vec![vec![1.0f32, 2.0], vec![3.0]]).unwrap_err();
    assert!(
        matches!(e, Error::Conversion { .. }) && e.to_string().contains("ragged"),
        "{e}"
    );
    let e = np::add(vec![1i64 << 40], 1).unwrap_err();
    match &e {
        Error::Conversion {
            func,
            position,
            type_name,
            ..
        } => {
            assert_eq!((func.as_str(), *position), ("add", 0));
            assert!(type_name.contains("Vec<i64>"), "{type_name}");
        }
        other => panic!("expected a conversion error, got {other}"),
    }
    // from_slice checks the element count.
    assert_error(
        Array::from_slice(&[1.0f32, 2.0, 3.0], &[2, 2]),
        "Array::from_slice",
        "ShapeMismatch",
    );
}

struct Fails;
impl SupportsOlympusArray for Fails {
    fn olympus_array(&self) -> olympus::Result<Array> {
        Err(Error::InvalidArgument {
            func: "Fails".into(),
            reason: "no data".into(),
        })
    }
}

struct Pixels(Vec<u8>, usize);
impl SupportsOlympusArray for Pixels {
    fn olympus_array(&self) -> olympus::Result<Array> {
        let v: Vec<u32> = self.0.iter().map(|&p| u32::from(p)).collect();
        Array::from_slice(&v, &[self.0.len() / self.1, self.1])
    }
}

#[test]
fn the_conversion_protocol_is_accepted_everywhere() {
    let p = Pixels(vec![1, 2, 3, 4, 5, 6], 3);
    let y = np::multiply(&p, 2).unwrap();
    assert_eq!((y.shape(), y.dtype()), (&[2usize, 3][..], DType::UInt32));
    assert_eq!(y.to_vec::<u32>().unwrap(), vec![2, 4, 6, 8, 10, 12]);
    assert_eq!(
        np::asarray(&p).unwrap().to_vec::<u32>().unwrap(),
        vec![1, 2, 3, 4, 5, 6]
    );
    let z = np::add(1.5, &p).unwrap();
    assert_eq!(z.dtype(), DType::Float32);
    let e = np::exp(&Fails).unwrap_err();
    match &e {
        Error::Conversion {
            func,
            position,
            type_name,
            reason,
        } => {
            assert_eq!((func.as_str(), *position), ("exp", 0));
            assert!(
                type_name.contains("Fails") && reason.contains("no data"),
                "{e}"
            );
        }
        other => panic!("expected a conversion error, got {other}"),
    }
}

#[test]
fn reading_back() {
    let x = np::array([1i32, 2, 3]).unwrap();
    // The message says what was asked and what to do instead (#47).
    assert_eq!(
        x.to_vec::<f32>().unwrap_err().to_string(),
        "to_vec::<f32> of an int32 array: f32 reads float32 arrays; read it as to_vec::<i32>, \
         or convert it first with astype(DType::Float32)"
    );
    let u = np::array([1u32]).unwrap();
    let e = u.item::<f32>().unwrap_err().to_string();
    assert!(
        e.starts_with(
            "item::<f32> of a uint32 array: f32 reads float32 arrays; read it as item::<u32>"
        ),
        "{e}"
    );
    let e = x.item::<i32>().unwrap_err().to_string();
    assert!(
        e.starts_with("item: ") && e.contains("exactly one element"),
        "{e}"
    );
    assert_eq!(
        np::asarray(7u32)
            .unwrap()
            .astype(DType::UInt32)
            .unwrap()
            .item::<u32>()
            .unwrap(),
        7
    );
    assert_eq!(x.ndim(), 1);
    assert_eq!(x.size(), 3);
    assert!(x.block_until_ready().is_ok());
}

/// `arange` and `linspace` with an explicit dtype, against JAX 0.10.2's own answers
/// (`jnp.arange(..., dtype=)`, `jnp.linspace(..., dtype=)`).
#[test]
fn arange_and_linspace_with_a_dtype_match_jax() {
    use olympus::numpy as np;
    use olympus::DType;
    let ints = |a: olympus::Array| a.to_vec::<i32>().unwrap();
    assert_eq!(
        ints(np::arange_with((0.5, 3.0, 1.0), DType::Int32).unwrap()),
        [0, 1, 2]
    );
    assert_eq!(
        ints(np::arange_with((-2.5, 2.0, 1.5), DType::Int32).unwrap()),
        [-2, -1, 0]
    );
    let h = np::arange_with((0.0, 1.0, 0.25), DType::Float16).unwrap();
    assert_eq!(h.dtype(), DType::Float16);
    assert_eq!(h.to_f64_vec().unwrap(), [0.0, 0.25, 0.5, 0.75]);
    let u = np::arange_with(3, DType::UInt32).unwrap();
    assert_eq!(u.to_vec::<u32>().unwrap(), [0, 1, 2]);
    let lin = |a: f64, b: f64, n: usize, e: bool| {
        ints(np::linspace_with(a, b, n, e, DType::Int32).unwrap())
    };
    assert_eq!(lin(0.0, 10.0, 4, true), [0, 3, 6, 10]);
    assert_eq!(lin(-1.0, 10.0, 7, true), [-1, 0, 2, 4, 6, 8, 10]);
    assert_eq!(lin(0.5, 3.7, 5, true), [0, 1, 2, 2, 3]);
    assert_eq!(lin(-5.0, 0.0, 3, true), [-5, -3, 0]);
    assert_eq!(lin(-5.5, 0.0, 4, true), [-6, -4, -2, 0]);
    assert_eq!(lin(0.0, 10.0, 4, false), [0, 2, 5, 7]);
    assert_eq!(lin(2.0, -3.0, 6, true), [2, 1, 0, -2, -2, -3]);
    assert_eq!(lin(0.0, -3.5, 3, true), [0, -2, -4]);
    assert_eq!(lin(0.0, 3.7, 3, true), [0, 1, 3]);
    let u = np::linspace_with(0.0, 10.0, 5, true, DType::UInt32).unwrap();
    assert_eq!(u.to_vec::<u32>().unwrap(), [0, 2, 5, 7, 10]);
    // JAX computes float16 linspace in float16 steps: 5/6 comes out as 0.8330078125, not
    // the nearest float16 (0.83349609375).
    let h = np::linspace_with(0.0, 1.0, 7, true, DType::Float16).unwrap();
    let want = [
        0.0,
        0.1666259765625,
        0.333251953125,
        0.5,
        0.66650390625,
        0.8330078125,
        1.0,
    ];
    assert_eq!(h.to_f64_vec().unwrap(), want);
    let h = np::linspace_with(0.0, 3.0, 7, true, DType::Float16).unwrap();
    assert_eq!(h.to_f64_vec().unwrap(), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
    assert_eq!(
        np::linspace_with(0.0, 1.0, 0, true, DType::Int32)
            .unwrap()
            .size(),
        0
    );
}

/// `lax::iota` counts along its dimension for every placement of that axis (alone,
/// innermost, outermost, in the middle, behind and before size-1 axes), eagerly and
/// inside a jitted chain with a trailing reduction, against host counting.
#[test]
fn iota_counts_along_every_axis() {
    use olympus::{jit, lax};
    let shapes: [&[usize]; 7] = [
        &[7],
        &[3, 5],
        &[1, 6],
        &[6, 1],
        &[2, 3, 4],
        &[1, 4, 1],
        &[3, 1, 5],
    ];
    for shape in shapes {
        let size: usize = shape.iter().product();
        for dimension in 0..shape.len() {
            let inner: usize = shape[dimension + 1..].iter().product();
            let want: Vec<i32> = (0..size)
                .map(|i| ((i / inner) % shape[dimension]) as i32)
                .collect();
            let what = format!("iota of {shape:?} along {dimension}");
            let got = lax::iota(DType::Int32, shape, dimension, None).unwrap();
            assert_eq!(got.to_vec::<i32>().unwrap(), want, "{what}");
            // Fused: iota + x, reduced over the last axis (the reduction moves no axis).
            let shape2 = shape.to_vec();
            let f = jit(move |x: Array| {
                let i = lax::iota(DType::Int32, &shape2, dimension, None)?;
                lax::reduce(lax::ReduceOp::Sum, &np::add(&i, &x)?, &[shape2.len() - 1])
            });
            let x = np::zeros(shape, DType::Int32).unwrap();
            let last = shape[shape.len() - 1];
            let sums: Vec<i32> = want.chunks(last).map(|c| c.iter().sum()).collect();
            assert_eq!(
                f.call(x).unwrap().to_vec::<i32>().unwrap(),
                sums,
                "fused {what}"
            );
        }
    }
}

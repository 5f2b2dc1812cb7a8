//! Debug/Display follow NumPy's repr.

use half::f16;
use olympus::{numpy as np, DType};

fn repr(a: olympus::Result<olympus::Array>) -> String {
    format!("{:?}", a.unwrap())
}

#[test]
fn numpy_style_repr() {
    assert_eq!(
        repr(np::array([0i32, 2, 4])),
        "Array([0, 2, 4], dtype=int32)"
    );
    assert_eq!(
        repr(np::array([1.0f32, 2.5, -3.0])),
        "Array([ 1. ,  2.5, -3. ], dtype=float32)"
    );
    assert_eq!(
        repr(np::array([[1.0f32, 2.0], [3.0, 4.0]])),
        "Array([[1., 2.],\n       [3., 4.]], dtype=float32)"
    );
    assert_eq!(
        repr(np::array([true, false])),
        "Array([ True, False], dtype=bool)"
    );
    assert_eq!(
        repr(np::asarray(2.5)),
        "Array(2.5, dtype=float32, weak_type=True)"
    );
    assert_eq!(
        repr(np::array([f32::NAN, f32::INFINITY, 1.0])),
        "Array([nan, inf,  1.], dtype=float32)"
    );
    assert_eq!(
        repr(np::array([1e-5f32, 1.0])),
        "Array([1.e-05, 1.e+00], dtype=float32)"
    );
    assert_eq!(
        repr(np::asarray(vec![f16::from_f32(0.1), f16::from_f32(1.5)])),
        "Array([0.1, 1.5], dtype=float16)"
    );
    assert_eq!(
        repr(np::zeros(&[0], DType::Float32)),
        "Array([], shape=(0,), dtype=float32)"
    );
    assert_eq!(
        repr(np::zeros(&[2, 0], DType::Int32)),
        "Array([], shape=(2, 0), dtype=int32)"
    );
    assert_eq!(
        format!("{}", np::array([1u32, 2]).unwrap()),
        "Array([1, 2], dtype=uint32)"
    );
    let three = repr(np::arange(8).and_then(|a| a.astype(DType::Int32)));
    assert_eq!(three, "Array([0, 1, 2, 3, 4, 5, 6, 7], dtype=int32)");
}

#[test]
fn long_arrays_are_abbreviated() {
    let s = repr(np::arange(2000));
    assert_eq!(
        s,
        "Array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)"
    );
    let v: Vec<f32> = (0..1200).map(|i| i as f32).collect();
    let m = olympus::Array::from_slice(&v, &[40, 30]).unwrap();
    let s = format!("{m:?}");
    // JAX 0.10.2 (NumPy's rule): values spanning more than three decades print in
    // scientific notation.
    assert!(
        s.starts_with("Array([[0.000e+00, 1.000e+00, 2.000e+00, ..., 2.700e+01, 2.800e+01,\n        2.900e+01],\n"),
        "{s}"
    );
    assert!(s.contains("       ...,\n"), "{s}");
    assert!(
        s.ends_with("[1.170e+03, 1.171e+03, 1.172e+03, ..., 1.197e+03, 1.198e+03,\n        1.199e+03]], dtype=float32)"),
        "{s}"
    );
    // Short rows wrap at 75 columns like NumPy.
    let s = repr(np::arange(30));
    assert!(s.contains(",\n       "), "{s}");
}

#[test]
fn print_options_match_jax() {
    // python3 -c "import jax.numpy as jnp
    //   with jnp.printoptions(precision=3): print(repr(jnp.array([1.23456789, 100.5, 0.000123, -2.0])))"
    // and likewise for each case below (JAX 0.10.2, NumPy's formatting).
    use olympus::lax::PrintOptions;
    let with = |o: PrintOptions, a: olympus::Array| np::printoptions(o, || format!("{a:?}"));
    let d = PrintOptions::DEFAULT;
    let f = |v: &[f32]| np::array(v.to_vec()).unwrap();
    let cases = [
        (
            PrintOptions {
                precision: 3,
                ..d.clone()
            },
            f(&[1.234_567_9, 100.5, 0.000123, -2.0]),
            "Array([ 1.235e+00,  1.005e+02,  1.230e-04, -2.000e+00], dtype=float32)",
        ),
        (
            PrintOptions {
                threshold: 5,
                edgeitems: 2,
                ..d.clone()
            },
            np::arange(10).unwrap(),
            "Array([0, 1, ..., 8, 9], dtype=int32)",
        ),
        (
            PrintOptions {
                suppress: true,
                ..d.clone()
            },
            f(&[1e-10, 1.0, 123.456]),
            "Array([  0.   ,   1.   , 123.456], dtype=float32)",
        ),
        (
            d.clone(),
            f(&[1e-10, 1.0, 123.456]),
            "Array([1.00000e-10, 1.00000e+00, 1.23456e+02], dtype=float32)",
        ),
        (
            PrintOptions {
                precision: 1,
                edgeitems: 1,
                threshold: 4,
                ..d.clone()
            },
            np::divide(
                np::reshape(np::arange(12.0).unwrap(), &[3, 4]).unwrap(),
                3.0f32,
            )
            .unwrap(),
            "Array([[0. , ..., 1. ],\n       ...,\n       [2.7, ..., 3.7]], dtype=float32)",
        ),
    ];
    for (o, a, want) in cases {
        assert_eq!(with(o.clone(), a), want, "{o:?}");
    }
    // Three decades: fixed below, scientific above; from 1e8 up even when suppressed.
    assert_eq!(
        repr(np::array([1.0f32, 1001.0])),
        "Array([1.000e+00, 1.001e+03], dtype=float32)"
    );
    assert_eq!(
        repr(np::array([1.0f32, 999.0])),
        "Array([  1., 999.], dtype=float32)"
    );
    assert_eq!(
        repr(np::array([0.0f32, 1e9])),
        "Array([0.e+00, 1.e+09], dtype=float32)"
    );
    let suppressed = PrintOptions {
        suppress: true,
        ..d.clone()
    };
    assert_eq!(
        with(suppressed.clone(), f(&[1e9, 1.0])),
        "Array([1.e+09, 1.e+00], dtype=float32)"
    );
    assert_eq!(
        with(suppressed, f(&[1e-9, 1e3])),
        "Array([   0., 1000.], dtype=float32)"
    );
    // The options apply only inside `printoptions`.
    assert_eq!(np::get_printoptions(), PrintOptions::DEFAULT);
}

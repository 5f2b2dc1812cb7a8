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
    assert!(
        s.starts_with("Array([[   0.,    1.,    2., ...,   27.,   28.,   29.],"),
        "{s}"
    );
    assert!(s.contains("       ...,\n"), "{s}");
    assert!(
        s.ends_with("[1170., 1171., 1172., ..., 1197., 1198., 1199.]], dtype=float32)"),
        "{s}"
    );
    // Short rows wrap at 75 columns like NumPy.
    let s = repr(np::arange(30));
    assert!(s.contains(",\n       "), "{s}");
}

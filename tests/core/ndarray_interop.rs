//! `ndarray` arrays as array-likes in every memory order, and `Array::to_ndarray`.

// The borrowed `&ArrayBase` impls are what these calls test.
#![allow(clippy::needless_borrows_for_generic_args)]

use half::f16;
use ndarray::{s, Array, Array2, Array3, ArrayD, IxDyn, ShapeBuilder};
use olympus::{numpy as np, DType};
use rand::Rng;

use crate::common::rng;

fn random_f32(n: usize) -> Vec<f32> {
    let mut r = rng();
    (0..n).map(|_| r.random_range(-10.0f32..10.0)).collect()
}

/// The array's values in logical (C) order, through ndarray's own iterator.
fn logical<T: Copy, D: ndarray::Dimension>(a: &ndarray::ArrayView<T, D>) -> Vec<T> {
    a.iter().copied().collect()
}

#[test]
fn every_memory_order_is_read_in_logical_order() {
    let v = random_f32(3 * 4 * 5);
    let c = Array3::from_shape_vec((3, 4, 5), v.clone()).unwrap();
    let f = Array3::from_shape_vec((3, 4, 5).f(), v.clone()).unwrap();
    let views = [
        ("C order", c.view()),
        ("Fortran order", f.view()),
        ("transposed", c.view().reversed_axes()),
        ("negative steps", c.slice(s![..;-1, 1..;2, ..;-2])),
        ("permuted Fortran", f.view().permuted_axes([2, 0, 1])),
        ("empty", c.slice(s![.., 2..2, ..])),
    ];
    for (what, view) in views {
        let x = np::asarray(&view).unwrap();
        assert_eq!(x.shape(), view.shape(), "{what}");
        assert_eq!(x.dtype(), DType::Float32, "{what}");
        assert_eq!(x.to_vec::<f32>().unwrap(), logical(&view), "{what}");
    }
    // 0-d, owned and by value.
    let zero = ArrayD::from_elem(IxDyn(&[]), 2.5f32);
    let x = np::asarray(zero).unwrap();
    assert_eq!(x.shape(), &[] as &[usize]);
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![2.5]);
}

#[test]
fn ndarray_arguments_go_into_numpy_functions() {
    let v = random_f32(6 * 7);
    let a = Array2::from_shape_vec((6, 7), v).unwrap();
    let at = a.t();
    // A transposed view plus a weak scalar, and a view times an olympus array.
    let y = np::add(&at, 1).unwrap();
    let want: Vec<f32> = at.iter().map(|x| x + 1.0).collect();
    assert_eq!(y.to_vec::<f32>().unwrap(), want);
    let b = np::ones(&[7], DType::Float32).unwrap();
    let z = np::multiply(a.slice(s![.., ..;-1]), &b).unwrap();
    let want: Vec<f32> = a.slice(s![.., ..;-1]).iter().copied().collect();
    assert_eq!(z.to_vec::<f32>().unwrap(), want);
    // Shape queries never convert.
    assert_eq!(np::shape(&a).unwrap(), vec![6, 7]);
}

#[test]
fn element_types_follow_the_host_sequence_rules() {
    let i = Array::from_vec(vec![1i64, -2, 3]);
    let x = np::asarray(&i).unwrap();
    assert_eq!(x.dtype(), DType::Int32);
    assert_eq!(x.to_vec::<i32>().unwrap(), vec![1, -2, 3]);
    let d = Array::from_vec(vec![0.1f64, 2.0]);
    let x = np::asarray(&d).unwrap();
    assert_eq!(x.dtype(), DType::Float32);
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![0.1f32, 2.0]);
    let u = Array::from_vec(vec![255u8, 7]);
    assert_eq!(np::asarray(&u).unwrap().dtype(), DType::UInt8);
    let b = Array::from_vec(vec![true, false]);
    assert_eq!(
        np::asarray(&b).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false]
    );
    let h = Array::from_vec(vec![f16::from_f32(1.5), f16::from_f32(-0.25)]);
    let x = np::asarray(&h).unwrap();
    assert_eq!(x.dtype(), DType::Float16);
    assert_eq!(
        x.to_ndarray::<f16>().unwrap().into_raw_vec_and_offset().0,
        h.to_vec()
    );
    // 64-bit values that do not fit are a clear error naming the function.
    let big = Array::from_vec(vec![1i64 << 40]);
    let e = np::add(&big, 1).unwrap_err().to_string();
    assert!(e.contains("add") && e.contains("does not fit"), "{e}");
}

#[test]
fn to_ndarray_round_trips_and_checks_the_type() {
    let v = random_f32(4 * 5);
    let x = np::asarray(Array2::from_shape_vec((4, 5), v).unwrap()).unwrap();
    // A transposed (strided) olympus view comes back in standard layout.
    let t = np::transpose(&x, None).unwrap();
    let nd = t.to_ndarray::<f32>().unwrap();
    assert_eq!(nd.shape(), &[5, 4]);
    assert!(nd.is_standard_layout());
    assert_eq!(
        nd.iter().copied().collect::<Vec<_>>(),
        t.to_vec::<f32>().unwrap()
    );
    let nd2 = pollster::block_on(t.to_ndarray_async::<f32>()).unwrap();
    assert_eq!(nd, nd2);
    let e = t.to_ndarray::<i32>().unwrap_err().to_string();
    assert!(
        e.starts_with("to_ndarray::<i32> of a float32 array: i32 reads int32 arrays"),
        "{e}"
    );
    let empty = np::zeros(&[0, 3], DType::Int32)
        .unwrap()
        .to_ndarray::<i32>()
        .unwrap();
    assert_eq!(empty.shape(), &[0, 3]);
}

//! Shape functions: values against host index arithmetic, views share buffers.

use crate::common::*;
use olympus::{numpy as np, DType, Device, DeviceOptions};

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

fn ravel_index(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

/// Host reference for a transpose: output index o maps to input index perm^-1.
fn permute(v: &[f64], shape: &[usize], perm: &[usize]) -> Vec<f64> {
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let n: usize = shape.iter().product();
    (0..n)
        .map(|o| {
            let oi = unravel(o, &out_shape);
            let mut ii = vec![0; shape.len()];
            for (k, &p) in perm.iter().enumerate() {
                ii[p] = oi[k];
            }
            v[ravel_index(&ii, shape)]
        })
        .collect()
}

#[test]
fn transposes_swaps_and_moves_every_dtype() {
    let mut r = rng();
    let shape = [2usize, 3, 4];
    for d in every_dtype() {
        let v = random_values(&mut r, d, 24);
        let x = make(&v, &shape, d);
        let t = np::transpose(&x, None).unwrap();
        assert_eq!(t.shape(), &[4, 3, 2]);
        assert_close("transpose", &t, &permute(&v, &shape, &[2, 1, 0]), d, EXACT);
        let t = np::transpose(&x, Some(&[1, -1, 0])).unwrap();
        assert_close(
            "transpose axes",
            &t,
            &permute(&v, &shape, &[1, 2, 0]),
            d,
            EXACT,
        );
        let s = np::swapaxes(&x, 0, -1).unwrap();
        assert_close("swapaxes", &s, &permute(&v, &shape, &[2, 1, 0]), d, EXACT);
        let m = np::moveaxis(&x, &[0], &[-1]).unwrap();
        assert_eq!(m.shape(), &[3, 4, 2]);
        assert_close("moveaxis", &m, &permute(&v, &shape, &[1, 2, 0]), d, EXACT);
        let m = np::moveaxis(&x, &[2, 0], &[0, 1]).unwrap();
        assert_eq!(m.shape(), &[4, 2, 3]);
        assert_close("moveaxis 2", &m, &permute(&v, &shape, &[2, 0, 1]), d, EXACT);
        // An op on a transposed view reads it in place.
        let y = np::add(
            np::transpose(&x, None).unwrap(),
            np::zeros(&[4, 3, 2], d).unwrap(),
        )
        .unwrap();
        assert_eq!(
            y.to_f64_vec().unwrap(),
            permute(&v, &shape, &[2, 1, 0])
                .iter()
                .map(|&e| if d == DType::Bool {
                    f64::from(u8::from(e != 0.0))
                } else {
                    e
                })
                .collect::<Vec<_>>()
        );
    }
    assert_error(
        np::transpose(np::zeros(&[2, 3], DType::Float32).unwrap(), Some(&[0, 0])),
        "transpose",
        "InvalidArgument",
    );
    assert_error(
        np::swapaxes(np::zeros(&[2, 3], DType::Float32).unwrap(), 0, 2),
        "swapaxes",
        "InvalidArgument",
    );
}

#[test]
fn reshape_ravel_squeeze_expand() {
    let mut r = rng();
    let v = random_values(&mut r, DType::Float32, 24);
    let x = make(&v, &[2, 3, 4], DType::Float32);
    let y = np::reshape(&x, &[4, -1]).unwrap();
    assert_eq!(y.shape(), &[4, 6]);
    assert_eq!(y.to_f64_vec().unwrap(), v);
    // The message names the shape asked for, as given (#47).
    let e = np::reshape(&x, &[5, -1]).unwrap_err().to_string();
    assert_eq!(
        e,
        "reshape: cannot reshape (2, 3, 4) (24 elements) into (5, -1)"
    );
    let e = np::reshape(&x, &[-1, -1]).unwrap_err().to_string();
    assert!(e.starts_with("reshape: invalid shape (-1, -1)"), "{e}");
    // An array's own usize shape is a shape argument: y.reshape(x.shape()).
    let back = y.reshape(x.shape()).unwrap();
    assert_eq!(back.shape(), x.shape());
    assert_eq!(back.to_f64_vec().unwrap(), v);
    let sizes: Vec<isize> = vec![6, -1];
    assert_eq!(np::reshape(&x, &sizes).unwrap().shape(), &[6, 4]);
    // Reshaping a transposed array copies it first: values follow C order of the view.
    let t = np::transpose(&x, None).unwrap();
    let flat = np::ravel(&t).unwrap();
    assert_eq!(
        flat.to_f64_vec().unwrap(),
        permute(&v, &[2, 3, 4], &[2, 1, 0])
    );
    assert_eq!(
        np::reshape(np::zeros(&[0, 3], DType::Int32).unwrap(), &[-1])
            .unwrap()
            .shape(),
        &[0]
    );
    let e = np::expand_dims(&x, &[0, -1]).unwrap();
    assert_eq!(e.shape(), &[1, 2, 3, 4, 1]);
    assert_eq!(np::squeeze(&e, None).unwrap().shape(), &[2, 3, 4]);
    assert_eq!(np::squeeze(&e, Some(&[-1])).unwrap().shape(), &[1, 2, 3, 4]);
    assert_error(np::squeeze(&x, Some(&[0])), "squeeze", "ShapeMismatch");
    assert_eq!(np::expand_dims(5, &[0]).unwrap().shape(), &[1]);
    for (n, want) in [(1, vec![1usize]), (2, vec![1, 1]), (3, vec![1, 1, 1])] {
        let a = match n {
            1 => np::atleast_1d(2.0),
            2 => np::atleast_2d(2.0),
            _ => np::atleast_3d(2.0),
        }
        .unwrap();
        assert_eq!(a.shape(), want.as_slice());
    }
    assert_eq!(np::atleast_2d([1, 2, 3]).unwrap().shape(), &[1, 3]);
    assert_eq!(np::atleast_3d([1, 2, 3]).unwrap().shape(), &[1, 3, 1]);
    assert_eq!(
        np::atleast_3d(np::zeros(&[2, 3], DType::Bool).unwrap())
            .unwrap()
            .shape(),
        &[2, 3, 1]
    );
    assert_eq!(np::atleast_1d(&x).unwrap().shape(), &[2, 3, 4]);
}

#[test]
fn flips_and_broadcasts() {
    let mut r = rng();
    for d in every_dtype() {
        let v = random_values(&mut r, d, 12);
        let x = make(&v, &[3, 4], d);
        let f = np::flip(&x, None).unwrap();
        let want: Vec<f64> = v.iter().rev().copied().collect();
        assert_close("flip", &f, &want, d, EXACT);
        let f0 = np::flip(&x, Some(&[0])).unwrap();
        let want: Vec<f64> = (0..12).map(|i| v[(2 - i / 4) * 4 + i % 4]).collect();
        assert_close("flip axis 0", &f0, &want, d, EXACT);
        let f1 = np::flip(&x, Some(&[-1])).unwrap();
        let want: Vec<f64> = (0..12).map(|i| v[(i / 4) * 4 + 3 - i % 4]).collect();
        assert_close("flip axis -1", &f1, &want, d, EXACT);
        // A flipped view through a kernel (negative strides).
        let g = np::add(&f1, np::zeros(&[3, 4], d).unwrap()).unwrap();
        assert_close("flip + 0", &g, &want, d, EXACT);
        let b = np::broadcast_to(make(&v[..4], &[4], d), &[2, 3, 4]).unwrap();
        let want: Vec<f64> = (0..24).map(|i| v[i % 4]).collect();
        assert_close("broadcast_to", &b, &want, d, EXACT);
    }
    let v = np::broadcast_arrays([
        np::zeros(&[3, 1], DType::Int32).unwrap(),
        np::zeros(&[4], DType::Int32).unwrap(),
    ])
    .unwrap();
    assert_eq!(
        (v[0].shape(), v[1].shape()),
        (&[3usize, 4][..], &[3usize, 4][..])
    );
    assert_error(
        np::broadcast_to(np::zeros(&[3], DType::Int32).unwrap(), &[4]),
        "broadcast_to",
        "ShapeMismatch",
    );
    assert_error(
        np::broadcast_to(np::zeros(&[3], DType::Int32).unwrap(), &[1, 1]),
        "broadcast_to",
        "ShapeMismatch",
    );
}

#[test]
fn views_share_the_buffer() {
    let dev = Device::new(DeviceOptions::default()).unwrap();
    olympus::with_device(&dev, || {
        let x = np::reshape(np::arange(24).unwrap(), &[2, 3, 4]).unwrap();
        x.block_until_ready().unwrap();
        let before = dev.memory_stats().live_buffers;
        let views = [
            np::transpose(&x, None).unwrap(),
            np::swapaxes(&x, 0, 1).unwrap(),
            np::broadcast_to(&x, &[5, 2, 3, 4]).unwrap(),
            np::flip(&x, None).unwrap(),
            np::reshape(&x, &[6, 4]).unwrap(),
            np::expand_dims(&x, &[1]).unwrap(),
        ];
        assert_eq!(
            dev.memory_stats().live_buffers,
            before,
            "views allocated buffers"
        );
        drop(views);
    });
}

/// `lax::slice_in_dim` (`jax.lax.slice_in_dim`): a strided window along one axis, and a
/// clear error for an axis past the array's.
#[test]
fn slice_in_dim_takes_one_axis() {
    let x = np::arange(24).unwrap().reshape(&[2, 3, 4]).unwrap();
    let s = olympus::lax::slice_in_dim(&x, 0, 3, 2, 1).unwrap();
    assert_eq!(s.shape(), &[2, 2, 4]);
    let want: Vec<i32> = [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23].to_vec();
    assert_eq!(s.to_vec::<i32>().unwrap(), want);
    let e = olympus::lax::slice_in_dim(&x, 0, 1, 1, 3)
        .unwrap_err()
        .to_string();
    assert!(e.contains("slice_in_dim") && e.contains("axis 3"), "{e}");
}

//! Operators, and broadcasting through every binary ufunc.

use crate::common::*;
use olympus::{numpy as np, Array, DType};

#[test]
fn arithmetic_operators_with_arrays_and_scalars() {
    let mut r = rng();
    let va = random_values(&mut r, DType::Float32, 12);
    let vb: Vec<f64> = random_values(&mut r, DType::Float32, 4)
        .into_iter()
        .map(|v| v + 10.0)
        .collect();
    let a = make(&va, &[3, 4], DType::Float32);
    let b = make(&vb, &[4], DType::Float32);
    let f = |v: f64| f64::from(v as f32);
    let ab = |op: fn(f32, f32) -> f32| -> Vec<f64> {
        (0..12)
            .map(|i| f64::from(op(va[i] as f32, vb[i % 4] as f32)))
            .collect()
    };
    assert_close(
        "a+b",
        &(&a + &b).unwrap(),
        &ab(|x, y| x + y),
        DType::Float32,
        EXACT,
    );
    assert_close(
        "a-b",
        &(a.clone() - &b).unwrap(),
        &ab(|x, y| x - y),
        DType::Float32,
        EXACT,
    );
    assert_close(
        "a*b",
        &(&a * b.clone()).unwrap(),
        &ab(|x, y| x * y),
        DType::Float32,
        EXACT,
    );
    // (`b` is broadcast over `a`'s rows: the product by its rounded reciprocal, as XLA.)
    assert_close(
        "a/b",
        &(a.clone() / b.clone()).unwrap(),
        &ab(|x, y| x * (1.0 / y)),
        DType::Float32,
        EXACT,
    );
    let want: Vec<f64> = va.iter().map(|&x| f(2.0 * x)).collect();
    assert_close("2*a", &(2.0 * &a).unwrap(), &want, DType::Float32, EXACT);
    let want: Vec<f64> = va.iter().map(|&x| f(x + 1.0)).collect();
    assert_close("a+1", &(&a + 1).unwrap(), &want, DType::Float32, EXACT);
    let want: Vec<f64> = va.iter().map(|&x| f(1.0 - x)).collect();
    assert_close("1-a", &(1.0 - &a).unwrap(), &want, DType::Float32, EXACT);
    let want: Vec<f64> = va.iter().map(|&x| -x).collect();
    assert_close("-a", &(-&a).unwrap(), &want, DType::Float32, EXACT);
    // Chains end with one `?`.
    let chained = ((&a * &b) + &a).unwrap();
    let want: Vec<f64> = (0..12)
        .map(|i| f64::from((va[i] as f32) * (vb[i % 4] as f32) + va[i] as f32))
        .collect();
    assert_close("(a*b)+a", &chained, &want, DType::Float32, EXACT);
    let c = ((&a * &b) - (&a + &b).unwrap()).unwrap();
    assert_eq!(c.shape(), &[3, 4]);
    // Errors propagate through chains instead of panicking.
    let bad = np::array([1.0f32, 2.0]).unwrap();
    assert_error((&a + &bad) * &a, "add", "ShapeMismatch");
    assert_error(&a % &bad, "remainder", "ShapeMismatch");
    // Scalars keep the array's dtype (weak typing).
    let i = np::array([5i32, -7, 9]).unwrap();
    assert_eq!(
        (&i * 2).unwrap().to_vec::<i32>().unwrap(),
        vec![10, -14, 18]
    );
    assert_eq!((&i % 4).unwrap().to_vec::<i32>().unwrap(), vec![1, 1, 1]);
    assert_eq!((&i / 2).unwrap().dtype(), DType::Float32);
    assert_eq!((&i + 0.5).unwrap().dtype(), DType::Float32);
}

#[test]
fn bitwise_operators() {
    let a = np::array([0b1100u32, 0b1010, 7]).unwrap();
    let b = np::array([0b1010u32, 0b0110, 1]).unwrap();
    assert_eq!(
        (&a & &b).unwrap().to_vec::<u32>().unwrap(),
        vec![0b1000, 0b0010, 1]
    );
    assert_eq!(
        (&a | &b).unwrap().to_vec::<u32>().unwrap(),
        vec![0b1110, 0b1110, 7]
    );
    assert_eq!(
        (&a ^ &b).unwrap().to_vec::<u32>().unwrap(),
        vec![0b0110, 0b1100, 6]
    );
    assert_eq!(
        (&a << 2u32).unwrap().to_vec::<u32>().unwrap(),
        vec![0b110000, 0b101000, 28]
    );
    assert_eq!(
        (&a >> 1u32).unwrap().to_vec::<u32>().unwrap(),
        vec![0b110, 0b101, 3]
    );
    assert_eq!(
        (!&a).unwrap().to_vec::<u32>().unwrap(),
        vec![!0b1100u32, !0b1010, !7]
    );
    let t = np::array([true, false, true]).unwrap();
    let u = np::array([true, true, false]).unwrap();
    assert_eq!(
        (&t & &u).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false, false]
    );
    assert_eq!(
        (&t | false).unwrap().to_vec::<bool>().unwrap(),
        vec![true, false, true]
    );
    assert_eq!(
        (!t.clone()).unwrap().to_vec::<bool>().unwrap(),
        vec![false, true, false]
    );
    assert_error(
        np::array([1.0f32]).unwrap() & 1,
        "bitwise_and",
        "InvalidDType",
    );
    let i = np::array([-8i32]).unwrap();
    assert_eq!((&i >> 1).unwrap().to_vec::<i32>().unwrap(), vec![-4]);
    assert_eq!((&i << 40).unwrap().to_vec::<i32>().unwrap(), vec![0]);
}

/// Every binary ufunc broadcasts the same way: (3,1)x(1,4), (2,1,4)x(3,1), 0-d x n-d, empty.
#[test]
fn every_binary_ufunc_broadcasts() {
    type NpBinary = fn(&Array, &Array) -> olympus::Result<Array>;
    let funcs: &[(&str, NpBinary)] = &[
        ("add", |a, b| np::add(a, b)),
        ("subtract", |a, b| np::subtract(a, b)),
        ("multiply", |a, b| np::multiply(a, b)),
        ("divide", |a, b| np::divide(a, b)),
        ("true_divide", |a, b| np::true_divide(a, b)),
        ("floor_divide", |a, b| np::floor_divide(a, b)),
        ("remainder", |a, b| np::remainder(a, b)),
        ("mod", |a, b| np::r#mod(a, b)),
        ("fmod", |a, b| np::fmod(a, b)),
        ("power", |a, b| np::power(a, b)),
        ("maximum", |a, b| np::maximum(a, b)),
        ("minimum", |a, b| np::minimum(a, b)),
        ("fmax", |a, b| np::fmax(a, b)),
        ("fmin", |a, b| np::fmin(a, b)),
        ("arctan2", |a, b| np::arctan2(a, b)),
        ("hypot", |a, b| np::hypot(a, b)),
        ("copysign", |a, b| np::copysign(a, b)),
        ("logaddexp", |a, b| np::logaddexp(a, b)),
        ("logaddexp2", |a, b| np::logaddexp2(a, b)),
        ("equal", |a, b| np::equal(a, b)),
        ("not_equal", |a, b| np::not_equal(a, b)),
        ("less", |a, b| np::less(a, b)),
        ("less_equal", |a, b| np::less_equal(a, b)),
        ("greater", |a, b| np::greater(a, b)),
        ("greater_equal", |a, b| np::greater_equal(a, b)),
        ("logical_and", |a, b| np::logical_and(a, b)),
        ("logical_or", |a, b| np::logical_or(a, b)),
        ("logical_xor", |a, b| np::logical_xor(a, b)),
    ];
    let mut r = rng();
    let pairs: &[(&[usize], &[usize])] = &[
        (&[3, 1], &[1, 4]),
        (&[2, 1, 4], &[3, 1]),
        (&[], &[2, 3]),
        (&[0, 3], &[3]),
        (&[5], &[]),
    ];
    for (name, f) in funcs {
        for &(sa, sb) in pairs {
            let na: usize = sa.iter().product();
            let nb: usize = sb.iter().product();
            let va: Vec<f64> = random_values(&mut r, DType::Float32, na)
                .into_iter()
                .map(|v| v.abs() + 0.5)
                .collect();
            let vb: Vec<f64> = random_values(&mut r, DType::Float32, nb)
                .into_iter()
                .map(|v| v.abs() + 0.5)
                .collect();
            let a = make(&va, sa, DType::Float32);
            let b = make(&vb, sb, DType::Float32);
            let got = f(&a, &b).unwrap();
            let shape = bshape(sa, sb);
            assert_eq!(got.shape(), shape.as_slice(), "{name} {sa:?} {sb:?}");
            // Against the same function on materialised (broadcast on the host) operands.
            let n: usize = shape.iter().product();
            let ea: Vec<f64> = (0..n).map(|i| va[bcast_index(&shape, sa, i)]).collect();
            let eb: Vec<f64> = (0..n).map(|i| vb[bcast_index(&shape, sb, i)]).collect();
            let (xa, xb) = (
                make(&ea, &shape, DType::Float32),
                make(&eb, &shape, DType::Float32),
            );
            // A broadcast divisor divides as XLA's rewrite: the product by its reciprocal.
            let want = if name.ends_with("divide") && !name.starts_with("floor") && sb != shape {
                np::multiply(&xa, np::reciprocal(&xb).unwrap()).unwrap()
            } else {
                f(&xa, &xb).unwrap()
            };
            assert_eq!(
                got.to_f64_vec().unwrap(),
                want.to_f64_vec().unwrap(),
                "{name} {sa:?} {sb:?}"
            );
        }
    }
}

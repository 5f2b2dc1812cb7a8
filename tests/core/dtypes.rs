//! Promotion against JAX's table, and astype between every pair of dtypes.

use crate::common::*;
use half::f16;
use olympus::{numpy as np, promote_types, result_type, DType, TypeSpec};

fn spec(name: &str) -> TypeSpec {
    match name {
        "weak_int" => TypeSpec::weak(DType::Int32),
        "weak_float" => TypeSpec::weak(DType::Float32),
        n => TypeSpec::strong(DType::from_name(n).expect("dtype name")),
    }
}

/// `tests/data/promotion.txt` was produced by JAX (command in `tests/data/gen_promotion.py`).
#[test]
fn promotion_matches_jax_for_every_pair() {
    let table = include_str!("../data/promotion.txt");
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("astype"))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (a, b, want, weak) = (
            spec(f[0]),
            spec(f[1]),
            DType::from_name(f[2]).unwrap(),
            f[3] == "1",
        );
        let got = result_type(&[a, b]);
        assert_eq!((got.dtype, got.weak), (want, weak), "{} + {}", f[0], f[1]);
        if !a.weak && !b.weak {
            assert_eq!(promote_types(a.dtype, b.dtype), want);
        }
        rows += 1;
    }
    assert_eq!(rows, 49);
}

/// The same pairs through real arrays and Rust scalars: the result dtype of `add`.
#[test]
fn promotion_through_add() {
    let table = include_str!("../data/promotion.txt");
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("astype"))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let arg = |n: &str| -> olympus::convert::Operand {
            use olympus::ArrayLike;
            match n {
                "weak_int" => 3.into_operand().unwrap(),
                "weak_float" => 0.5.into_operand().unwrap(),
                d => np::ones(&[2], DType::from_name(d).unwrap())
                    .unwrap()
                    .into_operand()
                    .unwrap(),
            }
        };
        let r = np::add(arg(f[0]), arg(f[1])).unwrap();
        assert_eq!(r.dtype().name(), f[2], "{} + {}", f[0], f[1]);
        assert_eq!(r.weak_type(), f[3] == "1", "{} + {} weak", f[0], f[1]);
    }
}

/// Reference conversion: XLA's rules (truncate toward zero, saturate, NaN to 0).
fn cast_ref(v: f64, from: DType, to: DType) -> f64 {
    match to {
        DType::Bool => f64::from(u8::from(v != 0.0)),
        DType::Int32 => match from {
            DType::UInt32 => f64::from(v as u32 as i32),
            _ => f64::from(v as i32),
        },
        DType::UInt32 => match from {
            DType::Int32 => f64::from(v as i32 as u32),
            _ => f64::from(v as u32),
        },
        DType::Float16 => match from {
            // Integers convert to float32 first, then round to float16 (as XLA on CPU).
            DType::Int32 | DType::UInt32 => f16::from_f32(v as f32).to_f64(),
            _ => f16::from_f64(v).to_f64(),
        },
        DType::Float32 => f64::from(v as f32),
    }
}

#[test]
fn astype_every_pair_random_and_edges() {
    let mut r = rng();
    let edges = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.5,
        -0.5,
        0.0,
        0.5,
        2.5,
        3e9,
        -3e9,
        65519.0,
        65520.0,
        1e-8,
        2147483520.0,
        4294967040.0,
        -2147483648.0,
    ];
    for from in all_dtypes() {
        let mut v = random_values(&mut r, from, 257);
        if from == DType::Float32 {
            v.extend(edges);
        }
        if from == DType::Float16 {
            v.extend(edges.iter().map(|&e| round_to(e, DType::Float16)));
        }
        if from.is_integer() {
            v.extend([0.0, 1.0, 16777217.0, 2049.0]);
        }
        let a = make(&v, &[v.len()], from);
        for to in all_dtypes() {
            let got = a.astype(to).unwrap();
            let want: Vec<f64> = v.iter().map(|&x| cast_ref(x, from, to)).collect();
            assert_close(&format!("astype {from} -> {to}"), &got, &want, to, EXACT);
            assert!(!got.weak_type());
        }
    }
}

/// JAX's own answers for edge conversions, from the same generated file.
#[test]
fn astype_edges_match_jax() {
    let table = include_str!("../data/promotion.txt");
    for line in table.lines().filter(|l| l.starts_with("astype ")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let v: f32 = f[1].parse().unwrap();
        let to = DType::from_name(f[2]).unwrap();
        let got = np::asarray(vec![v])
            .unwrap()
            .astype(to)
            .unwrap()
            .to_f64_vec()
            .unwrap()[0];
        let want: f64 = match f[3] {
            "True" => 1.0,
            "False" => 0.0,
            s => s.parse().unwrap(),
        };
        assert!(
            got == want || (got.is_nan() && want.is_nan()),
            "{v} as {to}: got {got}, want {want}"
        );
    }
}

#[test]
fn dtype_names_and_properties() {
    for d in DType::ALL {
        assert_eq!(DType::from_name(d.name()), Some(d));
    }
    assert!(DType::Float16.is_floating() && !DType::UInt32.is_signed());
    assert_eq!(DType::Float16.itemsize(), 2);
}

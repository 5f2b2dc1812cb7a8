//! `lax::top_k`, the first primitive of two outputs: bit for bit against JAX 0.10.2
//! (`tests/data/top_k.txt`, made by `tests/data/gen_top_k.py`: every dtype, ties, NaN
//! payloads, ±0, subnormals, integer extremes, `axis=`, empty rows), eagerly and under
//! `jit`; against a host model at every length 0..=1100 and past the radix sort's
//! threshold; through views; and under `grad`, `jvp`, `vmap` and the jaxpr listing.

use crate::common::*;
use half::{bf16, f16};
use olympus::{grad, jit, jvp, lax, numpy as np, vmap, Array, Axes, DType, Result};
use rand::Rng;

fn dtype(name: &str) -> DType {
    match name {
        "float32" => DType::Float32,
        "float16" => DType::Float16,
        "bfloat16" => DType::BFloat16,
        "int8" => DType::Int8,
        "uint8" => DType::UInt8,
        "int16" => DType::Int16,
        "uint16" => DType::UInt16,
        "int32" => DType::Int32,
        "uint32" => DType::UInt32,
        "bool" => DType::Bool,
        other => panic!("unknown dtype {other}"),
    }
}

/// A list of the table: raw float bits in hex, integers in decimal; `-` is empty.
fn numbers(field: &str) -> Vec<i64> {
    let field = field.trim();
    if field == "-" {
        return Vec::new();
    }
    field
        .split_whitespace()
        .map(|t| match t.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).unwrap(),
            None => t.parse().unwrap(),
        })
        .collect()
}

/// An array of `d` holding `v` (float bits, or integer values).
fn from_table(v: &[i64], shape: &[usize], d: DType) -> Array {
    match d {
        DType::Float32 => {
            let f: Vec<f32> = v.iter().map(|&b| f32::from_bits(b as u32)).collect();
            Array::from_slice(&f, shape)
        }
        DType::Float16 => {
            let f: Vec<f16> = v.iter().map(|&b| f16::from_bits(b as u16)).collect();
            Array::from_slice(&f, shape)
        }
        DType::BFloat16 => {
            let f: Vec<bf16> = v.iter().map(|&b| bf16::from_bits(b as u16)).collect();
            Array::from_slice(&f, shape)
        }
        _ => Ok(make(
            &v.iter().map(|&i| i as f64).collect::<Vec<_>>(),
            shape,
            d,
        )),
    }
    .unwrap()
}

/// The table's numbers as [`words`] gives an array's elements.
fn table_words(v: &[i64], d: DType) -> Vec<u32> {
    v.iter()
        .map(|&i| match d {
            // Sign-extended for the narrow signed integers, as `words` reads them.
            DType::Int8 | DType::Int16 | DType::Int32 => i as i32 as u32,
            _ => i as u32,
        })
        .collect()
}

#[test]
fn top_k_matches_jax_bit_for_bit_eagerly_and_under_jit() {
    let text = include_str!("../data/top_k.txt");
    let mut cases = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let parts: Vec<&str> = line.split('|').collect();
        let head: Vec<&str> = parts[0].split_whitespace().collect();
        let d = dtype(head[0]);
        let shape: Vec<usize> = match head[1] {
            "-" => vec![],
            s => s.split(',').map(|n| n.parse().unwrap()).collect(),
        };
        let k: usize = head[2].parse().unwrap();
        let axis: Option<isize> = head[3].parse().ok();
        let x = from_table(&numbers(parts[1]), &shape, d);
        let (want_v, want_i) = (
            table_words(&numbers(parts[2]), d),
            table_words(&numbers(parts[3]), DType::Int32),
        );
        let eager = match axis {
            Some(a) => lax::top_k_axis(&x, k, a),
            None => lax::top_k(&x, k),
        }
        .unwrap_or_else(|e| panic!("{line}: {e}"));
        let jitted = jit(move |x: Array| match axis {
            Some(a) => lax::top_k_axis(&x, k, a),
            None => lax::top_k(&x, k),
        })
        .call(x.clone())
        .unwrap_or_else(|e| panic!("{line} under jit: {e}"));
        for (how, (values, indices)) in [("eager", eager), ("jit", jitted)] {
            let mut out_shape = shape.clone();
            let a = axis.map_or(shape.len() - 1, |a| {
                if a < 0 {
                    (a + shape.len() as isize) as usize
                } else {
                    a as usize
                }
            });
            out_shape[a] = k;
            assert_eq!(values.shape(), out_shape, "{how} {line}");
            assert_eq!(indices.shape(), out_shape, "{how} {line}");
            assert_eq!(values.dtype(), d, "{how} {line}");
            assert_eq!(indices.dtype(), DType::Int32, "{how} {line}");
            assert_eq!(words(&indices), want_i, "{how} indices: {line}");
            assert_eq!(words(&values), want_v, "{how} values: {line}");
        }
        cases += 1;
    }
    assert_eq!(cases, 279);
}

/// The ascending key of IEEE's total order for float32 bits.
fn total_order(bits: u32) -> u32 {
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The host model: positions of a row's `k` largest values in total order, ties by
/// position.
fn host_top_k(row: &[f32], k: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..row.len()).collect();
    // A stable sort keeps equal keys in position order.
    p.sort_by_key(|&i| std::cmp::Reverse(total_order(row[i].to_bits())));
    p.truncate(k);
    p
}

/// Random float32 values with ties, both zeros, infinities and NaNs of both signs.
fn awkward(r: &mut impl Rng, n: usize) -> Vec<f32> {
    const SPECIAL: [f32; 7] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0,
        -1.0,
        1e-45,
    ];
    (0..n)
        .map(|_| match r.random_range(0..10) {
            0 => SPECIAL[r.random_range(0..SPECIAL.len())],
            1 => f32::from_bits(0x7fc0_0000 | r.random_range(0..4)),
            2 => f32::from_bits(0xffc0_0000 | r.random_range(0..4)),
            3..=5 => r.random_range(-4i32..4) as f32,
            _ => r.random_range(-1e3f32..1e3),
        })
        .collect()
}

fn check_rows(what: &str, x: &[f32], rows: usize, n: usize, k: usize) {
    let a = Array::from_slice(x, &[rows, n]).unwrap();
    let (values, indices) = lax::top_k(&a, k).unwrap();
    let (v, i) = (words(&values), indices.to_vec::<i32>().unwrap());
    for row in 0..rows {
        let want = host_top_k(&x[row * n..(row + 1) * n], k);
        for (j, &p) in want.iter().enumerate() {
            let at = row * k + j;
            assert_eq!(i[at], p as i32, "{what}: row {row} position {j}");
            assert_eq!(
                v[at],
                x[row * n + p].to_bits(),
                "{what}: row {row} value {j}"
            );
        }
    }
}

#[test]
fn top_k_at_every_length_and_past_the_radix_threshold() {
    let mut r = rng();
    for n in crate::sizes::sweep_lengths() {
        let x = awkward(&mut r, n);
        // k cycles through 0, 1, n and values between.
        let k = match n % 4 {
            0 => n,
            1 => n.min(1),
            2 => n / 2,
            _ => (n * 7 / 9).min(n),
        };
        check_rows(&format!("n = {n}, k = {k}"), &x, 1, n, k);
    }
    // Several rows, and rows long enough for the radix sort.
    for (rows, n, k) in [
        (3, 1025, 10),
        (2, 5000, 4999),
        (1, 70_001, 100),
        (37, 33, 5),
    ] {
        let x = awkward(&mut r, rows * n);
        check_rows(&format!("{rows} rows of {n}, k = {k}"), &x, rows, n, k);
    }
}

#[test]
fn top_k_reads_views_and_checks_its_arguments() {
    let mut r = rng();
    // A transposed view: rows along the view's last axis are strided in memory.
    let base: Vec<f32> = awkward(&mut r, 6 * 5);
    let stored = Array::from_slice(&base, &[6, 5]).unwrap();
    let view = np::transpose(&stored, None).unwrap(); // (5, 6)
    let (v, i) = lax::top_k(&view, 3).unwrap();
    let (vw, iw) = (words(&v), i.to_vec::<i32>().unwrap());
    for row in 0..5 {
        let vals: Vec<f32> = (0..6).map(|c| base[c * 5 + row]).collect();
        let want = host_top_k(&vals, 3);
        for (j, &p) in want.iter().enumerate() {
            assert_eq!(iw[row * 3 + j], p as i32, "view row {row}");
            assert_eq!(vw[row * 3 + j], vals[p].to_bits(), "view row {row}");
        }
    }
    // A broadcast view and axis 0 of it.
    let row = Array::from_slice(&[2.0f32, 7.0, 5.0], &[1, 3]).unwrap();
    let b = np::broadcast_to(&row, &[4, 3]).unwrap();
    let (v, i) = lax::top_k_axis(&b, 2, 0).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), [2.0, 7.0, 5.0, 2.0, 7.0, 5.0]);
    assert_eq!(i.to_vec::<i32>().unwrap(), [0, 0, 0, 1, 1, 1]);
    // Errors name top_k and the shapes.
    let x = np::zeros(&[2, 3], DType::Float32).unwrap();
    for (what, r) in [
        ("k past the axis", lax::top_k(&x, 4)),
        ("axis out of range", lax::top_k_axis(&x, 1, 2)),
        ("negative axis out of range", lax::top_k_axis(&x, 1, -3)),
        (
            "0-d operand",
            lax::top_k(&np::zeros(&[], DType::Float32).unwrap(), 0),
        ),
    ] {
        let msg = r
            .err()
            .unwrap_or_else(|| panic!("{what}: no error"))
            .to_string();
        assert!(msg.starts_with("top_k:"), "{what}: {msg}");
    }
    let msg = lax::top_k(&x, 4).err().unwrap().to_string();
    assert!(msg.contains("(2, 3)") && msg.contains("k = 4"), "{msg}");
    // A single-output bind of a two-output primitive is an error, not a panic.
    let err = lax::bind(lax::Primitive::TopK { k: 1, axis: 0 }, &[&x], None)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("2 outputs"), "{err}");
}

/// `top_k` of `x` along its last axis, values weighted and summed (so every value's
/// cotangent differs).
fn weighted_top(x: &Array, k: usize) -> Result<Array> {
    let (values, _) = lax::top_k(x, k)?;
    let w = np::arange_with(1..(k as i32 + 1), DType::Float32)?;
    np::sum(np::multiply(&values, &w)?, None, false)
}

#[test]
fn top_k_under_grad_jvp_vmap_and_jit() {
    let xs = [1.0f32, 5.0, 3.0, 5.0, -2.0, 4.0];
    let x = Array::from_slice(&xs, &[6]).unwrap();
    // The cotangent lands on the chosen positions: weights 1, 2, 3 on 5 (first), 5, 4.
    let want = [0.0f32, 1.0, 0.0, 2.0, 0.0, 3.0];
    let g = grad(|x: Array| weighted_top(&x, 3))(x.clone()).unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), want);
    let gj = jit(grad(|x: Array| weighted_top(&x, 3)))
        .call(x.clone())
        .unwrap();
    assert_eq!(gj.to_vec::<f32>().unwrap(), want);
    // Forward mode: the tangent at the chosen positions; the indices have none.
    let t = Array::from_slice(&[10.0f32, 20.0, 30.0, 40.0, 50.0, 60.0], &[6]).unwrap();
    let (out, tan) = jvp(
        |x: Array| -> Result<(Array, Array)> { lax::top_k(&x, 2) },
        x.clone(),
        t,
    )
    .unwrap();
    assert_eq!(out.0.to_vec::<f32>().unwrap(), [5.0, 5.0]);
    assert_eq!(out.1.to_vec::<i32>().unwrap(), [1, 3]);
    assert_eq!(tan.0.to_vec::<f32>().unwrap(), [20.0, 40.0]);
    // vmap over axis 1 equals the loop over columns.
    let m = Array::from_slice(
        &[
            3.0f32, 1.0, 2.0, 9.0, 0.0, 8.0, 4.0, 4.0, 7.0, 6.0, 5.0, 2.0,
        ],
        &[4, 3],
    )
    .unwrap();
    let (v, i) = vmap(|c: Array| lax::top_k(&c, 2), 1, 0)(m.clone()).unwrap();
    assert_eq!(v.shape(), &[3, 2]);
    let mt = np::transpose(&m, None).unwrap();
    let (lv, li) = lax::top_k(&mt, 2).unwrap();
    assert_eq!(v.to_vec::<f32>().unwrap(), lv.to_vec::<f32>().unwrap());
    assert_eq!(i.to_vec::<i32>().unwrap(), li.to_vec::<i32>().unwrap());
    // Per-example gradients: vmap of grad.
    let per = vmap(grad(|x: Array| weighted_top(&x, 1)), 0, 0)(m.clone()).unwrap();
    assert_eq!(
        per.to_vec::<f32>().unwrap(),
        [1.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    );
    let batched_unmapped = vmap(
        |(a, b): (Array, Array)| -> Result<Array> { np::add(&lax::top_k(&a, 1)?.0, &b) },
        (Axes::Unmapped, 0),
        0,
    )((x.clone(), np::arange_with(0..3, DType::Float32).unwrap()))
    .unwrap();
    assert_eq!(batched_unmapped.to_vec::<f32>().unwrap(), [5.0, 6.0, 7.0]);
    // The listing shows one equation with both outputs.
    let f = jit(|x: Array| lax::top_k(&x, 2));
    let text = f.lower(&x).unwrap().to_string();
    assert!(
        text.contains("b:f32[2] c:i32[2] = top_k[k: 2, axis: 0] a"),
        "{text}"
    );
    // Only the indices used: the values output is dropped, the equation kept.
    let g = jit(|x: Array| Ok(lax::top_k(&x, 2)?.1));
    assert_eq!(g.call(x).unwrap().to_vec::<i32>().unwrap(), [1, 3]);
}

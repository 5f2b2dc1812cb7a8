//! A two-word element through storage, kernels and readback, before a complex dtype
//! exists: the test dtype [`DType::TestPair`] is complex64's storage (two float32 words,
//! computed as `vec2<f32>`, added lane by lane). Uploads and readbacks at every length,
//! literals, and elementwise kernels reading every access pattern (contiguous, strided,
//! row, column and scalar broadcasts, offset views), eagerly, under `jit`, and through
//! binding windows.
#![cfg(test)]

use crate::array::Array;
use crate::dtype::DType;
use crate::lax;
use crate::primitive::Literal;
use crate::runtime::{Device, DeviceOptions};
use rand::{Rng, SeedableRng};

type Pair = [f32; 2];

/// Values that keep their bits through an f32 add on every adapter: ordinary values, both
/// zeros, infinities, NaN and values near float32's limit (no subnormals: a GPU may flush
/// them in arithmetic; the storage round trip below covers them).
fn value(r: &mut impl Rng) -> f32 {
    match r.random_range(0..12) {
        0 => -0.0,
        1 => 0.0,
        2 => f32::INFINITY,
        3 => f32::NEG_INFINITY,
        4 => f32::NAN,
        5 => 3e38,
        6 => -3e38,
        _ => r.random_range(-100.0f32..100.0),
    }
}

fn pairs(r: &mut impl Rng, n: usize) -> Vec<Pair> {
    (0..n).map(|_| [value(r), value(r)]).collect()
}

fn add(a: Pair, b: Pair) -> Pair {
    [a[0] + b[0], a[1] + b[1]]
}

/// Equal bits, or NaN in both (a NaN's payload may change in arithmetic).
fn assert_pairs(got: &[Pair], want: &[Pair], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        for k in 0..2 {
            let same = g[k].to_bits() == w[k].to_bits() || (g[k].is_nan() && w[k].is_nan());
            assert!(same, "{what}: element {i} word {k}: got {g:?}, want {w:?}");
        }
    }
}

fn upload(v: &[Pair], shape: &[usize]) -> Array {
    Array::from_slice(v, shape).unwrap()
}

fn read(a: &Array) -> Vec<Pair> {
    a.to_vec::<Pair>().unwrap()
}

#[test]
fn two_word_elements_round_trip_and_add_at_every_length() {
    let mut r = rand::rngs::StdRng::seed_from_u64(5);
    for n in 0..=1100usize {
        // Storage and readback, subnormals and NaN payloads included: no arithmetic.
        let raw: Vec<Pair> = (0..n)
            .map(|_| [f32::from_bits(r.random()), f32::from_bits(r.random())])
            .collect();
        let x = upload(&raw, &[n]);
        assert_eq!(x.dtype(), DType::TestPair);
        let back = read(&x);
        let bits = |v: &[Pair]| -> Vec<[u32; 2]> {
            v.iter().map(|p| [p[0].to_bits(), p[1].to_bits()]).collect()
        };
        assert_eq!(bits(&back), bits(&raw), "round trip of {n}");

        // An elementwise kernel: its loads, the `vec2` lane function and the unit stores.
        let (va, vb) = (pairs(&mut r, n), pairs(&mut r, n));
        let sum = lax::add(&upload(&va, &[n]), &upload(&vb, &[n])).unwrap();
        let want: Vec<Pair> = va.iter().zip(&vb).map(|(&a, &b)| add(a, b)).collect();
        assert_pairs(&read(&sum), &want, &format!("add of {n}"));

        // A literal: two parameter words.
        let lit = [value(&mut r), value(&mut r)];
        let full = lax::full(&[n], Literal::Pair(lit), None).unwrap();
        assert_pairs(&read(&full), &vec![lit; n], &format!("full of {n}"));
    }
}

#[test]
fn two_word_elements_read_through_every_access() {
    let mut r = rand::rngs::StdRng::seed_from_u64(6);
    for (rows, cols) in [(1, 1), (3, 5), (4, 4), (7, 33), (64, 3)] {
        let n = rows * cols;
        let va = pairs(&mut r, n);
        let a = upload(&va, &[rows, cols]);
        let vt = pairs(&mut r, n);
        // A transposed (strided) operand.
        let t = lax::transpose(&upload(&vt, &[cols, rows]), &[1, 0]).unwrap();
        let got = read(&lax::add(&a, &t).unwrap());
        let want: Vec<Pair> = (0..n)
            .map(|i| add(va[i], vt[(i % cols) * rows + i / cols]))
            .collect();
        assert_pairs(&got, &want, &format!("transposed ({rows}, {cols})"));
        // The transposed view read back alone (a copy kernel).
        let tv: Vec<Pair> = (0..n).map(|i| vt[(i % cols) * rows + i / cols]).collect();
        assert_pairs(&read(&t), &tv, "transposed view");

        // A row broadcast over rows (a repeated run), a column across columns (spread
        // elements) and a scalar (a splat).
        let vrow = pairs(&mut r, cols);
        let row = lax::broadcast_in_dim(&upload(&vrow, &[cols]), &[rows, cols], &[1]).unwrap();
        let vcol = pairs(&mut r, rows);
        let col = lax::broadcast_in_dim(&upload(&vcol, &[rows]), &[rows, cols], &[0]).unwrap();
        let vs = pairs(&mut r, 1);
        let s = lax::broadcast_in_dim(&upload(&vs, &[]), &[rows, cols], &[]).unwrap();
        let got = read(&lax::add(&lax::add(&a, &row).unwrap(), &col).unwrap());
        let want: Vec<Pair> = (0..n)
            .map(|i| add(add(va[i], vrow[i % cols]), vcol[i / cols]))
            .collect();
        assert_pairs(&got, &want, &format!("row and column ({rows}, {cols})"));
        let got = read(&lax::add(&a, &s).unwrap());
        let want: Vec<Pair> = va.iter().map(|&v| add(v, vs[0])).collect();
        assert_pairs(&got, &want, "scalar");

        // An offset, stepped view: elements start inside the buffer at an odd element.
        if cols >= 2 {
            let v = lax::slice(&a, &[0, 1], &[rows, cols], Some(&[1, 2])).unwrap();
            let k = (cols - 1).div_ceil(2);
            let want: Vec<Pair> = (0..rows * k)
                .map(|i| va[(i / k) * cols + 1 + 2 * (i % k)])
                .collect();
            assert_pairs(&read(&v), &want, "stepped view");
            let got = read(&lax::add(&v, &v).unwrap());
            let twice: Vec<Pair> = want.iter().map(|&w| add(w, w)).collect();
            assert_pairs(&got, &twice, "stepped view added");
        }
    }
}

#[test]
fn two_word_elements_under_jit_and_through_windows() {
    let mut r = rand::rngs::StdRng::seed_from_u64(7);
    let lit = [1.5f32, -2.25];
    let f = crate::jit::jit(move |(x, y): (Array, Array)| {
        let c = lax::full(x.shape(), Literal::Pair(lit), None)?;
        lax::add(&lax::add(&x, &y)?, &c)
    });
    // Bindings of 8 KiB (1024 elements), so the larger cases read and write through
    // several windows, and grids of 4 workgroups per dimension.
    let small = Device::new(DeviceOptions {
        max_binding_bytes: Some(8192),
        max_workgroups_per_dim: Some(4),
        ..DeviceOptions::default()
    })
    .unwrap();
    for (rows, cols) in [(1, 3), (33, 31), (50, 100)] {
        let n = rows * cols;
        let (va, vb) = (pairs(&mut r, n), pairs(&mut r, n));
        let want: Vec<Pair> = (0..n)
            .map(|i| add(add(va[i], vb[(i % cols) * rows + i / cols]), lit))
            .collect();
        let run = || {
            let x = upload(&va, &[rows, cols]);
            let y = lax::transpose(&upload(&vb, &[cols, rows]), &[1, 0]).unwrap();
            let eager = lax::add(
                &lax::add(&x, &y).unwrap(),
                &lax::full(&[rows, cols], Literal::Pair(lit), None).unwrap(),
            )
            .unwrap();
            assert_pairs(&read(&eager), &want, &format!("eager ({rows}, {cols})"));
            let jitted = f.call((x, y)).unwrap();
            assert_pairs(&read(&jitted), &want, &format!("jit ({rows}, {cols})"));
        };
        run();
        crate::with_device(&small, run);
    }
}

//! A two-word element through storage, kernels and readback, before a complex dtype
//! exists: the test dtype [`DType::TestPair`] is complex64's storage (two float32 words,
//! computed as `vec2<f32>`, added lane by lane). Uploads and readbacks at every length,
//! literals, and elementwise kernels reading every access pattern (contiguous, strided,
//! row, column, tiled and scalar broadcasts, offset views), eagerly, under `jit`, and through
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

        // A literal: two parameter words. The second call differs only in the second
        // word, so a cached kernel that kept the first call's words would fail it.
        let lit = [value(&mut r), value(&mut r)];
        let full = lax::full(&[n], Literal::Pair(lit), None).unwrap();
        assert_pairs(&read(&full), &vec![lit; n], &format!("full of {n}"));
        let other = [lit[0], lit[1] + 1.0];
        let full = lax::full(&[n], Literal::Pair(other), None).unwrap();
        assert_pairs(
            &read(&full),
            &vec![other; n],
            &format!("second full of {n}"),
        );
    }
    // Outputs past `CPU_VECTORS_FROM` elements, whose threads write their vectors out.
    let n = (1 << 22) + 3;
    let (va, vb) = (pairs(&mut r, n), pairs(&mut r, n));
    let sum = lax::add(&upload(&va, &[n]), &upload(&vb, &[n])).unwrap();
    let want: Vec<Pair> = va.iter().zip(&vb).map(|(&a, &b)| add(a, b)).collect();
    assert_pairs(&read(&sum), &want, "add of 2^22 + 3");
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
        // Rows of `[rows, cols]` each repeated three times (`[rows, 3, cols]`: tiles).
        if rows >= 2 && cols >= 2 {
            let shape = [rows, 3, cols];
            let tile = lax::broadcast_in_dim(&a, &shape, &[0, 2]).unwrap();
            let vb = pairs(&mut r, 3 * n);
            let got = read(&lax::add(&upload(&vb, &shape), &tile).unwrap());
            let want: Vec<Pair> = (0..3 * n)
                .map(|i| add(vb[i], va[i / (3 * cols) * cols + i % cols]))
                .collect();
            assert_pairs(&got, &want, &format!("tiled rows ({rows}, 3, {cols})"));
        }

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
    // Two outputs of one fused kernel: `x + y + c` and `x + row + s`.
    let f = crate::jit::jit(move |(x, y, row, s): (Array, Array, Array, Array)| {
        let c = lax::full(x.shape(), Literal::Pair(lit), None)?;
        let first = lax::add(&lax::add(&x, &y)?, &c)?;
        let second = lax::add(&lax::add(&x, &row)?, &s)?;
        Ok((first, second))
    });
    let device = |options: DeviceOptions| Device::new(options).unwrap();
    let devices = [
        // Bindings of 8 KiB (1024 elements), so the larger cases read and write through
        // several windows, and grids of 4 workgroups per dimension.
        device(DeviceOptions {
            max_binding_bytes: Some(8192),
            max_workgroups_per_dim: Some(4),
            ..DeviceOptions::default()
        }),
        // Every input staged into a texture (half a texel per element).
        device(DeviceOptions {
            texture_input_bytes: Some(0),
            ..DeviceOptions::default()
        }),
        // Neither: windows of 8 KiB and four storage buffers a kernel, so kernels split
        // and bind parts of buffers.
        device(DeviceOptions {
            max_binding_bytes: Some(8192),
            max_storage_buffers: Some(4),
            texture_input_bytes: Some(u64::MAX),
            ..DeviceOptions::default()
        }),
    ];
    for (rows, cols) in [(1, 3), (33, 31), (50, 100)] {
        let n = rows * cols;
        let (va, vb) = (pairs(&mut r, n), pairs(&mut r, n));
        // The row and the scalar start inside larger buffers, at odd elements.
        let (vrow, vs) = (pairs(&mut r, cols + 3), pairs(&mut r, 6));
        let want: Vec<Pair> = (0..n)
            .map(|i| add(add(va[i], vb[(i % cols) * rows + i / cols]), lit))
            .collect();
        let want2: Vec<Pair> = (0..n)
            .map(|i| add(add(va[i], vrow[3 + i % cols]), vs[5]))
            .collect();
        let run = || {
            let x = upload(&va, &[rows, cols]);
            let y = lax::transpose(&upload(&vb, &[cols, rows]), &[1, 0]).unwrap();
            let row = lax::slice(&upload(&vrow, &[cols + 3]), &[3], &[cols + 3], None).unwrap();
            let row = lax::broadcast_in_dim(&row, &[rows, cols], &[1]).unwrap();
            let s = lax::slice(&upload(&vs, &[6]), &[5], &[6], None).unwrap();
            let s = lax::broadcast_in_dim(&s, &[rows, cols], &[1]).unwrap();
            let eager = lax::add(
                &lax::add(&x, &y).unwrap(),
                &lax::full(&[rows, cols], Literal::Pair(lit), None).unwrap(),
            )
            .unwrap();
            assert_pairs(&read(&eager), &want, &format!("eager ({rows}, {cols})"));
            let eager2 = lax::add(&lax::add(&x, &row).unwrap(), &s).unwrap();
            assert_pairs(&read(&eager2), &want2, &format!("eager2 ({rows}, {cols})"));
            let (first, second) = f.call((x, y, row, s)).unwrap();
            assert_pairs(&read(&first), &want, &format!("jit ({rows}, {cols})"));
            assert_pairs(&read(&second), &want2, &format!("jit2 ({rows}, {cols})"));
        };
        run();
        for dev in &devices {
            crate::with_device(dev, run);
        }
    }
}

//! Inputs staged into textures (CPU adapters load a storage texture's texels as vectors):
//! every kernel family gives the same bits whether its inputs are read from textures or
//! from storage buffers, in every dtype (float16 as packed words), across texel and row
//! boundaries, views, broadcasts and mixed bindings.

use olympus::{jit, numpy as np, s, with_device, Array, DType, Device, DeviceOptions, Result};

use crate::common::{rng, words};
use rand::Rng;

/// Elements of 32 bits in one texture row (4096 texels of four words).
const ROW: usize = 4096 * 4;

/// Runs `f` on a device that stages every eligible input into a texture and on one that
/// never does, and checks that every result has the same dtype, shape and bits.
fn same_bits(what: &str, f: impl Fn() -> Result<Vec<Array>>) {
    let textures = Device::new(DeviceOptions {
        texture_input_bytes: Some(0),
        ..DeviceOptions::default()
    })
    .unwrap();
    let buffers = Device::new(DeviceOptions {
        texture_input_bytes: Some(u64::MAX),
        ..DeviceOptions::default()
    })
    .unwrap();
    let got = with_device(&textures, &f).unwrap();
    let want = with_device(&buffers, &f).unwrap();
    // The inputs really went through textures on one device and not on the other.
    assert!(
        textures.memory_stats().texture_bytes > 0,
        "{what}: nothing was staged"
    );
    assert_eq!(buffers.memory_stats().texture_bytes, 0, "{what}");
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g.device(),
            &textures,
            "{what}[{k}] ran on the texture device"
        );
        assert_eq!(
            (g.dtype(), g.shape()),
            (w.dtype(), w.shape()),
            "{what}[{k}]"
        );
        let (gw, ww) = (words(g), words(w));
        if let Some(i) = (0..gw.len()).find(|&i| gw[i] != ww[i]) {
            panic!(
                "{what}[{k}] {:?} {:?}: element {i} is {:08x} through textures, {:08x} through buffers",
                g.dtype(),
                g.shape(),
                gw[i],
                ww[i]
            );
        }
    }
}

fn floats(n: usize, seed: u64) -> Vec<f32> {
    let mut r = rng();
    let skip: u64 = r.random_range(0..1000) + seed;
    (0..n)
        .map(|i| (((i as u64 * 2654435761 + skip) % 2001) as f32 - 1000.0) / 97.0)
        .collect()
}

#[test]
fn elementwise_kernels_read_textures_like_buffers() {
    // Two full texture rows, five texels and three elements.
    let n = 2 * ROW + 4 * 5 + 3;
    let (va, vb, vc) = (floats(n, 1), floats(n, 2), floats(n, 3));
    // The texture path agrees with the host, not only with the buffer path.
    let textures = Device::new(DeviceOptions {
        texture_input_bytes: Some(0),
        ..DeviceOptions::default()
    })
    .unwrap();
    with_device(&textures, || {
        let sum = (Array::from_slice(&va, &[n]).unwrap() + Array::from_slice(&vb, &[n]).unwrap())
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        for i in 0..n {
            assert_eq!(sum[i].to_bits(), (va[i] + vb[i]).to_bits(), "a + b at {i}");
        }
    });
    same_bits("elementwise", || {
        let a = Array::from_slice(&va, &[n])?;
        let b = Array::from_slice(&vb, &[n])?;
        let c = Array::from_slice(&vc, &[n])?;
        let ia = np::astype(np::multiply(&a, 100.0)?, DType::Int32)?;
        let ib = np::astype(np::multiply(&b, 3.0)?, DType::Int32)?;
        let ua = np::astype(np::abs(&ia)?, DType::UInt32)?;
        let m = 181;
        let sq = np::reshape(&a.slice(s![..m * m])?, &[m as isize, m as isize])?;
        let h16 = np::astype(&b, DType::Float16)?;
        Ok(vec![
            (&a + &b)?,
            np::divide(np::exp((&a * &b + &c)?)?, (np::abs(&a)? + 1.0f32)?)?,
            np::r#where(np::greater(&a, &b)?, &a, &c)?,
            np::floor_divide(&ia, &ib)?,
            np::remainder(&ia, &ib)?,
            np::left_shift(&ua, np::remainder(&ua, 40u32)?)?,
            np::logical_and(np::greater(&a, 0.0)?, np::greater(&b, 0.0)?)?,
            // Views: an offset that is not a multiple of four (strided reads), one that is
            // (vector reads at an offset), a reversal, a transpose.
            (&a.slice(s![3..])? * &b.slice(s![..n - 3])?)?,
            (&a.slice(s![4..])? - &c.slice(s![..n - 4])?)?,
            (&a.slice(s![..;-1])? + &b)?,
            (&sq + &np::transpose(&sq, None)?)?,
            // Broadcasts: a 0-d operand, a row against a column.
            (&a * Array::from_slice(&[2.5f32], &[])?)?,
            (np::reshape(&a.slice(s![..300])?, &[1, 300])?
                + np::reshape(&b.slice(s![..200])?, &[200, 1])?)?,
            // float16 in textures is read as packed words (four halves per vec4 read).
            (&h16 + &a)?,
            (&h16 * &h16)?,
            (&h16.slice(s![1..])? - &h16.slice(s![..n - 1])?)?,
            (np::astype(&sq, DType::Float16)?
                + np::transpose(np::astype(&sq, DType::Float16)?, None)?)?,
            // Gathers and concatenations read through the same accessors.
            np::take(&a, np::remainder(&ua, n as u32)?, None)?,
            np::concatenate([&a, &b.slice(s![..777])?], 0)?,
            // Empty inputs launch nothing.
            (&a.slice(s![5..5])? + 1.0)?,
        ])
    });
}

#[test]
fn reductions_and_matmul_read_textures_like_buffers() {
    let (rows, cols) = (67, 2 * ROW / 67 + 5);
    let v = floats(rows * cols, 4);
    same_bits("reductions", || {
        let x = Array::from_slice(&v, &[rows, cols])?;
        let xi = np::astype(np::multiply(&x, 10.0)?, DType::Int32)?;
        let xt = np::transpose(&x, None)?;
        Ok(vec![
            np::sum(&x, None, false)?,
            np::sum(&x, Some(&[0]), false)?,
            np::sum(&x, Some(&[1]), false)?,
            np::max(&xt, Some(&[1]), false)?,
            np::sum(&xi, Some(&[0]), false)?,
            np::argmax(&x, Some(1), false)?,
            np::sum(&x.slice(s![.., 1..])?, Some(&[1]), false)?,
            np::sum(np::astype(&x, DType::Float16)?, Some(&[0]), false)?,
            np::max(np::astype(&xt, DType::Float16)?, Some(&[1]), false)?,
        ])
    });
    let (m, k, n) = (67, 129, 33);
    let (va, vb) = (floats(m * k, 5), floats(k * n, 6));
    same_bits("matmul", || {
        let a = Array::from_slice(&va, &[m, k])?;
        let b = Array::from_slice(&vb, &[k, n])?;
        let at = np::transpose(np::reshape(&a, &[k as isize, m as isize])?, None)?;
        let bt = np::transpose(np::reshape(&b, &[n as isize, k as isize])?, None)?;
        let ai = np::astype(np::multiply(&a, 4.0)?, DType::Int32)?;
        let bi = np::astype(np::multiply(&b, 4.0)?, DType::Int32)?;
        Ok(vec![
            np::matmul(&a, &b)?,
            np::matmul(&at, &b)?,
            np::matmul(&a, &bt)?,
            np::matmul(&at, &bt)?,
            np::matmul(&ai, &bi)?,
            np::matmul(
                np::astype(&a, DType::Float16)?,
                np::astype(&bt, DType::Float16)?,
            )?,
            np::matmul(&a.slice(s![.., 1..])?, &b.slice(s![..k - 1, ..])?)?,
        ])
    });
}

#[test]
fn scatters_and_searches_read_textures_like_buffers() {
    let n = 2 * ROW + 7;
    let mut r = rng();
    let pos: Vec<i32> = (0..n).map(|_| r.random_range(-2..70)).collect();
    // Whole numbers: float sums are exact in any order of the atomics.
    let w: Vec<f32> = (0..n).map(|_| r.random_range(-8..9) as f32).collect();
    let v = floats(n, 9);
    same_bits("scatters", || {
        let p = Array::from_slice(&pos, &[n])?;
        let wa = Array::from_slice(&w, &[n])?;
        // Positions from an offset into their buffer (no aligned base).
        let p3 = p.slice(s![3..])?;
        let w3 = wa.slice(s![3..])?;
        let perm = np::argsort(Array::from_slice(&v, &[n])?, None)?;
        Ok(vec![
            np::bincount(&p, None, 0, Some(64))?,
            np::bincount(&p, Some(&wa), 0, Some(64))?,
            np::bincount(&p3, Some(&w3), 0, Some(5000))?,
            np::zeros(&[64], DType::Int8)?.at(&p).add(1)?,
            np::zeros(&[n], DType::Float32)?.at(&perm).set(&wa)?,
        ])
    });
    let mut sorted = floats(n, 10);
    sorted.sort_by(f32::total_cmp);
    same_bits("searches", || {
        let a = Array::from_slice(&sorted, &[n])?;
        let q = Array::from_slice(&v, &[n])?;
        Ok(vec![
            np::searchsorted(&a, &q, np::Side::Left, None)?,
            np::searchsorted(&a.slice(s![1..;2])?, &q, np::Side::Right, None)?,
            np::histogram(&q, 37, None, None, false)?.0,
        ])
    });
}

#[test]
fn fused_kernels_read_textures_like_buffers() {
    let n = ROW + 4 * 3 + 1;
    let (va, vb) = (floats(n, 7), floats(n, 8));
    // A fused chain, a fused reduction, and a multi-output kernel (z and w).
    let f = jit(|(x, y): (Array, Array)| -> Result<(Array, Array, Array)> {
        let z = np::tanh(((&x * &y)? + 0.5f32)?)?;
        let w = np::greater(&z, &y)?;
        let s = np::sum(np::exp(np::negative(np::abs(&x)?)?)?, None, false)?;
        Ok((z, w, s))
    });
    let args = (
        Array::from_slice(&va, &[n]).unwrap(),
        Array::from_slice(&vb, &[n]).unwrap(),
    );
    assert_eq!(f.lower(&args).unwrap().fused_kernels(), 2);
    same_bits("jit", || {
        let (z, w, s) = f.call((Array::from_slice(&va, &[n])?, Array::from_slice(&vb, &[n])?))?;
        Ok(vec![z, w, s])
    });
}

#[test]
fn staged_copies_are_reused_and_follow_their_buffers() {
    let dev = Device::new(DeviceOptions {
        texture_input_bytes: Some(0),
        ..DeviceOptions::default()
    })
    .unwrap();
    let n = ROW + 7;
    let (va, vb) = (floats(n, 9), floats(n, 10));
    with_device(&dev, || {
        let a = Array::from_slice(&va, &[n]).unwrap();
        let first = (&a * 2.0f32).unwrap();
        first.block_until_ready().unwrap();
        let staged = dev.memory_stats().texture_bytes;
        assert!(staged > 0, "the input was staged");
        // Reading the same array again reuses its copy: no new texture.
        for _ in 0..5 {
            (&a * 3.0f32).unwrap().block_until_ready().unwrap();
        }
        assert_eq!(dev.memory_stats().texture_bytes, staged);
        // A buffer back in the pool holds the next array: its old copy must not be read.
        let twice = (&first * 1.0f32).unwrap();
        drop((a, first));
        for round in 0..3 {
            let b = Array::from_slice(&vb, &[n]).unwrap();
            let doubled = (&b * 2.0f32).unwrap();
            let got = (&doubled + &b).unwrap().to_vec::<f32>().unwrap();
            for i in 0..n {
                let want = vb[i] * 2.0 + vb[i];
                assert_eq!(
                    got[i].to_bits(),
                    want.to_bits(),
                    "round {round}, element {i}"
                );
            }
        }
        let got = twice.to_vec::<f32>().unwrap();
        for i in 0..n {
            assert_eq!(got[i].to_bits(), (va[i] * 2.0).to_bits(), "element {i}");
        }
    });
}

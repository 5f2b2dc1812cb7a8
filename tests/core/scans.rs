//! Cumulative sums and products, forward and reversed, associate as JAX's do on CPU (XLA's
//! 16-element rows, the rows' totals scanned in turn, each row offset by the total before
//! it, or after it when reversed; float16 and bfloat16 rounded after every operation):
//! bit for bit against JAX (`tests/data/scans.txt`, made by `tests/data/gen_scans.py`),
//! and against the host models of that order (`xla_scan`, `xla_scan_reversed`) at every
//! length 0..=1100 and past the recursion's levels.

use crate::common::*;
use olympus::{lax, numpy as np, DType};

/// The inputs of `gen_scans.py`.
fn inputs(prod: bool, n: usize, d: DType) -> Vec<f64> {
    (0..n as i64)
        .map(|i| {
            let k = if prod {
                1.0 + ((i * 7919) % 129 - 64) as f64 / 16384.0
            } else {
                ((i * 7919) % 1999 - 999) as f64 / 256.0
            };
            round_to(k, d)
        })
        .collect()
}

fn fnv(values: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for v in values {
        for b in v.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    h
}

fn dtype(name: &str) -> DType {
    match name {
        "float32" => DType::Float32,
        "float16" => DType::Float16,
        _ => DType::BFloat16,
    }
}

#[test]
fn float_scans_match_jax_bit_for_bit() {
    let text = include_str!("../data/scans.txt");
    let mut rows = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (d, n) = (dtype(f[0]), f[2].parse::<usize>().unwrap());
        let (prod, reverse) = (f[1].starts_with("cumprod"), f[1].ends_with("_reverse"));
        let v = inputs(prod, n, d);
        let x = make(&v, &[n], d);
        let got = match (prod, reverse) {
            (false, false) => np::cumsum(&x, None),
            (true, false) => np::cumprod(&x, None),
            (false, true) => lax::cumsum(&x, 0, true),
            (true, true) => lax::cumprod(&x, 0, true),
        }
        .unwrap();
        assert_eq!(got.dtype(), d, "{line}");
        let g = got.to_f64_vec().unwrap();
        let model = if reverse {
            xla_scan_reversed(&v, d, prod)
        } else {
            xla_scan(&v, d, prod)
        };
        assert_eq!(
            format!("{:016x}", fnv(&model)),
            f[3],
            "{line}: the host model differs from JAX"
        );
        if let Some(i) = (0..n).find(|&i| g[i].to_bits() != model[i].to_bits()) {
            panic!("{line}: element {i}: got {}, JAX {}", g[i], model[i]);
        }
        rows += 1;
    }
    assert_eq!(rows, 192);
}

/// Every length to 300 (the recursion's first two levels) and every 7th to 1100 (21st on
/// the GPU profile's sampled pass), forward and reversed, and along the first axis of a
/// 2-D array, for the three float dtypes. The kernels' indexing is swept at every length
/// by `sizes.rs`; this checks the association.
#[test]
fn float_scans_follow_xla_at_every_length() {
    let mut r = rng();
    let sample = std::env::var("OLYMPUS_SWEEP").is_ok_and(|v| v == "sample");
    for d in [DType::Float32, DType::Float16, DType::BFloat16] {
        let base = random_values(&mut r, d, 1100);
        let near: Vec<f64> = base.iter().map(|x| round_to(1.0 + x / 256.0, d)).collect();
        for n in (0..=1100).filter(|n| *n <= 300 || n % if sample { 21 } else { 7 } == 0) {
            for (prod, v) in [(false, &base[..n]), (true, &near[..n])] {
                let x = make(v, &[n], d);
                let got = if prod {
                    np::cumprod(&x, None)
                } else {
                    np::cumsum(&x, None)
                }
                .unwrap();
                assert_close(
                    &format!("{d} n={n} prod={prod}"),
                    &got,
                    &xla_scan(v, d, prod),
                    d,
                    EXACT,
                );
                let got = if prod {
                    lax::cumprod(&x, 0, true)
                } else {
                    lax::cumsum(&x, 0, true)
                }
                .unwrap();
                assert_close(
                    &format!("{d} n={n} prod={prod} reversed"),
                    &got,
                    &xla_scan_reversed(v, d, prod),
                    d,
                    EXACT,
                );
            }
        }
        // Along axis 0 of a (300, 3) array.
        let v = &base[..900];
        let x = make(v, &[300, 3], d);
        let got = np::cumsum(&x, Some(0)).unwrap().to_f64_vec().unwrap();
        for c in 0..3 {
            let col: Vec<f64> = (0..300).map(|i| v[i * 3 + c]).collect();
            let want = xla_scan(&col, d, false);
            for i in 0..300 {
                assert_eq!(got[i * 3 + c], want[i], "{d} axis 0 column {c} row {i}");
            }
        }
    }
}

/// The scan kernels of both variants (each thread loading its own chunk, as on CPU
/// adapters; a workgroup staging its chunks through workgroup memory, as on GPUs) follow
/// XLA's order bit for bit: single rows around a staged workgroup's 2048 elements and
/// past two levels of totals, rows shorter than a chunk and rows that straddle
/// workgroups, forward and reversed, sums and products; through one binding, through 4
/// and 8 KiB windows (input and output bound span by span: a row of 40,001 float32 is
/// 20-40 windows, more than a kernel binds), a texture read by many spans, 2-D grids with
/// workgroups past the end, and runs of rows where the totals need more bindings than a
/// kernel has.
#[test]
fn both_scan_variants_follow_xla() {
    use olympus::{Device, DeviceOptions, KernelProfile};
    let mut r = rng();
    let devices = [KernelProfile::Cpu, KernelProfile::Gpu].map(|profile| {
        Device::new(DeviceOptions {
            profile,
            ..DeviceOptions::default()
        })
        .unwrap()
    });
    let small = [(KernelProfile::Gpu, 8192), (KernelProfile::Cpu, 4096)].map(|(profile, bytes)| {
        Device::new(DeviceOptions {
            profile,
            max_binding_bytes: Some(bytes),
            max_workgroups_per_dim: Some(4),
            texture_input_bytes: Some(u64::MAX),
            ..DeviceOptions::default()
        })
        .unwrap()
    });
    let more = [
        // 40,001 elements in 20 staged workgroups on a 7x3 grid.
        DeviceOptions {
            profile: KernelProfile::Gpu,
            max_workgroups_per_dim: Some(8),
            ..DeviceOptions::default()
        },
        // One texture read by every span.
        DeviceOptions {
            profile: KernelProfile::Cpu,
            max_binding_bytes: Some(4096),
            texture_input_bytes: Some(0),
            ..DeviceOptions::default()
        },
    ]
    .map(|o| Device::new(o).unwrap());
    // Four storage buffers: totals of three 4 KiB windows are scanned in runs of rows.
    let blocks = Device::new(DeviceOptions {
        max_binding_bytes: Some(4096),
        max_storage_buffers: Some(4),
        texture_input_bytes: Some(u64::MAX),
        ..DeviceOptions::default()
    })
    .unwrap();
    let shapes: [&[usize]; 11] = [
        &[1],
        &[17],
        &[2047],
        &[2048],
        &[2049],
        &[4113],
        &[40_001],
        &[1000, 5],
        &[37, 300],
        &[300, 33],
        &[1000, 33],
    ];
    for d in [DType::Float32, DType::Float16, DType::Int32] {
        for shape in shapes {
            let n: usize = shape.iter().product();
            let len = *shape.last().unwrap();
            let base = random_values(&mut r, d, n);
            let near: Vec<f64> = base.iter().map(|x| round_to(1.0 + x / 256.0, d)).collect();
            for prod in [false, true] {
                // Integer products overflow; their wrapping is tested elsewhere.
                if prod && d == DType::Int32 {
                    continue;
                }
                let v = if prod { &near } else { &base };
                let rows: Vec<&[f64]> = v.chunks(len).collect();
                let want: Vec<f64> = rows.iter().flat_map(|r| xla_scan(r, d, prod)).collect();
                let back: Vec<f64> = rows
                    .iter()
                    .flat_map(|r| xla_scan_reversed(r, d, prod))
                    .collect();
                // (Rows past the bindings of `blocks` are split into runs of columns,
                // which associate otherwise.)
                let split = shape.len() == 1 && n > 2048;
                let all = devices.iter().chain(&small).chain(&more);
                for dev in all.chain((!split).then_some(&blocks)) {
                    olympus::with_device(dev, || {
                        let x = make(v, shape, d);
                        let axis = shape.len() - 1;
                        for (reverse, want) in [(false, &want), (true, &back)] {
                            let got = if prod {
                                lax::cumprod(&x, axis, reverse)
                            } else {
                                lax::cumsum(&x, axis, reverse)
                            }
                            .unwrap();
                            let what = format!(
                                "{d}{shape:?} prod={prod} reverse={reverse} on {:?}",
                                dev.info().profile
                            );
                            assert_close(&what, &got, want, d, EXACT);
                        }
                    });
                }
            }
        }
    }
}

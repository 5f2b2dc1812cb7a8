//! Reductions and matmul next to CPU baselines measured in the same run: the full sum of
//! 16M float32 vs `iter().sum()`, sums along each axis of 4096x4096 vs the full sum, a
//! 4096x4096 matrix-vector product vs a loop of dot products, and
//! float32 matmul (1024², 2048², 4096²) vs the `matrixmultiply` crate's sgemm, float16
//! matmul at 4096² vs float32 (and emulated float16 vs native; on GPUs the register-blocked
//! kernel vs the staged one), and the cumulative
//! sum of 40M float32 vs a running-sum loop, and argmax of 16M float32 vs a first-maximum
//! loop. Ends with
//! `NAME: olympus X, baseline Y, ratio Z` lines.

#[path = "common/mod.rs"]
mod common;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use olympus::{numpy as np, Array};

const N: usize = 16 << 20;

fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn data(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919) % 1000) as f32 * 1e-3).collect()
}

fn sgemm(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    // Row-major n x n: row stride n, column stride 1.
    unsafe {
        // SAFETY: the slices hold n*n elements each, as the strides describe.
        matrixmultiply::sgemm(
            n,
            n,
            n,
            1.0,
            a.as_ptr(),
            n as isize,
            1,
            b.as_ptr(),
            n as isize,
            1,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

fn bench(cr: &mut Criterion) {
    let v = data(N);
    let x = Array::from_slice(&v, &[N]).unwrap();
    let mut g = cr.benchmark_group("sum_16M_f32");
    g.throughput(Throughput::Bytes((N * 4) as u64));
    g.bench_function("olympus", |b| {
        b.iter(|| {
            np::sum(&x, None, false)
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.bench_function("iter_sum", |b| b.iter(|| black_box(&v).iter().sum::<f32>()));
    g.finish();
    let n = 1024;
    let (a, bm) = (data(n * n), data(n * n));
    let (ga, gb) = (
        Array::from_slice(&a, &[n, n]).unwrap(),
        Array::from_slice(&bm, &[n, n]).unwrap(),
    );
    let mut c = vec![0f32; n * n];
    let mut g = cr.benchmark_group("matmul_1024_f32");
    g.throughput(Throughput::Elements((2 * n * n * n) as u64));
    g.bench_function("olympus", |b| {
        b.iter(|| {
            np::matmul(&ga, &gb)
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.bench_function("matrixmultiply", |b| b.iter(|| sgemm(&a, &bm, &mut c, n)));
    g.finish();
}

fn summary() {
    common::print_adapter_copy();
    let line = |name: &str, unit: &str, o: f64, b: f64| {
        let share = if unit == "GB/s" {
            format!(" ({})", common::of_copy(o))
        } else {
            String::new()
        };
        println!(
            "{name}: olympus {o:.2} {unit}{share}, baseline {b:.2} {unit}, ratio {:.2}",
            o / b
        );
    };
    let v = data(N);
    let x = Array::from_slice(&v, &[N]).unwrap();
    let gbps = |bytes: usize, d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    let o = best(10, || {
        np::sum(&x, None, false)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let r = best(10, || {
        black_box(black_box(&v).iter().sum::<f32>());
    });
    let full = gbps(N * 4, o);
    line(
        "sum_16M_f32 (GB/s, baseline iter().sum())",
        "GB/s",
        full,
        gbps(N * 4, r),
    );
    // The first maximum: two reduction trees (the maximum, then its first position).
    let o = best(10, || {
        np::argmax(&x, None, false)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let r = best(10, || {
        let (mut at, mut m) = (0, f32::NEG_INFINITY);
        for (i, &e) in black_box(&v).iter().enumerate() {
            if e > m {
                (at, m) = (i, e);
            }
        }
        black_box(at);
    });
    line(
        "argmax_16M_f32 (GB/s, baseline a first-maximum loop)",
        "GB/s",
        gbps(N * 4, o),
        gbps(N * 4, r),
    );
    let sq = np::reshape(&x, &[4096, 4096]).unwrap();
    for axis in [0isize, 1] {
        let o = best(5, || {
            np::sum(&sq, Some(&[axis]), false)
                .unwrap()
                .block_until_ready()
                .unwrap();
        });
        line(
            &format!("sum_4096x4096_axis{axis} (GB/s, baseline the full sum)"),
            "GB/s",
            gbps(N * 4, o),
            full,
        );
    }
    // A scan reads and writes every element: GB/s counts both (the summary's cumsum
    // line, 40M elements: past one binding).
    let m = 40_000_000;
    let v = data(m);
    let x = Array::from_slice(&v, &[m]).unwrap();
    let o = best(3, || {
        np::cumsum(&x, None).unwrap().block_until_ready().unwrap();
    });
    let mut out = vec![0f32; m];
    let r = best(3, || {
        let mut acc = 0f32;
        for (o, &e) in out.iter_mut().zip(black_box(&v)) {
            acc += e;
            *o = acc;
        }
        black_box(&out);
    });
    line(
        "cumsum_40M_f32 (GB/s, baseline a running-sum loop)",
        "GB/s",
        gbps(2 * m * 4, o),
        gbps(2 * m * 4, r),
    );
    // A matrix-vector product reads the matrix once: GB/s of the matrix, against a loop of
    // dot products.
    let (m, k) = (4096usize, 4096usize);
    let (mat, vec) = (data(m * k), data(k));
    let (gm, gv) = (
        Array::from_slice(&mat, &[m, k]).unwrap(),
        Array::from_slice(&vec, &[k]).unwrap(),
    );
    let o = best(5, || {
        np::matmul(&gm, &gv).unwrap().block_until_ready().unwrap();
    });
    let mut y = vec![0f32; m];
    let r = best(5, || {
        for (yi, row) in y.iter_mut().zip(black_box(&mat).chunks(k)) {
            *yi = row.iter().zip(&vec).map(|(a, b)| a * b).sum();
        }
        black_box(&y);
    });
    line(
        "matvec_4096x4096_f32 (GB/s of the matrix, baseline a loop of dot products)",
        "GB/s",
        gbps(m * k * 4, o),
        gbps(m * k * 4, r),
    );
    let mut f32_4096 = 0.0;
    let mut x4096 = None;
    for n in [1024usize, 2048, 4096] {
        let (a, b) = (data(n * n), data(n * n));
        let (ga, gb) = (
            Array::from_slice(&a, &[n, n]).unwrap(),
            Array::from_slice(&b, &[n, n]).unwrap(),
        );
        let mut c = vec![0f32; n * n];
        let flops = 2.0 * (n * n * n) as f64;
        let o = best(3, || {
            np::matmul(&ga, &gb).unwrap().block_until_ready().unwrap();
        });
        let r = best(3, || sgemm(&a, &b, &mut c, n));
        f32_4096 = flops / o.as_secs_f64() / 1e9;
        x4096 = Some(ga.clone());
        line(
            &format!("matmul_{n}_f32 (GFLOP/s, baseline matrixmultiply sgemm)"),
            "GFLOP/s",
            f32_4096,
            flops / r.as_secs_f64() / 1e9,
        );
    }
    // float16 inputs read half the bytes per tile; the goal is to beat float32.
    let n = 4096;
    let x4096 = x4096.expect("the 4096² operand");
    let h = Array::from_slice(&data(n * n), &[n, n])
        .unwrap()
        .astype(olympus::DType::Float16)
        .unwrap();
    let o = best(3, || {
        np::matmul(&h, &h).unwrap().block_until_ready().unwrap();
    });
    let f16_native = 2.0 * (n * n * n) as f64 / o.as_secs_f64() / 1e9;
    let native = olympus::Device::default_device().unwrap().info().f16_native;
    line(
        if native {
            "matmul_4096_f16 (GFLOP/s, native float16, baseline float32 at 4096)"
        } else {
            "matmul_4096_f16 (GFLOP/s, emulated float16, baseline float32 at 4096)"
        },
        "GFLOP/s",
        f16_native,
        f32_4096,
    );
    // The same product with float16 emulated (halves packed in words, converted with
    // integer code): where the adapter's native 16-bit loads are the slow part, this wins.
    let emulated = olympus::Device::new(olympus::DeviceOptions {
        f16: olympus::F16Mode::Emulated,
        ..olympus::DeviceOptions::from_env().unwrap()
    })
    .unwrap();
    let he = h.to_device(&emulated).unwrap();
    let o = best(3, || {
        np::matmul(&he, &he).unwrap().block_until_ready().unwrap();
    });
    line(
        "matmul_4096_f16_emulated (GFLOP/s, baseline the default float16)",
        "GFLOP/s",
        2.0 * (n * n * n) as f64 / o.as_secs_f64() / 1e9,
        f16_native,
    );
    // The register-blocked kernel against the staged one GPUs run by default (CPU adapters
    // run neither).
    if dev_profile_is_gpu() {
        let register = olympus::Device::new(olympus::DeviceOptions {
            matmul_register_tiles: Some(true),
            ..olympus::DeviceOptions::from_env().unwrap()
        })
        .unwrap();
        for (name, x, base) in [("f32", &x4096, f32_4096), ("f16", &h, f16_native)] {
            let xr = x.to_device(&register).unwrap();
            let o = best(3, || {
                np::matmul(&xr, &xr).unwrap().block_until_ready().unwrap();
            });
            line(
                &format!("matmul_4096_{name}_register (GFLOP/s, baseline the staged kernel)"),
                "GFLOP/s",
                2.0 * (n * n * n) as f64 / o.as_secs_f64() / 1e9,
                base,
            );
        }
    }
}

/// Whether the default device is a GPU running the GPU kernel choices (a software adapter
/// told to run them would take minutes over each 4096² product).
fn dev_profile_is_gpu() -> bool {
    let dev = olympus::Device::default_device().unwrap();
    dev.info().profile == olympus::KernelProfile::Gpu
        && dev.info().device_type != wgpu::DeviceType::Cpu
}

/// Whether the adapter offers cooperative matrices (tensor cores on NVIDIA, simdgroup
/// matrices on Apple) and in which shapes and types: the matmul kernel's choice on a GPU
/// depends on it. Olympus does not ask for the feature yet, so this asks the adapter itself.
fn print_cooperative_matrix(info: &olympus::DeviceInfo) {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::all();
    let instance = wgpu::Instance::new(desc);
    for adapter in pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all())) {
        let a = adapter.get_info();
        // wgpu's and Olympus's backend enums name their variants alike.
        if a.name != info.name || format!("{:?}", a.backend) != format!("{:?}", info.backend) {
            continue;
        }
        let offered = adapter
            .features()
            .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
        let shapes: Vec<String> = adapter
            .cooperative_matrix_properties()
            .iter()
            .map(|p| {
                format!(
                    "{}x{}x{} {:?}->{:?}",
                    p.m_size, p.n_size, p.k_size, p.ab_type, p.cr_type
                )
            })
            .collect();
        println!(
            "adapter: cooperative matrix {}: [{}]",
            if offered { "offered" } else { "not offered" },
            shapes.join(", ")
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(3));
    targets = bench
}

fn main() {
    let dev = olympus::Device::default_device().unwrap();
    let info = dev.info();
    println!("adapter: {info}");
    print_cooperative_matrix(info);
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}

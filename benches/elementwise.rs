//! Elementwise throughput on 16M float32 next to a plain Rust loop in the same run, and
//! the cost of encoding one eager op. Ends with `NAME: olympus X GB/s, rust loop Y GB/s,
//! ratio Z` lines.

#[path = "common/mod.rs"]
mod common;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use olympus::{numpy as np, Array};

const N: usize = 16 << 20;

fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..N).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let b: Vec<f32> = (0..N).map(|i| (i % 777) as f32 * 1e-3).collect();
    let c: Vec<f32> = (0..N).map(|i| (i % 555) as f32 * 1e-3).collect();
    (a, b, c)
}

fn rust_add(a: &[f32], b: &[f32], out: &mut [f32]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x + y;
    }
}

/// The five-op chain `exp(a*b + c) / (1 + abs(a))`.
fn rust_add_u8(a: &[u8], b: &[u8], out: &mut [u8]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x.wrapping_add(*y);
    }
}

fn rust_chain(a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    for (((o, x), y), z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = (x * y + z).exp() / (1.0 + x.abs());
    }
}

fn olympus_chain(a: &Array, b: &Array, c: &Array) -> Array {
    let num = np::exp(((a * b) + c).unwrap()).unwrap();
    let den = (1.0 + np::abs(a).unwrap()).unwrap();
    (num / den).unwrap()
}

fn bench(cr: &mut Criterion) {
    let (a, b, c) = inputs();
    let (ga, gb, gc) = (
        Array::from_slice(&a, &[N]).unwrap(),
        Array::from_slice(&b, &[N]).unwrap(),
        Array::from_slice(&c, &[N]).unwrap(),
    );
    let mut out = vec![0f32; N];
    let mut g = cr.benchmark_group("elementwise_16M_f32");
    g.throughput(Throughput::Bytes((3 * N * 4) as u64));
    g.bench_function("add/olympus", |bn| {
        bn.iter(|| {
            np::add(&ga, &gb)
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.bench_function("add/rust_loop", |bn| {
        bn.iter(|| rust_add(black_box(&a), black_box(&b), &mut out))
    });
    g.bench_function("chain5/olympus", |bn| {
        bn.iter(|| {
            olympus_chain(&ga, &gb, &gc)
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.finish();
    let tiny = Array::from_slice(&a[..1000], &[1000]).unwrap();
    cr.bench_function("eager_op_encode_1000_elems", |bn| {
        bn.iter(|| black_box(np::add(&tiny, &tiny).unwrap()));
        tiny.block_until_ready().unwrap();
    });
}

/// Best of `reps` runs of `f`.
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

fn summary() {
    common::print_adapter_copy();
    let (a, b, c) = inputs();
    let (ga, gb, gc) = (
        Array::from_slice(&a, &[N]).unwrap(),
        Array::from_slice(&b, &[N]).unwrap(),
        Array::from_slice(&c, &[N]).unwrap(),
    );
    let mut out = vec![0f32; N];
    let gbps = |bytes: usize, d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
    let line = |name: &str, bytes: usize, o: Duration, r: Duration| {
        let (x, y) = (gbps(bytes, o), gbps(bytes, r));
        println!(
            "{name}: olympus {x:.2} GB/s ({}), rust loop {y:.2} GB/s, ratio {:.2}",
            common::of_copy(x),
            x / y
        );
    };
    let o = best(10, || {
        np::add(&ga, &gb).unwrap().block_until_ready().unwrap();
    });
    let r = best(10, || rust_add(black_box(&a), black_box(&b), &mut out));
    line("add_16M_f32", 3 * N * 4, o, r);
    // A row broadcast over 4096 rows (a bias add), against the same add of two full
    // arrays: the row is read as one repeated run.
    let rows = N / 4096;
    let row = Array::from_slice(&b[..4096], &[4096]).unwrap();
    let matrix = np::reshape(&ga, &[rows as isize, 4096]).unwrap();
    let ob = best(10, || {
        np::add(&matrix, &row).unwrap().block_until_ready().unwrap();
    });
    let (x, y) = (gbps(2 * N * 4, ob), gbps(3 * N * 4, o));
    println!(
        "add_row_broadcast_16M_f32: olympus {x:.2} GB/s ({}), a + b {y:.2} GB/s, ratio {:.2}",
        common::of_copy(x),
        x / y
    );
    // Blocks of 4096 each repeated over 16 rows (`[256, 1, 4096]` broadcast to
    // `[256, 16, 4096]`, as `vmap` broadcasts per-example rows), read as tiles.
    let blocks = Array::from_slice(&b[..N / 16], &[N / 16 / 4096, 1, 4096]).unwrap();
    let cube = np::reshape(&ga, &[(N / 16 / 4096) as isize, 16, 4096]).unwrap();
    let ot = best(10, || {
        np::add(&cube, &blocks)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let x = gbps(2 * N * 4, ot);
    println!(
        "add_tiled_broadcast_16M_f32: olympus {x:.2} GB/s ({}), a + b {y:.2} GB/s, ratio {:.2}",
        common::of_copy(x),
        x / y
    );
    // A transposed operand (`a + b.T`, 4096x4096), read through its strides: the offsets
    // step along each thread's row, but every element of a column is another line.
    let side = 4096isize;
    let (sa, sb) = (
        np::reshape(&ga, &[side, side]).unwrap(),
        np::reshape(&gb, &[side, side]).unwrap(),
    );
    let sbt = np::transpose(&sb, None).unwrap();
    let otr = best(5, || {
        np::add(&sa, &sbt).unwrap().block_until_ready().unwrap();
    });
    let x = gbps(3 * N * 4, otr);
    println!(
        "add_transposed_16M_f32: olympus {x:.2} GB/s ({}), a + b {y:.2} GB/s, ratio {:.2}",
        common::of_copy(x),
        x / y
    );
    // `diff`: two views one element apart, read as contiguous runs from inside a vector,
    // against a Rust loop over the same windows.
    let od = best(10, || {
        np::diff(&ga, 1, -1, None, None)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let rd = best(10, || {
        for (o, w) in out.iter_mut().zip(black_box(&a).windows(2)) {
            *o = w[1] - w[0];
        }
    });
    line("diff_16M_f32", 3 * N * 4, od, rd);
    // uint8 operands are read four to a word: the same element rate in a quarter of the
    // bytes.
    let ua: Vec<u8> = (0..N).map(|i| (i * 7) as u8).collect();
    let ub: Vec<u8> = (0..N).map(|i| (i * 13 + 5) as u8).collect();
    let (gua, gub) = (
        Array::from_slice(&ua, &[N]).unwrap(),
        Array::from_slice(&ub, &[N]).unwrap(),
    );
    let mut uout = vec![0u8; N];
    let o = best(10, || {
        np::add(&gua, &gub).unwrap().block_until_ready().unwrap();
    });
    let r = best(10, || {
        rust_add_u8(black_box(&ua), black_box(&ub), &mut uout)
    });
    line("add_16M_u8", 3 * N, o, r);
    let o = best(5, || {
        olympus_chain(&ga, &gb, &gc).block_until_ready().unwrap();
    });
    let r = best(5, || {
        rust_chain(black_box(&a), black_box(&b), black_box(&c), &mut out)
    });
    line(
        "chain5_16M_f32_eager exp(a*b+c)/(1+abs(a))",
        4 * N * 4,
        o,
        r,
    );
    // Per-op encode cost: 1000 eager adds on 1000 elements. On a device that submits only
    // at the sync point, the loop measures recording alone; then the execution.
    let dev = olympus::Device::new(olympus::DeviceOptions {
        batch_limit: 4096,
        ..Default::default()
    })
    .unwrap();
    let tiny = Array::from_slice_on(&dev, &a[..1000], &[1000]).unwrap();
    for round in 0..2 {
        tiny.block_until_ready().unwrap();
        let t = Instant::now();
        let mut keep = Vec::with_capacity(1000);
        for _ in 0..1000 {
            keep.push(np::add(&tiny, &tiny).unwrap());
        }
        let encode = t.elapsed();
        keep[999].block_until_ready().unwrap();
        let total = t.elapsed();
        if round == 1 {
            println!(
                "eager_op_1000_elems: encode {:.1} us/op, encode + execute {:.1} us/op",
                encode.as_secs_f64() * 1e6 / 1000.0,
                total.as_secs_f64() * 1e6 / 1000.0
            );
        }
    }
    let copy = best(10, || out.copy_from_slice(black_box(&a)));
    println!(
        "memcpy_64MB: {:.2} GB/s (machine copy bandwidth, read + write)",
        gbps(2 * N * 4, copy)
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(3));
    targets = bench
}

fn main() {
    println!(
        "adapter: {}",
        olympus::Device::default_device().unwrap().info()
    );
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}

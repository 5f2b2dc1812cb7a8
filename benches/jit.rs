//! jit on 16M float32: the five-op chain `exp(a*b + c) / (1 + abs(a))` jitted (one fused
//! kernel) against eager (five kernels and four intermediate buffers) and a plain Rust loop
//! in the same run; the chain with a trailing sum (fused into the sum's first pass); and the
//! overhead of a cached call of a tiny jitted function. Ends with
//! `NAME: olympus X GB/s, rust loop Y GB/s, ratio Z` lines (GB/s count each input read once
//! and the output written once).

#[path = "common/mod.rs"]
mod common;
use common::median;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use olympus::{jit, numpy as np, Array, Result};

const N: usize = 16 << 20;

fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..N).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let b: Vec<f32> = (0..N).map(|i| (i % 777) as f32 * 1e-3).collect();
    let c: Vec<f32> = (0..N).map(|i| (i % 555) as f32 * 1e-3).collect();
    (a, b, c)
}

fn rust_chain(a: &[f32], b: &[f32], c: &[f32], out: &mut [f32]) {
    for (((o, x), y), z) in out.iter_mut().zip(a).zip(b).zip(c) {
        *o = (x * y + z).exp() / (1.0 + x.abs());
    }
}

fn chain((a, b, c): (Array, Array, Array)) -> Result<Array> {
    np::divide(
        np::exp(np::add(np::multiply(&a, &b)?, &c)?)?,
        np::add(1.0, np::abs(&a)?)?,
    )
}

fn bench(cr: &mut Criterion) {
    let (a, b, c) = inputs();
    let args = (
        Array::from_slice(&a, &[N]).unwrap(),
        Array::from_slice(&b, &[N]).unwrap(),
        Array::from_slice(&c, &[N]).unwrap(),
    );
    let jitted = jit(chain);
    let mut out = vec![0f32; N];
    let mut g = cr.benchmark_group("chain5_16M_f32");
    g.throughput(Throughput::Bytes((4 * N * 4) as u64));
    g.bench_function("jit", |bn| {
        bn.iter(|| {
            jitted
                .call(args.clone())
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.bench_function("eager", |bn| {
        bn.iter(|| {
            chain(args.clone())
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.bench_function("rust_loop", |bn| {
        bn.iter(|| rust_chain(black_box(&a), black_box(&b), black_box(&c), &mut out))
    });
    g.finish();
}

fn summary() {
    common::print_adapter_copy();
    let (a, b, c) = inputs();
    let args = (
        Array::from_slice(&a, &[N]).unwrap(),
        Array::from_slice(&b, &[N]).unwrap(),
        Array::from_slice(&c, &[N]).unwrap(),
    );
    let jitted = jit(chain);
    let mut out = vec![0f32; N];
    let gbps = |d: Duration| (4 * N * 4) as f64 / d.as_secs_f64() / 1e9;
    let j = median(7, || {
        jitted
            .call(args.clone())
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let e = median(7, || {
        chain(args.clone()).unwrap().block_until_ready().unwrap();
    });
    let r = median(7, || {
        rust_chain(black_box(&a), black_box(&b), black_box(&c), &mut out);
        black_box(&mut out);
    });
    println!(
        "chain5_16M_f32_jit: olympus {:.2} GB/s ({}), rust loop {:.2} GB/s, ratio {:.2}",
        gbps(j),
        common::of_copy(gbps(j)),
        gbps(r),
        gbps(j) / gbps(r)
    );
    println!(
        "chain5_16M_f32_eager: olympus {:.2} GB/s ({}), rust loop {:.2} GB/s, ratio {:.2}",
        gbps(e),
        common::of_copy(gbps(e)),
        gbps(r),
        gbps(e) / gbps(r)
    );
    println!(
        "chain5_16M_f32_jit_vs_eager: jit {:.2} GB/s, eager {:.2} GB/s, ratio {:.2}",
        gbps(j),
        gbps(e),
        gbps(j) / gbps(e)
    );
    // The chain with a trailing sum: jitted, the sum's first pass computes the chain where
    // it reads it (no 64 MB intermediate); eager stores five intermediates and the sum
    // reads the last. GB/s count the three inputs read once.
    let summed = jit(|args| np::sum(chain(args)?, None, false));
    let gbps3 = |d: Duration| (3 * N * 4) as f64 / d.as_secs_f64() / 1e9;
    let j = median(7, || {
        summed
            .call(args.clone())
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let e = median(7, || {
        np::sum(chain(args.clone()).unwrap(), None, false)
            .unwrap()
            .block_until_ready()
            .unwrap();
    });
    let r = median(7, || {
        let s: f32 = a
            .iter()
            .zip(&b)
            .zip(&c)
            .map(|((x, y), z)| (x * y + z).exp() / (1.0 + x.abs()))
            .sum();
        black_box(s);
    });
    println!(
        "chain5_sum_16M_f32_jit: olympus {:.2} GB/s ({}), rust loop {:.2} GB/s, ratio {:.2}",
        gbps3(j),
        common::of_copy(gbps3(j)),
        gbps3(r),
        gbps3(j) / gbps3(r)
    );
    println!(
        "chain5_sum_16M_f32_jit_vs_eager: jit {:.2} GB/s, eager {:.2} GB/s, ratio {:.2}",
        gbps3(j),
        gbps3(e),
        gbps3(j) / gbps3(e)
    );
    // Overhead of a cached call: a tiny function on 4 elements, recorded without waiting.
    let tiny = jit(|x: Array| np::add(np::multiply(&x, 2.0)?, 1.0));
    let x = np::ones(&[4], olympus::DType::Float32).unwrap();
    tiny.call(x.clone()).unwrap().block_until_ready().unwrap();
    // The median of 7 batches of 2000 calls (the machine may be shared and noisy); each
    // batch waits for its last result outside the timed part.
    let calls = 2000;
    let mut per: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            let mut keep = Vec::with_capacity(calls);
            for _ in 0..calls {
                keep.push(tiny.call(x.clone()).unwrap());
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / calls as f64;
            keep[calls - 1].block_until_ready().unwrap();
            us
        })
        .collect();
    per.sort_by(f64::total_cmp);
    println!(
        "jit_cached_call_tiny: {:.1} us per call (dispatch recorded, not waited; median of 7 batches of {calls}, min {:.1})",
        per[3], per[0]
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

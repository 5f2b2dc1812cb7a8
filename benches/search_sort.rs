//! Sorts, sorted search, unique values and histograms next to the obvious Rust
//! implementations measured in the same run: `sort` and `argsort` of 16M float32 vs the
//! standard library's stable sort, `searchsorted` of 1M queries into 16M sorted float32 vs
//! `partition_point` per query, `unique` of 16M int32 with many repeats vs sort + dedup,
//! and a 100-bin `histogram` of 16M float32 vs a counting loop. Ends with
//! `NAME: olympus X, baseline Y, ratio Z` lines (millions of elements per second).

#[path = "common/mod.rs"]
mod common;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use olympus::numpy::{self as np, Side};
use olympus::Array;

const N: usize = 16 << 20;
const Q: usize = 1 << 20;

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

/// Deterministic pseudo-random values in `[0, 1)`.
fn uniform(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn bench(cr: &mut Criterion) {
    let mut sorted = uniform(N, 1);
    sorted.sort_by(f32::total_cmp);
    let queries = uniform(Q, 2);
    let (a, q) = (
        Array::from_slice(&sorted, &[N]).unwrap(),
        Array::from_slice(&queries, &[Q]).unwrap(),
    );
    let mut g = cr.benchmark_group("searchsorted_1M_in_16M");
    g.bench_function("olympus", |b| {
        b.iter(|| {
            np::searchsorted(&a, &q, Side::Left, None)
                .unwrap()
                .block_until_ready()
                .map(|_| ())
                .unwrap()
        })
    });
    g.bench_function("partition_point", |b| {
        b.iter(|| {
            black_box(&queries)
                .iter()
                .map(|&v| sorted.partition_point(|&x| x < v) as i32)
                .collect::<Vec<i32>>()
        })
    });
    g.finish();
}

fn summary() {
    common::print_adapter_copy();
    let line = |name: &str, o: Duration, b: Duration, n: usize| {
        let rate = |d: Duration| n as f64 / d.as_secs_f64() / 1e6;
        println!(
            "{name}: olympus {:.1} M/s, baseline {:.1} M/s, ratio {:.2}",
            rate(o),
            rate(b),
            b.as_secs_f64() / o.as_secs_f64()
        );
    };
    let mut sorted = uniform(N, 1);
    sorted.sort_by(f32::total_cmp);
    let queries = uniform(Q, 2);
    let (a, q) = (
        Array::from_slice(&sorted, &[N]).unwrap(),
        Array::from_slice(&queries, &[Q]).unwrap(),
    );
    let o = best(3, || {
        np::searchsorted(&a, &q, Side::Left, None)
            .unwrap()
            .block_until_ready()
            .map(|_| ())
            .unwrap();
    });
    let b = best(3, || {
        black_box(
            queries
                .iter()
                .map(|&v| sorted.partition_point(|&x| x < v) as i32)
                .collect::<Vec<i32>>(),
        );
    });
    line(
        "searchsorted_1M_in_16M_f32 (queries/s, baseline partition_point per query)",
        o,
        b,
        Q,
    );
    let vals = uniform(N, 5);
    let xs = Array::from_slice(&vals, &[N]).unwrap();
    let o = best(2, || {
        np::sort(&xs, None)
            .unwrap()
            .block_until_ready()
            .map(|_| ())
            .unwrap();
    });
    let b = best(2, || {
        let mut v = black_box(&vals).clone();
        v.sort_by(f32::total_cmp);
        black_box(v);
    });
    line(
        "sort_16M_f32 (elements/s, baseline slice::sort_by)",
        o,
        b,
        N,
    );
    let o = best(2, || {
        np::argsort(&xs, None)
            .unwrap()
            .block_until_ready()
            .map(|_| ())
            .unwrap();
    });
    let b = best(2, || {
        let v = black_box(&vals);
        let mut p: Vec<i32> = (0..N as i32).collect();
        p.sort_by(|&a, &b| v[a as usize].total_cmp(&v[b as usize]));
        black_box(p);
    });
    line(
        "argsort_16M_f32 (elements/s, baseline slice::sort_by on positions)",
        o,
        b,
        N,
    );
    // 16M int32 in 0..65536: many repeats.
    let ints: Vec<i32> = uniform(N, 3)
        .iter()
        .map(|&v| (v * 65536.0) as i32)
        .collect();
    let xi = Array::from_slice(&ints, &[N]).unwrap();
    let o = best(2, || {
        np::unique(&xi, None, None)
            .unwrap()
            .block_until_ready()
            .map(|_| ())
            .unwrap();
    });
    let b = best(2, || {
        let mut v = black_box(&ints).clone();
        v.sort_unstable();
        v.dedup();
        black_box(v);
    });
    line(
        "unique_16M_i32 (elements/s, baseline sort_unstable + dedup)",
        o,
        b,
        N,
    );
    let vals = uniform(N, 4);
    let xf = Array::from_slice(&vals, &[N]).unwrap();
    let o = best(3, || {
        np::histogram(&xf, 100, Some((0.0, 1.0)), None, false)
            .unwrap()
            .0
            .block_until_ready()
            .map(|_| ())
            .unwrap();
    });
    let b = best(3, || {
        let mut h = [0u32; 100];
        for &v in black_box(&vals) {
            if (0.0..=1.0).contains(&v) {
                h[((v * 100.0) as usize).min(99)] += 1;
            }
        }
        black_box(h);
    });
    line(
        "histogram_100_bins_16M_f32 (elements/s, baseline a counting loop)",
        o,
        b,
        N,
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

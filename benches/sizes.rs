//! Memory-bound ops at 64M float32 elements and past 1 GiB: each op's throughput at 256M
//! and 512M elements next to its own 64M figure in the same run, so a cliff with size (a
//! pool that gives large buffers back, a slow allocation path, a binding split) shows as a
//! ratio below 1. Ends with `NAME: 64M X GB/s, 256M Y GB/s (ratio r), 512M ...` lines.
//!
//! `OLYMPUS_BENCH_SIZES=64,256` (millions of elements, the first is the baseline) picks
//! other sizes; a size whose arrays do not fit the device is reported as skipped.

#[path = "common/mod.rs"]
mod common;
use common::median;
use std::time::Duration;

use criterion::{criterion_group, Criterion, Throughput};
use olympus::{jit, numpy as np, Array, DType, Result};

/// Millions of elements: the baseline first.
fn sizes() -> Vec<usize> {
    std::env::var("OLYMPUS_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| vec![64, 256, 512])
}

fn chain(x: Array) -> Result<Array> {
    np::multiply(np::tanh(np::add(np::multiply(&x, 2.0)?, 1.0)?)?, &x)
}

/// One op: its name, the bytes it moves per element (read + written), and a run that
/// waits for the result.
type Op = (
    &'static str,
    usize,
    Box<dyn Fn(&Array, &Array) -> Result<()>>,
);

fn ops() -> Vec<Op> {
    let jitted = jit(chain);
    vec![
        (
            "copy",
            8,
            Box::new(|a, _| np::copy(a)?.block_until_ready().map(|_| ())),
        ),
        (
            "add",
            12,
            Box::new(|a, b| np::add(a, b)?.block_until_ready().map(|_| ())),
        ),
        (
            "jit tanh(x*2+1)*x",
            8,
            Box::new(move |a, _| jitted.call(a.clone())?.block_until_ready().map(|_| ())),
        ),
        (
            "zeros",
            4,
            Box::new(|a, _| {
                np::zeros(a.shape(), DType::Float32)?
                    .block_until_ready()
                    .map(|_| ())
            }),
        ),
        (
            "sum",
            4,
            Box::new(|a, _| np::sum(a, None, false)?.block_until_ready().map(|_| ())),
        ),
        (
            "argmax",
            4,
            Box::new(|a, _| np::argmax(a, None, false)?.block_until_ready().map(|_| ())),
        ),
        (
            "cumsum",
            8,
            Box::new(|a, _| np::cumsum(a, None)?.block_until_ready().map(|_| ())),
        ),
    ]
}

fn inputs(n: usize) -> Result<(Array, Array)> {
    let a = np::arange(n)?.astype(DType::Float32)?;
    let b = np::multiply(&a, 0.5)?;
    a.block_until_ready()?;
    b.block_until_ready()?;
    Ok((a, b))
}

fn bench(c: &mut Criterion) {
    let n = 64 << 20;
    let (a, b) = inputs(n).unwrap();
    let mut g = c.benchmark_group("sizes_64M_f32");
    for (name, bytes, op) in ops() {
        g.throughput(Throughput::Bytes((bytes * n) as u64));
        g.bench_function(name, |bn| bn.iter(|| op(&a, &b).unwrap()));
    }
    g.finish();
}

fn summary() {
    common::print_adapter_copy();
    let sizes = sizes();
    let ops = ops();
    // figures[op][size]: GB/s, or None where the arrays did not fit.
    let mut figures = vec![Vec::new(); ops.len()];
    for &m in &sizes {
        let n = m << 20;
        let fit = inputs(n);
        for (i, (_, bytes, op)) in ops.iter().enumerate() {
            let gbps = fit.as_ref().ok().and_then(|(a, b)| {
                op(a, b).ok()?;
                let d: Duration = median(5, || op(a, b).unwrap());
                Some((bytes * n) as f64 / d.as_secs_f64() / 1e9)
            });
            figures[i].push(gbps);
        }
        if let Err(e) = fit {
            eprintln!("{m}M elements skipped: {e}");
        }
    }
    for ((name, _, _), row) in ops.iter().zip(&figures) {
        let base = row[0];
        let cells: Vec<String> = sizes
            .iter()
            .zip(row)
            .enumerate()
            .map(|(k, (m, g))| match (g, base) {
                (Some(g), Some(b)) if k > 0 => {
                    format!("{m}M {g:.1} GB/s (ratio {:.2})", g / b)
                }
                (Some(g), _) => format!("{m}M {g:.1} GB/s ({})", common::of_copy(*g)),
                (None, _) => format!("{m}M skipped"),
            })
            .collect();
        println!("size_{name}: {}", cells.join(", "));
    }
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

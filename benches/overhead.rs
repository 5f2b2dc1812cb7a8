//! What one small call costs, on 1000 float32 elements: an eager `a + b` and a jitted
//! `x * 2 + y` (one fused kernel), each queued (a run of calls, then one wait, per call)
//! and followed by a readback (`to_vec` after every call), next to the floor the adapter
//! sets in the same run: an empty submit, and an empty submit plus a 4-byte map round
//! trip (what any readback waits for).
//!
//! `benches/overhead.py` is the same four in JAX: where `python3` can import JAX, the
//! summary runs it after its own measurements and prints `NAME: olympus X us, jax Y us,
//! ratio Y/X per call` (above 1, Olympus is faster); otherwise Olympus's figures alone.
//! Each figure is the median of seven runs.

#[path = "common/mod.rs"]
mod common;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use olympus::{jit, numpy as np, Array, Device};

const N: usize = 1000;

/// Calls per timed run: queued runs are long enough that the first call's latency does
/// not count, readbacks fewer as each waits.
const QUEUED: usize = 2000;
const READ: usize = 200;

/// The median over seven runs of `calls` calls of `f`, per call, after a warm-up run.
fn per_call(calls: usize, mut run: impl FnMut(usize)) -> f64 {
    run(calls.min(20));
    let mut t: Vec<f64> = (0..7)
        .map(|_| {
            let s = Instant::now();
            run(calls);
            s.elapsed().as_secs_f64() * 1e6 / calls as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[3]
}

fn inputs() -> (Array, Array) {
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 1e-3).collect();
    let b: Vec<f32> = (0..N).map(|i| 1.0 - i as f32 * 1e-3).collect();
    (
        Array::from_slice(&a, &[N]).unwrap(),
        Array::from_slice(&b, &[N]).unwrap(),
    )
}

/// The adapter's floor: `(empty submit, empty submit + 4-byte map round trip)` in µs.
fn floor(dev: &Device) -> (f64, f64) {
    let (device, queue) = (dev.wgpu_device(), dev.wgpu_queue());
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("overhead floor"),
        size: 4,
        usage: wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let submit = per_call(QUEUED, |calls| {
        for _ in 0..calls {
            queue.submit([]);
        }
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    });
    let round_trip = per_call(READ, |calls| {
        for _ in 0..calls {
            queue.submit([]);
            buffer
                .slice(..)
                .map_async(wgpu::MapMode::Read, |r| r.unwrap());
            device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
            buffer.unmap();
        }
    });
    (submit, round_trip)
}

/// Olympus's four figures, in µs per call, by name.
fn ours() -> Vec<(&'static str, f64)> {
    let (a, b) = inputs();
    let f = jit(|(x, y): (Array, Array)| np::add(np::multiply(&x, 2.0)?, &y));
    let eager_queued = per_call(QUEUED, |calls| {
        let mut last = None;
        for _ in 0..calls {
            last = Some(np::add(&a, &b).unwrap());
        }
        last.unwrap().block_until_ready().unwrap();
    });
    let eager_read = per_call(READ, |calls| {
        for _ in 0..calls {
            np::add(&a, &b).unwrap().to_vec::<f32>().unwrap();
        }
    });
    let jit_queued = per_call(QUEUED, |calls| {
        let mut last = None;
        for _ in 0..calls {
            last = Some(f.call((a.clone(), b.clone())).unwrap());
        }
        last.unwrap().block_until_ready().unwrap();
    });
    let jit_read = per_call(READ, |calls| {
        for _ in 0..calls {
            f.call((a.clone(), b.clone()))
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
        }
    });
    vec![
        ("eager_add_queued", eager_queued),
        ("eager_add_to_vec", eager_read),
        ("jit_call_queued", jit_queued),
        ("jit_call_to_vec", jit_read),
    ]
}

fn bench(cr: &mut Criterion) {
    let (a, b) = inputs();
    let mut g = cr.benchmark_group("overhead");
    g.bench_function("eager_add_to_vec", |bench| {
        bench.iter(|| np::add(&a, &b).unwrap().to_vec::<f32>().unwrap())
    });
    g.finish();
}

/// `overhead.py`'s figures (µs per call by name), where `python3` can import JAX.
fn jax_figures() -> BTreeMap<String, f64> {
    common::jax_lines("overhead.py")
        .into_iter()
        .filter_map(|(name, rest)| Some((name, rest.strip_suffix(" us per call")?.parse().ok()?)))
        .collect()
}

fn summary() {
    let dev = Device::default_device().unwrap();
    let (submit, round_trip) = floor(&dev);
    let figures = ours();
    let jax = jax_figures();
    println!(
        "overhead_floor: empty submit {submit:.1} us, empty submit + 4-byte map round trip {round_trip:.1} us"
    );
    if jax.is_empty() {
        println!("(JAX not found: `pip install \"jax[cpu]==0.10.2\"` to compare in the same run)");
    }
    for (name, us) in figures {
        let base = if name.ends_with("queued") {
            submit
        } else {
            round_trip
        };
        let jax_part = jax
            .get(name)
            .map(|j| format!(", jax {j:.1} us, ratio {:.2}", j / us))
            .unwrap_or_default();
        println!(
            "{name}: olympus {us:.1} us{jax_part} per call; {:.1}x the floor",
            us / base
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(2));
    targets = bench
}

fn main() {
    println!(
        "adapter: {}",
        olympus::Device::default_device().unwrap().info()
    );
    benches();
    summary();
}

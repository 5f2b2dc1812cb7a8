//! One gradient-descent step of the two-layer network of `examples/regression.rs`
//! (loss, `value_and_grad` with respect to the parameters, update), jitted against eager in
//! the same run, for the example's size and a larger one. Ends with
//! `NAME: jit X steps/s (Y GFLOP/s), eager Z steps/s, ratio R` lines.

#[path = "common/mod.rs"]
mod common;
use common::median;
use std::time::Duration;

use criterion::{criterion_group, Criterion};
use olympus::{jit, numpy as np, random, tree, value_and_grad_argnums, Arg, Array, DType, Result};

#[derive(Clone)]
struct Mlp {
    w1: Array,
    b1: Array,
    w2: Array,
    b2: Array,
}
olympus::register_pytree!(Mlp { w1, b1, w2, b2 });

fn loss((p, x, y): (Mlp, Array, Array)) -> Result<Array> {
    let h = np::tanh(np::add(np::matmul(&x, &p.w1)?, &p.b1)?)?;
    let out = np::add(np::matmul(&h, &p.w2)?, &p.b2)?;
    np::mean(np::square(np::subtract(&out, &y)?)?, None, false)
}

fn train_step((p, x, y): (Mlp, Array, Array)) -> Result<(Array, Mlp)> {
    let (value, g) = value_and_grad_argnums(loss, Arg::<0>)((p.clone(), x, y))?;
    let updated = tree::tree_map2(|w, gw| np::subtract(w, np::multiply(gw, 0.1)?), &p, &g)?;
    Ok((value, updated))
}

fn setup(n: usize, d: usize, h: usize) -> Result<(Mlp, Array, Array)> {
    let ks = random::split(&random::key(0)?, 4)?;
    let k = |i: isize| ks.slice(olympus::s![i]);
    let p = Mlp {
        w1: np::multiply(random::normal(&k(0)?, &[d, h], DType::Float32)?, 0.3)?,
        b1: np::zeros(&[h], DType::Float32)?,
        w2: np::multiply(random::normal(&k(1)?, &[h, 1], DType::Float32)?, 0.3)?,
        b2: np::zeros(&[1], DType::Float32)?,
    };
    let x = random::normal(&k(2)?, &[n, d], DType::Float32)?;
    let y = random::normal(&k(3)?, &[n, 1], DType::Float32)?;
    Ok((p, x, y))
}

/// Multiply-adds ×2 of the matmuls in one step: forward x·w1 and h·w2, backward two
/// products for each.
fn flops(n: usize, d: usize, h: usize) -> f64 {
    (3 * 2 * (n * d * h + n * h)) as f64
}

const SIZES: [(&str, usize, usize, usize); 2] = [
    ("train_step_512x2x32", 512, 2, 32),
    ("train_step_4096x64x256", 4096, 64, 256),
];

fn bench(cr: &mut Criterion) {
    for (name, n, d, h) in SIZES {
        let args = setup(n, d, h).unwrap();
        let jitted = jit(train_step);
        let mut g = cr.benchmark_group(name);
        g.bench_function("jit", |b| {
            b.iter(|| {
                jitted
                    .call(args.clone())
                    .unwrap()
                    .0
                    .block_until_ready()
                    .map(|_| ())
                    .unwrap()
            })
        });
        g.bench_function("eager", |b| {
            b.iter(|| {
                train_step(args.clone())
                    .unwrap()
                    .0
                    .block_until_ready()
                    .map(|_| ())
                    .unwrap()
            })
        });
        g.finish();
    }
}

fn summary() {
    for (name, n, d, h) in SIZES {
        let args = setup(n, d, h).unwrap();
        let jitted = jit(train_step);
        let j = median(9, || {
            jitted
                .call(args.clone())
                .unwrap()
                .0
                .block_until_ready()
                .unwrap();
        });
        let e = median(9, || {
            train_step(args.clone())
                .unwrap()
                .0
                .block_until_ready()
                .unwrap();
        });
        let rate = |t: Duration| 1.0 / t.as_secs_f64();
        println!(
            "{name}: jit {:.1} steps/s ({:.2} GFLOP/s), eager {:.1} steps/s ({:.2} GFLOP/s), ratio {:.2}",
            rate(j),
            flops(n, d, h) * rate(j) / 1e9,
            rate(e),
            flops(n, d, h) * rate(e) / 1e9,
            e.as_secs_f64() / j.as_secs_f64()
        );
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
    summary();
}

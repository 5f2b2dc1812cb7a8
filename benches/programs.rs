//! Four programs ported from JAX's examples (`examples/` in the JAX repository), as a user
//! porting them would write them, each timed per step next to the same program in JAX on
//! the same machine in the same run:
//!
//! - `mlp_train_step`: `mnist_classifier_fromscratch.py`, a jitted SGD step of a
//!   784-1024-1024-10 tanh network on a batch of 128 (log-softmax by `logsumexp`);
//! - `kernel_lsq_step`: `kernel_lsq.py`, a Gram matrix by nested `vmap`, then jitted
//!   momentum steps on the regularised least-squares objective (the example runs 10,000);
//! - `dp_sgd_step`: `differentially_private_sgd.py`, per-example gradients by `vmap` of
//!   `grad`, each clipped to a global norm, summed and noised (a 784-64-10 network in place
//!   of the example's convolutions, batch 256);
//! - `advi_step`: `advi.py`, the ELBO of a funnel density by `vmap` over 40 sample keys,
//!   with `grad` through `random.normal`, and a jitted Adam step.
//!
//! The JAX side is `benches/programs.py`: where `python3` can import JAX, the summary runs
//! it after its own measurements and prints `NAME: olympus X ms, jax Y ms, ratio Y/X per
//! step` (a ratio above 1 means Olympus is faster); otherwise it prints Olympus's figures
//! alone. Both sides use synthetic data of the examples' sizes (the same values: random
//! numbers are JAX's) and report the best of three timed runs after a warm-up run, and the
//! sum of the parameters after a run, which says that the two compute the same thing.

#[path = "common/mod.rs"]
mod common;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use olympus::{
    grad_argnums, jit, numpy as np, random, tree, vmap, Arg, Array, Axes, DType, Result,
};

type Params = Vec<(Array, Array)>;

fn mlp_init(key: &Array, sizes: &[usize], scale: f32) -> Result<Params> {
    let keys = random::split(key, 2 * sizes.len())?;
    let k = |i: usize| keys.slice(olympus::s![i as isize]);
    sizes
        .windows(2)
        .enumerate()
        .map(|(i, mn)| {
            Ok((
                np::multiply(
                    random::normal(&k(2 * i)?, &[mn[0], mn[1]], DType::Float32)?,
                    scale,
                )?,
                np::multiply(
                    random::normal(&k(2 * i + 1)?, &[mn[1]], DType::Float32)?,
                    scale,
                )?,
            ))
        })
        .collect()
}

fn one_hot(key: &Array, n: usize, classes: i64) -> Result<Array> {
    let labels = random::randint(key, &[n], 0, classes, DType::Int32)?;
    let range = np::arange(classes as i32)?;
    np::astype(
        np::equal(np::expand_dims(&labels, &[1])?, &range)?,
        DType::Float32,
    )
}

/// Log-probabilities of a tanh network's classes.
fn mlp_predict(params: &Params, inputs: &Array) -> Result<Array> {
    let mut act = inputs.clone();
    for (w, b) in &params[..params.len() - 1] {
        act = np::tanh(np::add(np::dot(&act, w)?, b)?)?;
    }
    let (w, b) = &params[params.len() - 1];
    let logits = np::add(np::dot(&act, w)?, b)?;
    let lse = np::logsumexp(&logits, Some(&[-1]), true)?;
    np::subtract(&logits, &lse)
}

fn mlp_loss((params, inputs, targets): (Params, Array, Array)) -> Result<Array> {
    let preds = mlp_predict(&params, &inputs)?;
    np::negative(np::mean(
        np::sum(np::multiply(&preds, &targets)?, Some(&[1]), false)?,
        None,
        false,
    )?)
}

/// A program's setup, returning a function that runs `steps` steps, waits for them, and
/// gives the parameters after them.
type Program = Box<dyn Fn(usize) -> Result<Vec<Array>>>;

/// The leaves of `tree`, each waited for (as JAX's `block_until_ready` of a pytree).
fn ready<T: tree::PyTree>(tree: &T) -> Result<Vec<Array>> {
    let leaves = tree::tree_leaves(tree);
    for leaf in &leaves {
        leaf.block_until_ready()?;
    }
    Ok(leaves)
}

/// The sum of `leaves`, read back.
fn checksum(leaves: &[Array]) -> Result<f64> {
    leaves.iter().try_fold(0.0, |acc, leaf| {
        let s = np::sum(leaf, None, false)?.to_vec::<f32>()?;
        Ok(acc + f64::from(s[0]))
    })
}

fn mlp_program() -> Result<Program> {
    let k = random::split(&random::key(0)?, 3)?;
    let ki = |i: isize| k.slice(olympus::s![i]);
    let params = mlp_init(&ki(0)?, &[784, 1024, 1024, 10], 0.1)?;
    let inputs = random::uniform(&ki(1)?, &[128, 784], 0.0, 1.0, DType::Float32)?;
    let targets = one_hot(&ki(2)?, 128, 10)?;
    let update = jit(|(p, x, y): (Params, Array, Array)| {
        let g = grad_argnums(mlp_loss, Arg::<0>)((p.clone(), x, y))?;
        tree::tree_map2(|w, dw| np::subtract(w, np::multiply(dw, 0.001)?), &p, &g)
    });
    Ok(Box::new(move |steps| {
        let mut p = params.clone();
        for _ in 0..steps {
            p = update.call((p, inputs.clone(), targets.clone()))?;
        }
        ready(&p)
    }))
}

fn kernel_lsq_program() -> Result<Program> {
    let (n, d) = (100, 20);
    let k = random::split(&random::key(1)?, 2)?;
    let ki = |i: isize| k.slice(olympus::s![i]);
    let xs = random::normal(&ki(0)?, &[n, d], DType::Float32)?;
    let ys = np::add(
        np::dot(&xs, np::ones(&[d], DType::Float32)?)?,
        np::multiply(random::normal(&ki(1)?, &[n], DType::Float32)?, 0.1)?,
    )?;
    let kernel = |(x, y): (Array, Array)| np::dot(&x, &y);
    let row = vmap(kernel, (Axes::Unmapped, 0), 0);
    let gram = jit(move |x: Array| {
        vmap(|(x, y): (Array, Array)| row((x, y)), (0, Axes::Unmapped), 0)((x.clone(), x))
    })
    .call(xs)?;
    let objective = move |v: Array| -> Result<Array> {
        let r = np::subtract(np::dot(&gram, &v)?, &ys)?;
        let risk = np::multiply(np::sum(np::power(&r, 2.0)?, None, false)?, 0.5)?;
        let reg = np::multiply(np::sum(np::power(&v, 2.0)?, None, false)?, 0.01)?;
        np::add(risk, reg)
    };
    let update = jit(move |(v, velocity): (Array, Array)| {
        let g = olympus::grad(&objective)(v.clone())?;
        let velocity = np::add(np::multiply(&velocity, 0.9)?, g)?;
        Ok((np::subtract(&v, np::multiply(&velocity, 1e-6)?)?, velocity))
    });
    Ok(Box::new(move |steps| {
        let mut state = (
            np::zeros(&[n], DType::Float32)?,
            np::zeros(&[n], DType::Float32)?,
        );
        for _ in 0..steps {
            state = update.call(state)?;
        }
        ready(&state.0)
    }))
}

fn dp_loss((params, x, y): (Params, Array, Array)) -> Result<Array> {
    let (w1, b1) = &params[0];
    let (w2, b2) = &params[1];
    let h = np::tanh(np::add(np::dot(&x, w1)?, b1)?)?;
    let logits = np::add(np::dot(&h, w2)?, b2)?;
    let lse = np::logsumexp(&logits, None, true)?;
    np::negative(np::sum(
        np::multiply(np::subtract(&logits, &lse)?, &y)?,
        None,
        false,
    )?)
}

fn clipped_grad((params, x, y): (Params, Array, Array)) -> Result<Params> {
    let clip = 1.5;
    let grads = grad_argnums(dp_loss, Arg::<0>)((params, x, y))?;
    let mut total = np::zeros(&[], DType::Float32)?;
    for g in tree::tree_leaves(&grads) {
        total = np::add(&total, np::sum(np::multiply(&g, &g)?, None, false)?)?;
    }
    let divisor = np::maximum(np::divide(np::sqrt(&total)?, clip)?, 1.0)?;
    tree::tree_map(|g| np::divide(g, &divisor), &grads)
}

fn dp_sgd_program() -> Result<Program> {
    let k = random::split(&random::key(2)?, 4)?;
    let ki = |i: isize| k.slice(olympus::s![i]);
    let params = mlp_init(&ki(0)?, &[784, 64, 10], 0.1)?;
    let x = random::uniform(&ki(1)?, &[256, 784], 0.0, 1.0, DType::Float32)?;
    let y = one_hot(&ki(2)?, 256, 10)?;
    let noise_key = ki(3)?;
    let update = jit(|(p, x, y, key): (Params, Array, Array, Array)| {
        let batch = x.shape()[0] as f32;
        let clipped = vmap(clipped_grad, (Axes::Unmapped, 0, 0), 0)((p.clone(), x, y))?;
        let n = tree::tree_leaves(&clipped).len();
        let keys = random::split(&key, n)?;
        let mut i = 0;
        let noised = tree::tree_map(
            |g| {
                let k = keys.slice(olympus::s![i as isize])?;
                i += 1;
                let noise = random::normal(&k, &g.shape()[1..], DType::Float32)?;
                np::divide(
                    np::add(
                        np::sum(g, Some(&[0]), false)?,
                        np::multiply(noise, 1.5 * 1.1)?,
                    )?,
                    batch,
                )
            },
            &clipped,
        )?;
        tree::tree_map2(
            |w, dw| np::subtract(w, np::multiply(dw, 0.25)?),
            &p,
            &noised,
        )
    });
    Ok(Box::new(move |steps| {
        let mut p = params.clone();
        for i in 0..steps {
            let key = random::fold_in(&noise_key, i as u32)?;
            p = update.call((p, x.clone(), y.clone(), key))?;
        }
        ready(&p)
    }))
}

fn normal_logpdf(x: &Array, mean: &Array, std: &Array) -> Result<Array> {
    let z = np::divide(np::subtract(x, mean)?, std)?;
    let half_log_2pi = 0.5 * (2.0 * std::f32::consts::PI).ln();
    np::subtract(
        np::subtract(np::multiply(np::square(&z)?, -0.5)?, np::log(std)?)?,
        half_log_2pi,
    )
}

fn funnel_log_density(p: &Array) -> Result<Array> {
    let (p0, p1) = (p.slice(olympus::s![0])?, p.slice(olympus::s![1])?);
    let zero = np::zeros(&[], DType::Float32)?;
    np::add(
        normal_logpdf(&p0, &zero, &np::exp(&p1)?)?,
        normal_logpdf(&p1, &zero, &np::full(&[], 1.35, Some(DType::Float32))?)?,
    )
}

fn elbo((key, mean, log_std): (Array, Array, Array)) -> Result<Array> {
    let std = np::exp(&log_std)?;
    let eps = random::normal(&key, mean.shape(), DType::Float32)?;
    let sample = np::add(&mean, np::multiply(&std, eps)?)?;
    np::subtract(
        funnel_log_density(&sample)?,
        np::sum(normal_logpdf(&sample, &mean, &std)?, None, false)?,
    )
}

fn advi_objective((params, key): ((Array, Array), Array)) -> Result<Array> {
    let keys = random::split(&key, 40)?;
    let elbos = vmap(elbo, (0, Axes::Unmapped, Axes::Unmapped), 0)((keys, params.0, params.1))?;
    np::negative(np::mean(elbos, None, false)?)
}

type Adam = ((Array, Array), (Array, Array), (Array, Array));

fn advi_program() -> Result<Program> {
    let key = random::key(3)?;
    let update = jit(|(state, t, key): (Adam, Array, Array)| {
        let (params, m, v) = state;
        let g = grad_argnums(advi_objective, Arg::<0>)((params.clone(), key))?;
        let m = tree::tree_map2(
            |mi, gi| np::add(np::multiply(mi, 0.9)?, np::multiply(gi, 0.1)?),
            &m,
            &g,
        )?;
        let v = tree::tree_map2(
            |vi, gi| {
                np::add(
                    np::multiply(vi, 0.999)?,
                    np::multiply(np::square(gi)?, 0.001)?,
                )
            },
            &v,
            &g,
        )?;
        let t1 = np::add(&t, 1.0)?;
        let c1 = np::subtract(1.0, np::power(0.9f32, &t1)?)?;
        let c2 = np::subtract(1.0, np::power(0.999f32, &t1)?)?;
        let step = |p: &Array, mi: &Array, vi: &Array| -> Result<Array> {
            let mhat = np::divide(mi, &c1)?;
            let vhat = np::divide(vi, &c2)?;
            np::subtract(
                p,
                np::divide(np::multiply(mhat, 0.1)?, np::add(np::sqrt(vhat)?, 1e-8)?)?,
            )
        };
        let params = (step(&params.0, &m.0, &v.0)?, step(&params.1, &m.1, &v.1)?);
        Ok((params, m, v))
    });
    Ok(Box::new(move |steps| {
        let z = || np::zeros(&[2], DType::Float32);
        let mut state: Adam = (
            (
                np::full(&[2], -1.0, Some(DType::Float32))?,
                np::full(&[2], -5.0, Some(DType::Float32))?,
            ),
            (z()?, z()?),
            (z()?, z()?),
        );
        for t in 0..steps {
            let k = random::fold_in(&key, t as u32)?;
            let tt = np::full(&[], t as f64, Some(DType::Float32))?;
            state = update.call((state, tt, k))?;
        }
        ready(&state.0)
    }))
}

/// A program's name, the steps of each timed run (as `programs.py`) and its setup.
type Entry = (&'static str, usize, fn() -> Result<Program>);

/// The programs.
fn programs() -> Vec<Entry> {
    vec![
        ("mlp_train_step", 20, mlp_program),
        ("kernel_lsq_step", 1000, kernel_lsq_program),
        ("dp_sgd_step", 10, dp_sgd_program),
        ("advi_step", 200, advi_program),
    ]
}

fn bench(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("programs");
    for (name, _, make) in programs() {
        let run = make().unwrap();
        g.bench_function(name, |b| b.iter(|| run(1).unwrap()));
    }
    g.finish();
}

/// Best of three timed runs of `steps` steps after a warm-up run, per step, and the
/// checksum after a timed run.
fn per_step(run: &Program, steps: usize) -> (Duration, f64) {
    run(2).unwrap();
    let mut params = Vec::new();
    let best = (0..3)
        .map(|_| {
            let t = Instant::now();
            params = run(steps).unwrap();
            t.elapsed() / steps as u32
        })
        .min()
        .unwrap();
    (best, checksum(&params).unwrap())
}

/// `programs.py`'s figures (ms per step and checksum by name), where `python3` can import
/// JAX.
fn jax_figures() -> BTreeMap<String, (f64, f64)> {
    common::jax_lines("programs.py")
        .into_iter()
        .filter_map(|(name, rest)| {
            let (ms, sum) = rest.split_once(" ms per step, checksum ")?;
            Some((name, (ms.parse().ok()?, sum.parse().ok()?)))
        })
        .collect()
}

fn summary() {
    let ours: Vec<(&str, f64, f64)> = programs()
        .into_iter()
        .map(|(name, steps, make)| {
            let (t, sum) = per_step(&make().unwrap(), steps);
            (name, t.as_secs_f64() * 1e3, sum)
        })
        .collect();
    let jax = jax_figures();
    if jax.is_empty() {
        println!("(JAX not found: `pip install \"jax[cpu]==0.10.2\"` to compare in the same run)");
    }
    for (name, ms, sum) in ours {
        match jax.get(name) {
            Some((j, jsum)) => println!(
                "{name}: olympus {ms:.3} ms, jax {j:.3} ms, ratio {:.2} per step; checksum {sum:.6e}, jax {jsum:.6e}",
                j / ms
            ),
            None => println!("{name}: olympus {ms:.3} ms per step; checksum {sum:.6e}"),
        }
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

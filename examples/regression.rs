//! Fits a small two-layer network to a noisy 2-d function with plain gradient descent.
//! One training step — the loss, its gradient with respect to the parameters (a registered
//! pytree, so the gradient is a `Mlp` too) and the update — is one jitted function of
//! `(params, x, y)`: `jit(value_and_grad(loss))` plus the update, traced once and compiled.
//!
//! Run with `cargo run --release --example regression`.

use std::time::Instant;

use olympus::{jit, numpy as np, random, tree, value_and_grad_argnums, Arg, Array, DType, Result};

/// A two-layer perceptron with a tanh hidden layer.
#[derive(Clone)]
struct Mlp {
    w1: Array,
    b1: Array,
    w2: Array,
    b2: Array,
}
olympus::register_pytree!(Mlp { w1, b1, w2, b2 });

/// Mean squared error of the network on a batch.
fn loss((p, x, y): (Mlp, Array, Array)) -> Result<Array> {
    let h = np::tanh(np::add(np::matmul(&x, &p.w1)?, &p.b1)?)?;
    let out = np::add(np::matmul(&h, &p.w2)?, &p.b2)?;
    np::mean(np::square(np::subtract(&out, &y)?)?, None, false)
}

/// One step of gradient descent: the loss before the step and the updated parameters.
fn train_step((p, x, y, lr): (Mlp, Array, Array, f32)) -> Result<(Array, Mlp)> {
    let (value, g) = value_and_grad_argnums(loss, Arg::<0>)((p.clone(), x, y))?;
    let updated = tree::tree_map2(|w, gw| np::subtract(w, np::multiply(gw, lr)?), &p, &g)?;
    Ok((value, updated))
}

fn main() -> Result<()> {
    println!("adapter: {}", olympus::Device::default_device()?.info());
    let ks = random::split(&random::key(42)?, 4)?;
    let k = |i: isize| ks.slice(olympus::s![i]);
    let (n, hidden) = (512, 32);

    // Data: y = sin(3 x0) cos(2 x1) + noise, x uniform in [-1, 1]².
    let x = random::uniform(&k(0)?, &[n, 2], -1.0, 1.0, DType::Float32)?;
    let x0 = x.slice(olympus::s![.., 0..1])?;
    let x1 = x.slice(olympus::s![.., 1..2])?;
    let clean = np::multiply(
        np::sin(np::multiply(&x0, 3.0)?)?,
        np::cos(np::multiply(&x1, 2.0)?)?,
    )?;
    let y = np::add(
        &clean,
        np::multiply(random::normal(&k(1)?, &[n, 1], DType::Float32)?, 0.05)?,
    )?;

    let mut params = Mlp {
        w1: np::multiply(random::normal(&k(2)?, &[2, hidden], DType::Float32)?, 1.0)?,
        b1: np::zeros(&[hidden], DType::Float32)?,
        w2: np::multiply(random::normal(&k(3)?, &[hidden, 1], DType::Float32)?, 0.3)?,
        b2: np::zeros(&[1], DType::Float32)?,
    };

    let step = jit(train_step).named("train_step");
    let lowered = step.lower(&(params.clone(), x.clone(), y.clone(), 0.2))?;
    println!(
        "train_step: {} equations (forward, backward, update) -> {} steps, {} of them fused kernels",
        lowered.graph().num_eqns(),
        lowered.steps(),
        lowered.fused_kernels()
    );
    if std::env::var_os("SHOW_GRAPH").is_some() {
        println!("{lowered}");
    }
    let start = Instant::now();
    let steps = 300;
    let mut first = None;
    let mut last = 0.0;
    for i in 0..steps {
        let (l, p) = step.call((params, x.clone(), y.clone(), 0.2))?;
        params = p;
        if i % 50 == 0 || i == steps - 1 {
            last = l.item::<f32>()?;
            first.get_or_insert(last);
            println!("step {i:4}  loss {last:.5}");
        }
    }
    let elapsed = start.elapsed();
    println!(
        "{steps} steps in {:.2} s ({:.1} ms/step, traced {} time(s)); loss {:.4} -> {:.4}",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3 / steps as f64,
        step.trace_count(),
        first.unwrap_or(f32::NAN),
        last
    );
    Ok(())
}

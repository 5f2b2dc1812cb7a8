//! A small model's parameters (a registered pytree) through a jitted function: one
//! gradient-free training signal (the loss of a two-layer network on a batch), its traced
//! graph printed once, then repeated calls that reuse the compiled executable.
//!
//! Run with `cargo run --release --example jit`.

use std::time::Instant;

use olympus::{jit, numpy as np, random, Array, DType, Result};

/// A two-layer perceptron; `activation` is static (part of the compiled signature).
struct Mlp {
    w1: Array,
    b1: Array,
    w2: Array,
    b2: Array,
    activation: String,
}
olympus::register_pytree!(Mlp { w1, b1, w2, b2, #[static] activation });

/// Mean squared error of the network on a batch.
fn loss((p, x, y): (Mlp, Array, Array)) -> Result<Array> {
    let h = np::add(np::matmul(&x, &p.w1)?, &p.b1)?;
    let h = match p.activation.as_str() {
        "relu" => np::maximum(&h, 0.0)?,
        _ => np::tanh(&h)?,
    };
    let out = np::add(np::matmul(&h, &p.w2)?, &p.b2)?;
    np::mean(np::square(np::subtract(&out, &y)?)?, None, false)
}

fn main() -> Result<()> {
    println!("adapter: {}", olympus::Device::default_device()?.info());
    let key = random::key(0)?;
    let ks = random::split(&key, 4)?;
    let k = |i: isize| ks.slice(olympus::s![i]);
    let params = || -> Result<Mlp> {
        Ok(Mlp {
            w1: np::multiply(random::normal(&k(0)?, &[64, 128], DType::Float32)?, 0.1)?,
            b1: np::zeros(&[128], DType::Float32)?,
            w2: np::multiply(random::normal(&k(1)?, &[128, 1], DType::Float32)?, 0.1)?,
            b2: np::zeros(&[1], DType::Float32)?,
            activation: "relu".into(),
        })
    };
    let x = random::normal(&k(2)?, &[256, 64], DType::Float32)?;
    let y = random::uniform(&k(3)?, &[256, 1], -1.0, 1.0, DType::Float32)?;

    let jitted = jit(loss).named("loss");
    println!("{}", jitted.lower(&(params()?, x.clone(), y.clone()))?);

    let t = Instant::now();
    let eager = loss((params()?, x.clone(), y.clone()))?.item::<f32>()?;
    let t_eager = t.elapsed();
    let t = Instant::now();
    let mut compiled = 0.0;
    for _ in 0..10 {
        compiled = jitted
            .call((params()?, x.clone(), y.clone()))?
            .item::<f32>()?;
    }
    println!(
        "loss: eager {eager:.6} ({t_eager:.2?}), jit {compiled:.6} ({:.2?} per call); traced {} time(s)",
        t.elapsed() / 10,
        jitted.trace_count()
    );
    Ok(())
}

//! Estimates π from 16M random points in the unit square, generated on the device from one
//! key, and prices a European call option by Monte Carlo against its Black–Scholes value.

use std::time::Instant;

use olympus::{numpy as np, random, DType};

fn main() -> olympus::Result<()> {
    let dev = olympus::Device::default_device()?;
    println!("adapter: {}", dev.info());
    let n = 16usize << 20;
    let t = Instant::now();
    let key = random::key(2024)?;
    let (kx, ky) = random::split2(&key)?;
    let x = random::uniform(&kx, &[n], 0.0, 1.0, DType::Float32)?;
    let y = random::uniform(&ky, &[n], 0.0, 1.0, DType::Float32)?;
    let inside = np::less(np::add(np::square(&x)?, np::square(&y)?)?, 1.0)?;
    let hits = np::count_nonzero(&inside, None, false)?.item::<i32>()?;
    let pi = 4.0 * f64::from(hits) / n as f64;
    println!(
        "π ≈ {pi:.5} from {n} points (error {:.1e}, expected about {:.1e}) in {:.2?}",
        (pi - std::f64::consts::PI).abs(),
        4.0 * (0.25 * std::f64::consts::PI * (1.0 - 0.25 * std::f64::consts::PI) / n as f64).sqrt(),
        t.elapsed()
    );

    // A call option: S0 = 100, K = 105, r = 5%, sigma = 20%, one year.
    let (s0, k, r, sigma) = (100.0f64, 105.0f64, 0.05f64, 0.2f64);
    let t = Instant::now();
    let z = random::normal(&random::fold_in(&key, 1)?, &[n], DType::Float32)?;
    let drift = (r - 0.5 * sigma * sigma) as f32;
    let st = np::multiply(s0, np::exp(np::add(drift, np::multiply(&z, sigma)?)?)?)?;
    let payoff = np::maximum(np::subtract(&st, k)?, 0.0)?;
    let price = np::mean(&payoff, None, false)?.item::<f32>()? as f64 * (-r).exp();
    let d1 = ((s0 / k).ln() + r + 0.5 * sigma * sigma) / sigma;
    let d2 = d1 - sigma;
    let bs = s0 * phi(d1) - k * (-r).exp() * phi(d2);
    println!(
        "call price ≈ {price:.4} by Monte Carlo, {bs:.4} by Black–Scholes ({:.2?})",
        t.elapsed()
    );
    Ok(())
}

/// The standard normal CDF (for the closed form).
fn phi(x: f64) -> f64 {
    let z = x / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z.abs());
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if z >= 0.0 {
        1.0 - 0.5 * r
    } else {
        0.5 * r
    }
}

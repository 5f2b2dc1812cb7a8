//! Quickstart: open the default device, say which adapter it is, and compute something
//! small but real: compound growth of a few savings plans, broadcast over years.

use olympus::{numpy as np, DType, Device};

fn main() -> olympus::Result<()> {
    let device = Device::default_device()?;
    println!("Olympus on {}", device.info());

    // Three yearly rates, continuously compounded over 0..=10 years: exp(rate * years).
    let rates = np::array([[0.02f32], [0.05], [0.08]])?; // (3, 1)
    let years = np::arange(11)?.astype(DType::Float32)?; // (11,)
    let growth = np::exp(np::multiply(&rates, &years)?)?; // (3, 11), broadcast
    let savings = np::multiply(&growth, 1000.0)?;
    println!("1000 saved at 2%, 5% and 8% (continuous compounding), years 0..=10:");
    println!("{savings:?}");

    let v = savings.to_vec::<f32>()?;
    for (i, rate) in [2, 5, 8].iter().enumerate() {
        println!("  {rate}%: after 10 years {:.2}", v[i * 11 + 10]);
    }
    let stats = device.memory_stats();
    println!(
        "device memory: {} live bytes, {} pooled bytes",
        stats.live_bytes, stats.pooled_bytes
    );
    Ok(())
}

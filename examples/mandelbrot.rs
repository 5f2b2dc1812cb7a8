//! The Mandelbrot set at 2048×2048, computed on the GPU with `numpy` functions (a jitted
//! iteration step) and
//! coloured with a colormap in array code, written to `mandelbrot.png` (or the path given
//! as the first argument) with the `image` crate.
//!
//! Run with `cargo run --release --example mandelbrot [path.png]`.

use std::time::Instant;

use olympus::{numpy as np, Array, DType, Result};

const WIDTH: usize = 2048;
const HEIGHT: usize = 2048;
const ITERATIONS: usize = 64;

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "mandelbrot.png".into());
    let dev = olympus::Device::default_device()?;
    println!("adapter: {}", dev.info());
    let t = Instant::now();

    // c = x + iy over the region: a row of x and a column of y, broadcast once to the
    // full grid (contiguous operands keep the loop's kernels on vector loads).
    let zeros = np::zeros(&[HEIGHT, WIDTH], DType::Float32)?;
    let cx = (&zeros + np::reshape(np::linspace(-2.2, 0.8, WIDTH, true)?, &[1, -1])?)?;
    let cy = (&zeros + np::reshape(np::linspace(-1.5, 1.5, HEIGHT, true)?, &[-1, 1])?)?;
    // One iteration of z <- z² + c, jitted: traced once, then one fused kernel per output.
    // A point counts while |z| <= 2; escaped points overflow to inf and then NaN, which
    // compares false, so they stop counting without a mask (bool + int32 is int32).
    let step = olympus::jit(
        |(zr, zi, count, cx, cy): (Array, Array, Array, Array, Array)| -> Result<(Array, Array, Array)> {
            let (zr2, zi2) = (np::square(&zr)?, np::square(&zi)?);
            let count = (&count + np::less_equal((&zr2 + &zi2)?, 4.0)?)?;
            let zi = ((2.0 * &zr * &zi) + &cy)?;
            let zr = ((&zr2 - &zi2) + &cx)?;
            Ok((zr, zi, count))
        },
    )
    .named("mandelbrot_step");
    let (mut zr, mut zi) = (zeros.clone(), zeros.clone());
    let mut count = np::zeros(&[HEIGHT, WIDTH], DType::Int32)?;
    for _ in 0..ITERATIONS {
        (zr, zi, count) = step.call((zr, zi, count, cx.clone(), cy.clone()))?;
    }

    // Colormap: t in [0, 1] through Bernstein polynomials (black inside the set), packed as
    // RGBA8 in one uint32 per pixel.
    let t01 = np::sqrt(np::divide(&count, ITERATIONS as f32)?)?; // float32
    let s = (1.0 - &t01)?;
    let channel = |scale: f64, a: i32, b: i32| -> Result<olympus::Array> {
        let v = (scale * 255.0 * np::power(&s, a)? * np::power(&t01, b)?)?;
        np::astype(np::clip(v, 0.0, 255.0)?, DType::UInt32)
    };
    let (r, g, b) = (
        channel(9.0, 1, 3)?,
        channel(15.0, 2, 2)?,
        channel(8.5, 3, 1)?,
    );
    let rgba = np::bitwise_or(
        np::bitwise_or(&r, np::left_shift(&g, 8)?)?,
        np::bitwise_or(np::left_shift(&b, 16)?, 0xff00_0000u32)?,
    )?;
    let pixels = rgba.to_vec::<u32>()?;
    let elapsed = t.elapsed();

    let bytes: Vec<u8> = pixels.iter().flat_map(|p| p.to_le_bytes()).collect();
    image::save_buffer(
        &path,
        &bytes,
        WIDTH as u32,
        HEIGHT as u32,
        image::ExtendedColorType::Rgba8,
    )?;
    let inside = pixels.iter().filter(|&&p| p == 0xff00_0000).count();
    println!(
        "{WIDTH}×{HEIGHT}, {ITERATIONS} iterations in {elapsed:.2?} ({:.1}% of the pixels in the set); wrote {path}",
        100.0 * inside as f64 / pixels.len() as f64
    );
    Ok(())
}

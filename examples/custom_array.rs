//! A user type passed straight into numpy functions: a grayscale image held on the CPU,
//! converted through the array-conversion protocol (`SupportsOlympusArray`), with its
//! shape and dtype declared so `zeros_like` and friends never copy the pixels, and
//! operators from `impl_array_ops!`.

use olympus::{numpy as np, Array, DType, Result, SupportsOlympusArray};

/// An 8-bit grayscale image, row-major, as an image library would hold it.
struct GrayImage {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl SupportsOlympusArray for GrayImage {
    /// Pixels become float32 in [0, 1], shape (height, width).
    fn olympus_array(&self) -> Result<Array> {
        let v: Vec<f32> = self.pixels.iter().map(|&p| f32::from(p) / 255.0).collect();
        Array::from_slice(&v, &[self.height, self.width])
    }

    fn olympus_shape(&self) -> Option<Vec<usize>> {
        Some(vec![self.height, self.width])
    }

    fn olympus_dtype(&self) -> Option<DType> {
        Some(DType::Float32)
    }
}

olympus::impl_array_ops!(GrayImage);

fn main() -> Result<()> {
    // A 64x48 gradient with a bright square.
    let (w, h) = (64, 48);
    let pixels = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            if (20..40).contains(&x) && (10..30).contains(&y) {
                250
            } else {
                (x * 3) as u8
            }
        })
        .collect();
    let img = GrayImage {
        width: w,
        height: h,
        pixels,
    };

    // numpy functions take the image as it is.
    println!("shape {:?} (declared, no conversion)", np::shape(&img)?);
    let mean = np::mean(&img, None, false)?.item::<f32>()?;
    let bright = np::count_nonzero(np::greater(&img, 0.9)?, None, false)?.item::<i32>()?;
    println!("mean brightness {mean:.3}, {bright} pixels above 0.9");

    // Contrast stretch with operators on the user type, then a horizontal gradient.
    let lo = np::min(&img, None, false)?;
    let hi = np::max(&img, None, false)?;
    let stretched = np::divide((&img - &lo)?, np::subtract(&hi, &lo)?)?;
    let dx = np::subtract(
        stretched.slice(olympus::s![.., 1..])?,
        stretched.slice(olympus::s![.., ..-1])?,
    )?;
    let edges = np::argwhere(np::greater(np::abs(&dx)?, 0.5)?, None, None)?;
    println!(
        "{} strong horizontal edges, first at (row, col) {:?}",
        edges.shape()[0],
        &edges.to_vec::<i32>()?[..2]
    );

    // A mask of the same shape, made without touching the pixels.
    let mask = np::zeros_like(&img)?;
    println!("mask: {} of {:?}", mask.dtype(), mask.shape());
    Ok(())
}

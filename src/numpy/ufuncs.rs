//! Elementwise functions (ufuncs). Each promotes and broadcasts its operands, then binds one
//! `lax` primitive; the kernel comes from the one generator.

use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::error::Result;
use crate::lax;

use super::promote_broadcast;

/// Elementwise `x + y` with broadcasting and promotion (logical or for bool).
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([1i32, 2, 3])?;
/// let y = np::add(&x, 10)?;           // a weak scalar keeps int32
/// assert_eq!(format!("{y:?}"), "Array([11, 12, 13], dtype=int32)");
/// let z = np::add(&x, 0.5)?;          // int32 + float → float32
/// assert_eq!(z.dtype(), olympus::DType::Float32);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn add(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    let ops = vec![operand("add", 0, x)?, operand("add", 1, y)?];
    let v = promote_broadcast("add", ops, false)?;
    lax::add(&v[0], &v[1])
}

/// Elementwise `x * y` with broadcasting and promotion (logical and for bool).
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1.0f32], [2.0]])?;   // (2, 1)
/// let y = np::array([1.0f32, 10.0, 100.0])?; // (3,)
/// let z = np::multiply(&x, &y)?;           // (2, 3)
/// assert_eq!(z.to_vec::<f32>()?, vec![1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn multiply(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    let ops = vec![operand("multiply", 0, x)?, operand("multiply", 1, y)?];
    let v = promote_broadcast("multiply", ops, false)?;
    lax::mul(&v[0], &v[1])
}

/// Elementwise `e^x`; integer and bool inputs become float32 first.
///
/// ```
/// use olympus::numpy as np;
/// let y = np::exp(np::array([0.0f32, 1.0])?)?;
/// let v = y.to_vec::<f32>()?;
/// assert_eq!(v[0], 1.0);
/// assert!((v[1] - std::f32::consts::E).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn exp(x: impl ArrayLike) -> Result<Array> {
    let v = promote_broadcast("exp", vec![operand("exp", 0, x)?], true)?;
    lax::exp(&v[0])
}

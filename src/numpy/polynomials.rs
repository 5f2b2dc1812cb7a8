//! Polynomials and one-dimensional convolutions (`polyval` ... `poly`, `convolve`,
//! `correlate`), built from the existing functions.

use super::floats::inexact_of;
use super::overrides::overridable;
use super::stats::slice_axis;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, IntoParam, Param};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;

/// The Vandermonde matrix of the 1-d `x`: column `j` holds `x ** (n - 1 - j)` (`x ** j`
/// when `increasing`), `n` columns (`len(x)` by default).
pub fn vander(x: impl ArrayLike, n: Option<usize>, increasing: bool) -> Result<Array> {
    overridable!("vander"; [one x]; [n, increasing]);
    let func = "vander";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() != 1 {
        return Err(Error::shape(func, &[x.shape()], "x must be 1-d"));
    }
    let n = n.unwrap_or(x.size());
    let mut p = super::arange(0..n as i32)?;
    if !increasing {
        p = super::flip(&p, None)?;
    }
    if x.dtype() == DType::Bool {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "x must be numeric, as in JAX",
        ));
    }
    let col = lax::reshape(&x, &[x.size(), 1])?;
    super::power(&col, p.astype(x.dtype())?)
}

/// The polynomial with coefficients `p` (highest power first, 1-d or with trailing axes
/// broadcast against `x`) evaluated at `x` by Horner's rule.
///
/// ```
/// use olympus::numpy as np;
/// let y = np::polyval([1, 0, -2], [0, 1, 2, 3])?;
/// assert_eq!(y.to_vec::<i32>()?, vec![-2, -1, 2, 7]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn polyval(p: impl ArrayLike, x: impl ArrayLike) -> Result<Array> {
    overridable!("polyval"; [one p, one x]; []);
    let func = "polyval";
    let (p, x) = super::promote_pair(func, p, x, false)?;
    if p.ndim() == 0 {
        return Err(Error::shape(
            func,
            &[p.shape()],
            "p must have at least one axis",
        ));
    }
    let shape = crate::shape::broadcast_shapes_for(func, &[&p.shape()[1..], x.shape()])?;
    let mut y = super::zeros(&shape, x.dtype())?;
    for k in 0..p.shape()[0] {
        let pk = lax::reshape(&slice_axis(&p, 0, k, k + 1)?, &p.shape()[1..])?;
        y = super::add(super::multiply(&y, &x)?, pk)?;
    }
    Ok(y)
}

/// The sum of two polynomials (1-d coefficient arrays, highest power first).
pub fn polyadd(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("polyadd"; [one a1, one a2]; []);
    poly_combine("polyadd", a1, a2, false)
}

/// The difference of two polynomials (1-d coefficient arrays, highest power first).
pub fn polysub(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("polysub"; [one a1, one a2]; []);
    poly_combine("polysub", a1, a2, true)
}

fn poly_combine(func: &str, a1: impl ArrayLike, a2: impl ArrayLike, sub: bool) -> Result<Array> {
    let v = super::promote_pair(func, a1, a2, false)?;
    let (a, b) = (super::atleast_1d(&v.0)?, super::atleast_1d(&v.1)?);
    if a.ndim() != 1 || b.ndim() != 1 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "takes 1-d coefficient arrays",
        ));
    }
    let n = a.size().max(b.size());
    let pad = |x: &Array| super::pad(x, &[(n - x.size(), 0)], super::PadMode::Constant(0.0));
    let (a, b) = (pad(&a)?, pad(&b)?);
    if sub {
        super::subtract(a, b)
    } else {
        super::add(a, b)
    }
}

/// The `m`-th derivative of the polynomial `p` (1-d, highest power first).
pub fn polyder(p: impl ArrayLike, m: usize) -> Result<Array> {
    overridable!("polyder"; [one p]; [m]);
    let func = "polyder";
    let p = inexact_of(func, p)?;
    if p.ndim() != 1 {
        return Err(Error::shape(func, &[p.shape()], "p must be 1-d"));
    }
    let n = p.size();
    if m == 0 {
        return Ok(p);
    }
    if m >= n {
        return super::zeros(&[0], p.dtype());
    }
    // JAX: p[:-m] * (prod over j < m of (arange(m, n) - j))[::-1].
    let coeff: Vec<f64> = (m..n)
        .rev()
        .map(|i| (0..m).map(|j| (i - j) as f64).product())
        .collect();
    let c = host_f32(&coeff)?.astype(p.dtype())?;
    super::multiply(slice_axis(&p, 0, 0, n - m)?, c)
}

/// The `m`-th antiderivative of the polynomial `p` (1-d, highest power first), each
/// integration's constant taken from `k` (zeros by default; one value per integration).
pub fn polyint(p: impl ArrayLike, m: usize, k: Option<&[f64]>) -> Result<Array> {
    overridable!("polyint"; [one p]; [m]);
    let func = "polyint";
    let mut p = super::asarray(operand(func, 0, p)?)?;
    if p.ndim() != 1 {
        return Err(Error::shape(func, &[p.shape()], "p must be 1-d"));
    }
    let ks: Vec<f64> = match k {
        None => vec![0.0; m],
        Some(k) if k.len() == 1 => vec![k[0]; m],
        Some(k) if k.len() == m => k.to_vec(),
        Some(k) => {
            return Err(Error::arg(
                func,
                format!("k has {} values for {m} integrations", k.len()),
            ))
        }
    };
    if !p.dtype().is_floating() {
        p = p.astype(DType::Float32)?;
    }
    if m == 0 {
        return Ok(p);
    }
    // JAX: concatenate(p, k) / (prod over j < m of max(1, i - j))[::-1].
    let n = p.size() + m;
    let coeff: Vec<f64> = (0..n)
        .rev()
        .map(|i| (0..m).map(|j| (i as f64 - j as f64).max(1.0)).product())
        .collect();
    let k = host_f32(&ks)?.astype(p.dtype())?;
    let c = host_f32(&coeff)?.astype(p.dtype())?;
    super::true_divide(super::concatenate([p, k], 0)?, c)
}

/// A 1-d float32 array of host values (small exact integers and constants here).
fn host_f32(v: &[f64]) -> Result<Array> {
    let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    Array::from_slice(&v, &[v.len()])
}

/// Which part of a full convolution [`convolve`] and [`correlate`] return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvMode {
    /// Every overlap: `len(a) + len(v) - 1` values.
    Full,
    /// `max(len(a), len(v))` values centred on the full result.
    Same,
    /// Only complete overlaps: `max - min + 1` values.
    Valid,
}

impl IntoParam for ConvMode {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

/// The discrete convolution of two 1-d arrays (inexact: integers promote to float32).
///
/// ```
/// use olympus::numpy::{self as np, ConvMode};
/// let c = np::convolve([1.0f32, 2.0, 3.0], [0.0f32, 1.0, 0.5], ConvMode::Full)?;
/// assert_eq!(c.to_vec::<f32>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn convolve(a: impl ArrayLike, v: impl ArrayLike, mode: ConvMode) -> Result<Array> {
    overridable!("convolve"; [one a, one v]; [mode]);
    conv("convolve", a, v, mode, false)
}

/// The cross-correlation of two 1-d arrays: `c[k] = Σ a[n + k] · v[n]`.
pub fn correlate(a: impl ArrayLike, v: impl ArrayLike, mode: ConvMode) -> Result<Array> {
    overridable!("correlate"; [one a, one v]; [mode]);
    conv("correlate", a, v, mode, true)
}

/// JAX's `_conv`: the longer operand slides under the (flipped, for a convolution)
/// shorter one. Each output is a row of gathered, zero-padded windows times the kernel,
/// one matrix-vector product.
fn conv(
    func: &str,
    a: impl ArrayLike,
    v: impl ArrayLike,
    mode: ConvMode,
    correlate: bool,
) -> Result<Array> {
    let (mut x, mut y) = super::promote_pair(func, a, v, true)?;
    if x.ndim() != 1 || y.ndim() != 1 {
        return Err(Error::shape(
            func,
            &[x.shape(), y.shape()],
            "takes 1-d arrays",
        ));
    }
    if x.size() == 0 || y.size() == 0 {
        return Err(Error::shape(
            func,
            &[x.shape(), y.shape()],
            "inputs cannot be empty",
        ));
    }
    let mut reverse = false;
    if x.size() < y.size() {
        std::mem::swap(&mut x, &mut y);
        reverse = correlate;
    }
    if !correlate {
        y = super::flip(&y, None)?;
    }
    let (n, m) = (x.size(), y.size());
    let (lo, hi) = match mode {
        ConvMode::Valid => (0, 0),
        ConvMode::Same => (m / 2, m - m / 2 - 1),
        ConvMode::Full => (m - 1, m - 1),
    };
    let out = n + lo + hi + 1 - m;
    // Window i reads x[i - lo + j] for j in 0..m (zero outside).
    let i = lax::reshape(&super::arange(0..out as i32)?, &[out, 1])?;
    let j = lax::reshape(&super::arange(0..m as i32)?, &[1, m])?;
    let at = super::subtract(super::add(i, j)?, lo as i64)?;
    let inside = super::logical_and(super::greater_equal(&at, 0)?, super::less(&at, n as i64)?)?;
    let read = super::take_with(&x, &at, None, super::IndexMode::Clip, None)?;
    let windows = super::r#where(inside, read, super::zeros(&[], x.dtype())?)?;
    let r = super::matmul(windows, &y)?;
    if reverse {
        super::flip(&r, None)
    } else {
        Ok(r)
    }
}

/// The product of two polynomials (1-d coefficient arrays, highest power first; inexact,
/// as JAX's). Leading zeros are kept, as JAX's default; [`polymul_with`] trims them.
pub fn polymul(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("polymul"; [one a1, one a2]; []);
    let v = super::promote_pair("polymul", a1, a2, false)?;
    polymul_arrays(v, false)
}

/// [`polymul`] with JAX's `trim_leading_zeros`: each operand's leading zeros are dropped
/// first (an all-zero operand becomes `[0]`) where either has more than one coefficient.
/// Trimming reads the values, so not under `jit` (as in JAX).
///
/// ```
/// use olympus::numpy as np;
/// let p = np::polymul_with([0, 1, 2], [0, 1, 1], true)?;
/// assert_eq!(p.to_vec::<f32>()?, vec![1.0, 3.0, 2.0]);
/// assert_eq!(np::polymul([0, 1, 2], [0, 1, 1])?.to_vec::<f32>()?, vec![0.0, 0.0, 1.0, 3.0, 2.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn polymul_with(
    a1: impl ArrayLike,
    a2: impl ArrayLike,
    trim_leading_zeros: bool,
) -> Result<Array> {
    overridable!("polymul_with"; [one a1, one a2]; [trim_leading_zeros]);
    let v = super::promote_pair("polymul", a1, a2, false)?;
    polymul_arrays(v, trim_leading_zeros)
}

fn polymul_arrays((a, b): (Array, Array), trim_leading_zeros: bool) -> Result<Array> {
    let func = "polymul";
    let (mut a, mut b) = (super::atleast_1d(&a)?, super::atleast_1d(&b)?);
    if trim_leading_zeros && (a.size() > 1 || b.size() > 1) {
        let trim = |x: &Array| -> Result<Array> {
            let t = super::trim_zeros(x, "f")?;
            if t.size() == 0 {
                super::zeros(&[1], x.dtype())
            } else {
                Ok(t)
            }
        };
        (a, b) = (trim(&a)?, trim(&b)?);
    }
    // An empty operand is the zero polynomial, as in JAX: [] * [1, 2] is [0, 0].
    let zero = |x: Array| -> Result<Array> {
        if x.size() == 0 {
            super::zeros(&[1], x.dtype())
        } else {
            Ok(x)
        }
    };
    let (a, b) = (zero(a)?, zero(b)?);
    // As JAX's, through the convolution: integers promote to float32.
    conv(func, &a, &b, ConvMode::Full, false)
}

/// The quotient and remainder of polynomial division `u / v` (1-d coefficient arrays,
/// highest power first, in an inexact dtype).
pub fn polydiv(u: impl ArrayLike, v: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("polydiv"; [one u, one v]; []);
    let func = "polydiv";
    let ops = super::promote_pair(func, u, v, true)?;
    let (mut u, v) = (super::atleast_1d(&ops.0)?, super::atleast_1d(&ops.1)?);
    if u.ndim() != 1 || v.ndim() != 1 || v.size() == 0 {
        return Err(Error::shape(
            func,
            &[u.shape(), v.shape()],
            "takes 1-d coefficient arrays, v non-empty",
        ));
    }
    let (m, n) = (u.size() as isize - 1, v.size() as isize - 1);
    let scale = super::true_divide(1.0, slice_axis(&v, 0, 0, 1)?)?;
    let mut q = super::zeros(&[(m - n + 1).max(1) as usize], u.dtype())?;
    for k in 0..(m - n + 1).max(0) as usize {
        let d = super::multiply(&scale, slice_axis(&u, 0, k, k + 1)?)?;
        q = q.at(k as isize).set(lax::reshape(&d, &[])?)?;
        let sub = super::multiply(super::negative(&d)?, &v)?;
        let mid = super::add(slice_axis(&u, 0, k, k + n as usize + 1)?, sub)?;
        u = super::concatenate(
            [
                slice_axis(&u, 0, 0, k)?,
                mid,
                slice_axis(&u, 0, k + n as usize + 1, u.size())?,
            ],
            0,
        )?;
    }
    Ok((q, u))
}

/// The coefficients (highest power first) of the monic polynomial with the 1-d
/// `seq_of_zeros` as roots. (A square matrix's characteristic polynomial needs its
/// eigenvalues and comes with the linear-algebra module.)
pub fn poly(seq_of_zeros: impl ArrayLike) -> Result<Array> {
    overridable!("poly"; [one seq_of_zeros]; []);
    let func = "poly";
    let z = inexact_of(func, seq_of_zeros)?;
    if z.ndim() > 1 {
        return Err(Error::shape(
            func,
            &[z.shape()],
            "takes 1-d roots (matrices need linalg.eigvals)",
        ));
    }
    let z = super::atleast_1d(&z)?;
    let mut a = super::ones(&[1], z.dtype())?;
    for k in 0..z.size() {
        let root = super::negative(slice_axis(&z, 0, k, k + 1)?)?;
        let factor = super::concatenate([super::ones(&[1], z.dtype())?, root], 0)?;
        a = conv(func, &a, &factor, ConvMode::Full, false)?;
    }
    Ok(a)
}

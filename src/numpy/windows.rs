//! Window functions (`hamming`, `hanning`, `blackman`, `bartlett`, `kaiser`) and the
//! Bessel function `i0` that `kaiser` uses.

use super::floats::inexact_of;
use super::overrides::overridable;
use crate::array::Array;
use crate::convert::ArrayLike;
use crate::dtype::DType;
use crate::error::Result;
use crate::lax;

/// A window of `m` points in float32: `0.5 - 0.5 cos(2πn/(m-1))`-style sums of cosines
/// (`a0 - a1 cos + a2 cos 2`); one point is `[1]`.
fn cosine_window(m: usize, a: [f64; 3]) -> Result<Array> {
    if m <= 1 {
        return super::ones(&[m], DType::Float32);
    }
    let n = super::arange(0..m as i32)?.astype(DType::Float32)?;
    // JAX's order of operations: cos(2πk · n / (M - 1)).
    let cos_k = |k: f64| -> Result<Array> {
        let t = super::multiply(&n, 2.0 * k * std::f64::consts::PI)?;
        super::cos(super::divide(t, (m - 1) as f64)?)
    };
    let w = super::subtract(a[0], super::multiply(cos_k(1.0)?, a[1])?)?;
    if a[2] == 0.0 {
        return Ok(w);
    }
    super::add(w, super::multiply(cos_k(2.0)?, a[2])?)
}

/// The Hamming window of `m` points.
pub fn hamming(m: usize) -> Result<Array> {
    cosine_window(m, [0.54, 0.46, 0.0])
}

/// The Hann window of `m` points.
pub fn hanning(m: usize) -> Result<Array> {
    cosine_window(m, [0.5, 0.5, 0.0])
}

/// The Blackman window of `m` points.
pub fn blackman(m: usize) -> Result<Array> {
    cosine_window(m, [0.42, 0.5, 0.08])
}

/// The Bartlett (triangular) window of `m` points.
pub fn bartlett(m: usize) -> Result<Array> {
    if m <= 1 {
        return super::ones(&[m], DType::Float32);
    }
    let n = super::arange(0..m as i32)?.astype(DType::Float32)?;
    // JAX: 1 - |2n + 1 - M| / (M - 1).
    let d = super::subtract(super::add(super::multiply(&n, 2.0)?, 1.0)?, m as f64)?;
    super::subtract(1.0, super::divide(super::abs(d)?, (m - 1) as f64)?)
}

/// The modified Bessel function of the first kind of order 0, as JAX computes it:
/// `exp(|x|) · i0e(|x|)`, with Cephes' float32 Chebyshev series for `i0e` (float16 in
/// float32, rounded once).
///
/// ```
/// use olympus::numpy as np;
/// let v = np::i0([0.0f32, 1.0])?.to_vec::<f32>()?;
/// assert!((v[0] - 1.0).abs() < 1e-6); // 1.0000001, as JAX's series gives
/// assert!((v[1] - 1.266_065_9).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn i0(x: impl ArrayLike) -> Result<Array> {
    overridable!("i0"; [one x]; []);
    let x = inexact_of("i0", x)?;
    let plain = |x: &Array| -> Result<Array> {
        let ax = super::abs(x)?;
        super::multiply(super::exp(&ax)?, i0e(&ax)?.astype(x.dtype())?)
    };
    // JAX's custom rule: the function's own derivative, but 0 at 0 (i1(0)), where `|x|`'s
    // and the series' rounding would leave a residue.
    crate::jit::custom_jvp(
        move |x: Array| plain(&x),
        move |x: Array, t: Array| -> Result<(Array, Array)> {
            let (y, dy) = crate::jit::jvp(|x: Array| plain(&x), x.clone(), t)?;
            Ok((y, super::r#where(super::equal(&x, 0.0)?, 0.0, &dy)?))
        },
    )
    .named("i0")
    .call(x)
}

/// Cephes' float32 `i0e` of `|x|` (JAX's `bessel_i0e`), in float32. The coefficients are
/// Cephes' digits as JAX lists them (each rounds to float32 before use).
#[allow(clippy::excessive_precision)]
fn i0e(x: &Array) -> Result<Array> {
    const A: [f64; 18] = [
        -1.300_025_009_986_248_042_12E-8,
        6.046_995_022_541_918_949_32E-8,
        -2.670_793_853_940_611_733_91E-7,
        1.117_387_539_120_103_718_15E-6,
        -4.416_738_358_458_750_563_59E-6,
        1.644_844_807_072_889_708_93E-5,
        -5.754_195_010_082_103_703_98E-5,
        1.885_028_850_958_416_557_29E-4,
        -5.763_755_745_385_823_658_85E-4,
        1.639_475_616_941_335_798_42E-3,
        -4.324_309_995_050_575_944_30E-3,
        1.054_646_039_459_499_831_83E-2,
        -2.373_741_480_589_946_881_56E-2,
        4.930_528_423_967_070_848_78E-2,
        -9.490_109_704_804_764_442_10E-2,
        1.716_209_015_222_087_753_49E-1,
        -3.046_826_723_431_983_986_83E-1,
        6.767_952_744_094_760_849_95E-1,
    ];
    const B: [f64; 7] = [
        3.396_232_025_708_386_345_15E-9,
        2.266_668_990_498_178_064_59E-8,
        2.048_918_589_469_063_741_83E-7,
        2.891_370_520_834_756_482_97E-6,
        6.889_758_346_916_823_984_26E-5,
        3.369_116_478_255_694_089_90E-3,
        8.044_904_110_141_088_316_08E-1,
    ];
    // Clenshaw's recurrence, as JAX's `evaluate_chebyshev_polynomial`: (b0, b1, b2), with
    // `t·b1 - b2` as one fused multiply-add, the contraction XLA's CPU backend makes.
    let chebyshev = |t: &Array, coeffs: &[f64]| -> Result<Array> {
        let zero = super::zeros(t.shape(), DType::Float32)?;
        let mut b = (zero.clone(), zero.clone(), zero);
        for &c in coeffs {
            let tb = lax::bind(
                lax::Primitive::Fma,
                &[t, &b.0, &super::negative(&b.1)?],
                None,
            )?;
            b = (super::add(tb, c as f32 as f64)?, b.0, b.1);
        }
        super::multiply(super::subtract(&b.0, &b.2)?, 0.5)
    };
    let x = super::abs(x.astype(DType::Float32)?)?;
    // Each branch reads `x` only where it is taken (8 elsewhere), so that the other's
    // derivative, which the select multiplies by zero, stays finite (`32 / 1e-30`
    // would make it `0 * inf`).
    let low_side = super::less_equal(&x, 8.0)?;
    let (xl, xh) = (
        super::r#where(&low_side, &x, 8.0)?,
        super::r#where(&low_side, 8.0, &x)?,
    );
    let low = chebyshev(&super::subtract(super::multiply(&xl, 0.5)?, 2.0)?, &A)?;
    let high = super::divide(
        chebyshev(&super::subtract(super::divide(32.0, &xh)?, 2.0)?, &B)?,
        super::sqrt(&xh)?,
    )?;
    super::r#where(&low_side, low, high)
}

/// The Kaiser window of `m` points with shape parameter `beta`, in float32.
pub fn kaiser(m: usize, beta: f64) -> Result<Array> {
    if m <= 1 {
        return super::ones(&[m], DType::Float32);
    }
    let n = super::arange(0..m as i32)?.astype(DType::Float32)?;
    let alpha = 0.5 * (m - 1) as f64;
    let r = super::divide(super::subtract(&n, alpha)?, alpha)?;
    let arg = super::multiply(
        super::sqrt(super::subtract(1.0, super::multiply(&r, &r)?)?)?,
        beta,
    )?;
    let b = super::full(&[], beta, Some(DType::Float32))?;
    super::divide(i0(arg)?, i0(b)?)
}

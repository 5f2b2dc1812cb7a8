//! Floats by their bits: `frexp`, `nextafter` and `spacing` work on the bits, not with
//! float arithmetic, where a float comparison or product would read subnormals as zeros
//! on adapters that flush them (NVIDIA), so every adapter gives the same answers; `ldexp`
//! goes through `frexp`, as JAX's does.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;

/// `x`, converted to float32 unless it is already floating.
pub(super) fn inexact_of(func: &str, x: impl ArrayLike) -> Result<Array> {
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.dtype().is_floating() {
        Ok(x)
    } else {
        x.astype(DType::Float32)
    }
}

/// `(mantissa, exponent)` with `x == mantissa * 2**exponent` and `0.5 <= |mantissa| < 1`
/// (int32 exponents; zero, infinities and NaN give themselves and 0), by the bits as JAX.
pub fn frexp(x: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("frexp"; [one x]; []);
    let x = inexact_of("frexp", x)?;
    // JAX's custom rule: the mantissa's tangent is `t * 2^-e` (the bits have none), the
    // exponent's zero; `ldexp`'s derivative, `2^x2`, comes from it.
    crate::jit::custom_jvp(
        |x: Array| frexp_bits(&x),
        |x: Array, t: Array| -> Result<((Array, Array), (Array, Array))> {
            let (m, e) = frexp_bits(&x)?;
            let dm = super::multiply(&t, super::exp2(super::negative(e.astype(t.dtype())?)?)?)?;
            let de = super::zeros_like(&e)?;
            Ok(((m, e), (dm, de)))
        },
    )
    .named("frexp")
    .call(x)
}

/// [`frexp`]'s values, by the bits.
fn frexp_bits(x: &Array) -> Result<(Array, Array)> {
    // On the bits alone (float16 converts exactly): a float comparison or product would
    // read subnormals as zeros on adapters that flush them (NVIDIA). A subnormal's
    // significand converts exactly to a normal float32, g = s·2^149 in magnitude, whose
    // fields give s's.
    let f = x.astype(DType::Float32)?;
    let bits = lax::bitcast_convert_type(&f, DType::Int32)?;
    let field = super::bitwise_and(super::right_shift(&bits, 23)?, 0xff)?;
    let sub = super::equal(&field, 0)?;
    let g = super::bitwise_and(&bits, 0x7f_ffff)?.astype(DType::Float32)?;
    let src = super::r#where(&sub, lax::bitcast_convert_type(&g, DType::Int32)?, &bits)?;
    let e = super::subtract(
        super::bitwise_and(super::right_shift(&src, 23)?, 0xff)?,
        126,
    )?;
    let e = super::subtract(&e, super::r#where(&sub, 149, 0)?)?;
    let mbits = super::bitwise_or(
        super::bitwise_or(super::bitwise_and(&src, 0x7f_ffff)?, 126 << 23)?,
        super::bitwise_and(&bits, i32::MIN)?,
    )?;
    let m = lax::bitcast_convert_type(&mbits, DType::Float32)?;
    let special = super::logical_or(
        super::equal(&field, 0xff)?,
        super::equal(super::bitwise_and(&bits, i32::MAX)?, 0)?,
    )?;
    let m = super::r#where(&special, &f, &m)?.astype(x.dtype())?;
    let e = super::r#where(&special, 0, &e)?;
    Ok((m, e))
}

/// `x1 * 2**x2` for integer `x2`, without overflow in the power: through [`frexp`], as JAX.
pub fn ldexp(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("ldexp"; [one x1, one x2]; []);
    let func = "ldexp";
    let x = inexact_of(func, x1)?;
    let n = super::asarray(operand(func, 1, x2)?)?;
    if !n.dtype().is_integer() && !n.dtype().is_bool() {
        return Err(Error::dtype(
            func,
            &[x.dtype(), n.dtype()],
            "x2 must be integer",
        ));
    }
    let (m, e) = frexp(&x)?;
    // Any |x2| past 512 over- or underflows every float: clamped, the sum cannot wrap.
    let n = super::clip(n.astype(DType::Int32)?, -512, 512)?;
    let e = super::add(e, n)?.astype(x.dtype())?;
    let pos = super::greater(&e, 0.0)?;
    let m = super::r#where(&pos, super::multiply(&m, 2.0)?, &m)?;
    let e = super::r#where(&pos, super::subtract(&e, 1.0)?, &e)?;
    let r = super::multiply(&m, super::power(2.0, &e)?)?;
    let keep = super::logical_or(super::isinf(&x)?, super::equal(&x, 0.0)?)?;
    super::r#where(keep, &x, r)
}

/// The next float after `x` toward `y` (float32 and bfloat16 by their bits, float16 by its
/// spacing; `y` where they are equal, NaN where either is).
///
/// ```
/// use olympus::numpy as np;
/// let r = np::nextafter([1.0f32, 0.0], [2.0f32, -1.0])?.to_vec::<f32>()?;
/// assert_eq!(r, vec![1.0 + f32::EPSILON, -f32::from_bits(1)]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn nextafter(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("nextafter"; [one x, one y]; []);
    let func = "nextafter";
    let v = super::promote_pair(func, x, y, true)?;
    let shape = crate::shape::broadcast_shapes_for(func, &[v.0.shape(), v.1.shape()])?;
    let (x, y) = (
        super::broadcast_to(&v.0, &shape)?,
        super::broadcast_to(&v.1, &shape)?,
    );
    let (r, same) = if x.dtype() == DType::Float16 {
        (next_f16(&x, &super::less(&x, &y)?)?, super::equal(&x, &y)?)
    } else {
        // On the bits: a float comparison would read subnormals as zeros on adapters that
        // flush them (NVIDIA). Sign-magnitude bits as a signed integer k (±0 both 0) order
        // as the floats do; the neighbour is k ± 1, and from 0 that is ±the smallest
        // subnormal.
        let (int, mag) = match x.dtype() {
            DType::BFloat16 => (DType::Int16, i64::from(i16::MAX)),
            _ => (DType::Int32, i64::from(i32::MAX)),
        };
        let key = |v: &Array| -> Result<Array> {
            let b = lax::bitcast_convert_type(v, int)?;
            let neg = super::negative(super::bitwise_and(&b, mag)?)?;
            super::r#where(super::less(&b, 0)?, neg, b)
        };
        let (kx, ky) = (key(&x)?, key(&y)?);
        let k = super::add(&kx, super::r#where(super::less(&kx, &ky)?, 1, -1)?)?;
        // Negative k, or a step from a negative x to zero (-0.0), carries the sign bit.
        let negative = super::logical_or(
            super::less(&k, 0)?,
            super::logical_and(super::equal(&k, 0)?, super::less(&kx, 0)?)?,
        )?;
        let sign = super::bitwise_or(super::negative(&k)?, -mag - 1)?;
        let bits = super::r#where(negative, sign, &k)?;
        (
            lax::bitcast_convert_type(&bits, x.dtype())?,
            super::equal(&kx, &ky)?,
        )
    };
    let nan = super::logical_or(super::isnan(&x)?, super::isnan(&y)?)?;
    let r = super::r#where(same, &y, r)?;
    super::r#where(nan, f64::NAN, r)
}

/// The neighbour of float16 `x` (exact in float32) above it where `up`, else below.
fn next_f16(x: &Array, up: &Array) -> Result<Array> {
    let f = x.astype(DType::Float32)?;
    // |x| = m·2^e with m in [0.5, 1): its float16 spacing is 2^(max(e - 1, -14) - 10),
    // halved below a power of two (m = 0.5) moving toward zero.
    let (m, e) = frexp(super::abs(&f)?)?;
    let e = super::maximum(super::subtract(e, 1)?, -14)?;
    let ulp = super::power(2.0, super::subtract(e.astype(DType::Float32)?, 10.0)?)?;
    let away = super::equal(up, super::greater(&f, 0.0)?)?;
    let halve = super::logical_and(
        super::logical_not(&away)?,
        super::logical_and(
            super::equal(&m, 0.5)?,
            super::greater(super::abs(&f)?, 2f64.powi(-14))?,
        )?,
    )?;
    let ulp = super::r#where(halve, super::multiply(&ulp, 0.5)?, &ulp)?;
    let zero = super::equal(&f, 0.0)?;
    let ulp = super::r#where(&zero, 2f64.powi(-24), ulp)?;
    let r = super::r#where(up, super::add(&f, &ulp)?, super::subtract(&f, &ulp)?)?;
    // From an infinity (only ever toward zero here) to the largest finite float16.
    let r = super::r#where(super::isinf(&f)?, super::copysign(65504.0, &f)?, r)?;
    r.astype(DType::Float16)
}

/// The distance from `x` to the next float away from zero (`x`'s sign; the smallest
/// subnormal at zero), as JAX computes it.
pub fn spacing(x: impl ArrayLike) -> Result<Array> {
    overridable!("spacing"; [one x]; []);
    let x = inexact_of("spacing", x)?;
    if x.dtype() == DType::Float16 {
        return super::subtract(nextafter(&x, f64::INFINITY)?, &x);
    }
    // On the bits: the difference of neighbours is subnormal below 2^-103 (2^-119 for
    // bfloat16), and adapters that flush subnormals (NVIDIA) would make it zero. With
    // exponent field e and m significand bits, the spacing is 2^(e - bias - m): a normal
    // float of field e - m, or below that the subnormal of bits 2^(e - 1) (1 for e = 0).
    let (int, m, top, largest) = match x.dtype() {
        DType::BFloat16 => (DType::Int16, 7, i64::from(i16::MAX), 0x7f7f),
        _ => (DType::Int32, 23, i64::from(i32::MAX), 0x7f7f_ffff),
    };
    let b = lax::bitcast_convert_type(&x, int)?;
    let e = super::bitwise_and(super::right_shift(&b, m)?, 0xff)?;
    let normal = super::left_shift(super::subtract(&e, m)?, m)?;
    let sub = super::left_shift(1, super::maximum(super::subtract(&e, 1)?, 0)?)?;
    let bits = super::r#where(super::greater(&e, m)?, normal, sub)?;
    let bits = super::bitwise_or(bits, super::bitwise_and(&b, -top - 1)?)?;
    let r = lax::bitcast_convert_type(&bits, x.dtype())?;
    // The largest finite value's neighbour is infinite; infinities and NaN give NaN.
    let inf = super::copysign(f64::INFINITY, &x)?.astype(x.dtype())?;
    let r = super::r#where(super::equal(super::bitwise_and(&b, top)?, largest)?, inf, r)?;
    super::r#where(super::equal(&e, 0xff)?, f64::NAN, r)
}

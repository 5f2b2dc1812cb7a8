//! Elementwise functions (ufuncs). Each promotes and broadcasts its operands with JAX's
//! rules, then binds `lax` primitives; every kernel comes from the one generator.

use super::overrides::overridable;
use super::promote_broadcast;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::{DType, TypeSpec};
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{BinaryOp, CompareOp, Literal, UnaryOp};

/// One operand, promoted (to float when `inexact`).
fn one(func: &str, x: impl ArrayLike, inexact: bool) -> Result<Array> {
    let mut v = promote_broadcast(func, vec![operand(func, 0, x)?], inexact)?;
    Ok(v.remove(0))
}

/// Two operands, promoted together and broadcast.
fn two(func: &str, x: impl ArrayLike, y: impl ArrayLike, inexact: bool) -> Result<(Array, Array)> {
    let ops = vec![operand(func, 0, x)?, operand(func, 1, y)?];
    let mut v = promote_broadcast(func, ops, inexact)?;
    let b = v.pop().expect("two operands");
    let a = v.pop().expect("two operands");
    Ok((a, b))
}

fn reject_bool(func: &str, x: &Array) -> Result<()> {
    if x.dtype() == DType::Bool {
        return Err(Error::dtype(
            func,
            &[DType::Bool],
            "is not defined for bool arrays (NumPy and JAX raise TypeError)",
        ));
    }
    Ok(())
}

/// Bool operands as int32 (JAX's `promote_args_numeric`: arithmetic that has no bool
/// meaning, such as `square` or `floor_divide`, counts `true` as 1).
fn numeric(x: Array) -> Result<Array> {
    if x.dtype() == DType::Bool {
        x.astype(DType::Int32)
    } else {
        Ok(x)
    }
}

fn reject_float(func: &str, x: &Array) -> Result<()> {
    if x.dtype().is_floating() {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "needs integer or bool operands",
        ));
    }
    Ok(())
}

/// `x` cast to bool (NumPy's truth value) unless it already is.
fn truth(x: &Array) -> Result<Array> {
    if x.dtype() == DType::Bool {
        Ok(x.clone())
    } else {
        x.astype(DType::Bool)
    }
}

macro_rules! float_unary {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Integer and bool inputs become float32 first; float16 is computed in float32 and
        /// rounded once.
        pub fn $name(x: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x]; []);
            lax::unary(UnaryOp::$op, &one(stringify!($name), x, true)?)
        }
    )*};
}

float_unary! {
    /// `√x` elementwise.
    sqrt => Sqrt;
    /// Cube root, real for negative inputs.
    cbrt => Cbrt;
    /// `e^x` elementwise.
    ///
    /// ```
    /// use olympus::numpy as np;
    /// let y = np::exp(np::array([0.0f32, 1.0])?)?;
    /// let v = y.to_vec::<f32>()?;
    /// assert_eq!(v[0], 1.0);
    /// assert!((v[1] - std::f32::consts::E).abs() < 1e-6);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    exp => Exp;
    /// `2^x` elementwise.
    exp2 => Exp2;
    /// `e^x - 1`, accurate near zero.
    expm1 => Expm1;
    /// Natural logarithm: XLA's float32 algorithm, bit for bit as JAX on CPU, including
    /// its flush-to-zero (a subnormal input gives `-inf`).
    ///
    /// ```
    /// use olympus::numpy as np;
    /// let v = np::log(np::array([1.0f32, 0.0, -1.0, 1e-40])?)?.to_vec::<f32>()?;
    /// assert_eq!(&v[..2], &[0.0, f32::NEG_INFINITY]);
    /// assert!(v[2].is_nan());
    /// assert_eq!(v[3], f32::NEG_INFINITY);
    /// # Ok::<(), olympus::Error>(())
    /// ```
    log => Log;
    /// Base-2 logarithm.
    log2 => Log2;
    /// Base-10 logarithm.
    log10 => Log10;
    /// `ln(1 + x)`, accurate near zero: XLA's float32 algorithm, bit for bit as JAX on
    /// CPU (a subnormal input reads as zero).
    log1p => Log1p;
    /// Sine.
    sin => Sin;
    /// Cosine.
    cos => Cos;
    /// Tangent.
    tan => Tan;
    /// Inverse sine.
    arcsin => Asin;
    /// Inverse cosine.
    arccos => Acos;
    /// Inverse tangent.
    arctan => Atan;
    /// Hyperbolic sine.
    sinh => Sinh;
    /// Hyperbolic cosine.
    cosh => Cosh;
    /// Hyperbolic tangent.
    tanh => Tanh;
    /// Inverse hyperbolic sine.
    arcsinh => Asinh;
    /// Inverse hyperbolic cosine.
    arccosh => Acosh;
    /// Inverse hyperbolic tangent.
    arctanh => Atanh;
    /// `1 / x`; integers become float32 first, as in JAX.
    reciprocal => Reciprocal;
}

/// `-x` elementwise (integers wrap: `-i32::MIN == i32::MIN`). Bool is an error.
pub fn negative(x: impl ArrayLike) -> Result<Array> {
    overridable!("negative"; [one x]; []);
    let x = one("negative", x, false)?;
    reject_bool("negative", &x)?;
    lax::unary(UnaryOp::Neg, &x)
}

/// `+x`: the input, promoted (bool stays bool, as in JAX).
pub fn positive(x: impl ArrayLike) -> Result<Array> {
    overridable!("positive"; [one x]; []);
    one("positive", x, false)
}

/// `|x|` elementwise (`abs(i32::MIN) == i32::MIN`, as in NumPy); bool is returned as is.
pub fn abs(x: impl ArrayLike) -> Result<Array> {
    overridable!("abs"; [one x]; []);
    let x = one("abs", x, false)?;
    match x.dtype() {
        DType::Bool | DType::UInt32 => Ok(x),
        _ => lax::unary(UnaryOp::Abs, &x),
    }
}

/// Same as [`abs`].
pub fn absolute(x: impl ArrayLike) -> Result<Array> {
    overridable!("absolute"; [one x]; []);
    abs(x)
}

/// -1, 0 or 1 by sign (NaN stays NaN, -0.0 stays -0.0). Bool is an error.
pub fn sign(x: impl ArrayLike) -> Result<Array> {
    overridable!("sign"; [one x]; []);
    let x = one("sign", x, false)?;
    reject_bool("sign", &x)?;
    lax::unary(UnaryOp::Sign, &x)
}

/// `x * x`, keeping integer dtypes (wrapping); bool becomes int32, as in JAX.
pub fn square(x: impl ArrayLike) -> Result<Array> {
    overridable!("square"; [one x]; []);
    lax::unary(UnaryOp::Square, &numeric(one("square", x, false)?)?)
}

/// Degrees to radians.
pub fn deg2rad(x: impl ArrayLike) -> Result<Array> {
    overridable!("deg2rad"; [one x]; []);
    multiply(one("deg2rad", x, true)?, std::f64::consts::PI / 180.0)
}

/// Radians to degrees.
pub fn rad2deg(x: impl ArrayLike) -> Result<Array> {
    overridable!("rad2deg"; [one x]; []);
    multiply(one("rad2deg", x, true)?, 180.0 / std::f64::consts::PI)
}

fn int_identity(func: &str, x: impl ArrayLike, op: UnaryOp) -> Result<Array> {
    let x = one(func, x, false)?;
    if x.dtype().is_floating() {
        lax::unary(op, &x)
    } else {
        // JAX returns integer and bool inputs unchanged.
        Ok(x)
    }
}

/// Largest integer `<= x`; integers are returned unchanged, as in JAX.
pub fn floor(x: impl ArrayLike) -> Result<Array> {
    overridable!("floor"; [one x]; []);
    int_identity("floor", x, UnaryOp::Floor)
}

/// Smallest integer `>= x`; integers are returned unchanged.
pub fn ceil(x: impl ArrayLike) -> Result<Array> {
    overridable!("ceil"; [one x]; []);
    int_identity("ceil", x, UnaryOp::Ceil)
}

/// Rounds toward zero; integers are returned unchanged.
pub fn trunc(x: impl ArrayLike) -> Result<Array> {
    overridable!("trunc"; [one x]; []);
    int_identity("trunc", x, UnaryOp::Trunc)
}

/// Rounds half to even; integers and bool become float32 first, as in JAX.
pub fn rint(x: impl ArrayLike) -> Result<Array> {
    overridable!("rint"; [one x]; []);
    lax::unary(UnaryOp::Round, &one("rint", x, true)?)
}

/// Rounds half to even at `decimals` decimal places (`np.round`); float16 is scaled in
/// float32. Integers are returned unchanged for `decimals >= 0`; negative decimals on
/// integers are an error, as in JAX.
///
/// ```
/// use olympus::numpy as np;
/// let r = np::round(np::array([0.5f32, 1.5, 2.5, 1.25])?, 0)?;
/// assert_eq!(r.to_vec::<f32>()?, vec![0.0, 2.0, 2.0, 1.0]);
/// let r = np::round(np::array([1.25f32, 123.456])?, 1)?;
/// assert_eq!(r.to_vec::<f32>()?, vec![1.2, 123.5]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn round(x: impl ArrayLike, decimals: i32) -> Result<Array> {
    overridable!("round"; [one x]; [decimals]);
    let x = one("round", x, false)?;
    if !x.dtype().is_floating() {
        if decimals < 0 {
            return Err(Error::arg(
                "round",
                "negative decimals on integer arrays are not implemented (as in JAX)",
            ));
        }
        return Ok(x);
    }
    if decimals == 0 {
        return lax::unary(UnaryOp::Round, &x);
    }
    let dtype = x.dtype();
    // Past the dtype's precision rounding changes nothing (JAX returns the input; the
    // factor would overflow).
    if dtype
        .max_finite()
        .is_some_and(|m| f64::from(decimals) > m.log10())
    {
        return Ok(x);
    }
    // JAX's `div(round(x * f), f)` for `f = 10^decimals` in `x`'s dtype (float16 in
    // float32), which XLA computes as a product by the constant's reciprocal rounded to
    // float32 (bfloat16's product in float32 too, rounded at the end).
    let wide = if dtype == DType::Float16 {
        DType::Float32
    } else {
        dtype
    };
    // (XLA:CPU flushes a subnormal factor to zero: 10^-40 in float32.)
    let factor = Literal::from_f64(10f64.powi(decimals), wide).to_f64();
    let factor = if factor < f64::from(f32::MIN_POSITIVE) {
        0.0
    } else {
        factor
    };
    let inverse = Literal::from_f64(1.0 / factor, DType::Float32).to_f64();
    let scaled = multiply(&x.astype(wide)?, factor)?;
    let rounded = lax::unary(UnaryOp::Round, &scaled)?.astype(DType::Float32)?;
    multiply(rounded, inverse)?.astype(dtype)
}

fn float_predicate(func: &str, x: impl ArrayLike, op: UnaryOp, int_value: bool) -> Result<Array> {
    let x = one(func, x, false)?;
    if x.dtype().is_floating() {
        lax::unary(op, &x)
    } else {
        super::full(x.shape(), int_value, None)
    }
}

/// True where `x` is NaN (never for integers).
pub fn isnan(x: impl ArrayLike) -> Result<Array> {
    overridable!("isnan"; [one x]; []);
    float_predicate("isnan", x, UnaryOp::IsNan, false)
}

/// True where `x` is ±inf (never for integers).
pub fn isinf(x: impl ArrayLike) -> Result<Array> {
    overridable!("isinf"; [one x]; []);
    float_predicate("isinf", x, UnaryOp::IsInf, false)
}

/// True where `x` is neither NaN nor ±inf (always for integers).
pub fn isfinite(x: impl ArrayLike) -> Result<Array> {
    overridable!("isfinite"; [one x]; []);
    float_predicate("isfinite", x, UnaryOp::IsFinite, true)
}

/// True where the sign bit is set (`-0.0` and negative NaN included).
pub fn signbit(x: impl ArrayLike) -> Result<Array> {
    overridable!("signbit"; [one x]; []);
    let x = one("signbit", x, false)?;
    match x.dtype() {
        d if d.is_signed_integer() => less(&x, 0),
        d if d.is_unsigned_integer() || d == DType::Bool => super::full(x.shape(), false, None),
        _ => lax::unary(UnaryOp::SignBit, &x),
    }
}

/// Logical not of the truth value of `x`.
pub fn logical_not(x: impl ArrayLike) -> Result<Array> {
    overridable!("logical_not"; [one x]; []);
    lax::unary(UnaryOp::Not, &truth(&one("logical_not", x, false)?)?)
}

/// Bitwise not (logical not on bool). Floats are an error.
pub fn invert(x: impl ArrayLike) -> Result<Array> {
    overridable!("invert"; [one x]; []);
    let x = one("invert", x, false)?;
    reject_float("invert", &x)?;
    lax::unary(UnaryOp::Not, &x)
}

/// The number of set bits of each element's absolute value, as uint8
/// (`jnp.bitwise_count`, NumPy's count of `|x|`'s ones); bool counts as 0 or 1. Floats are
/// an error.
///
/// ```
/// use olympus::numpy as np;
/// let c = np::bitwise_count(np::asarray(vec![-1i8, 5, 0, 127])?)?;
/// assert_eq!(c.to_vec::<u8>()?, vec![1, 2, 0, 7]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn bitwise_count(x: impl ArrayLike) -> Result<Array> {
    overridable!("bitwise_count"; [one x]; []);
    let func = "bitwise_count";
    let x = one(func, x, false)?;
    reject_float(func, &x)?;
    let x = if x.dtype() == DType::Bool {
        x.astype(DType::Int32)?
    } else {
        x
    };
    let a = if x.dtype().is_signed_integer() {
        lax::unary(UnaryOp::Abs, &x)?
    } else {
        x
    };
    lax::unary(UnaryOp::PopulationCount, &a)?.astype(DType::UInt8)
}

/// Same as [`invert`].
pub fn bitwise_not(x: impl ArrayLike) -> Result<Array> {
    overridable!("bitwise_not"; [one x]; []);
    let x = one("bitwise_not", x, false)?;
    reject_float("bitwise_not", &x)?;
    lax::unary(UnaryOp::Not, &x)
}

// ---- binary ----

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
    overridable!("add"; [one x, one y]; []);
    let (a, b) = two("add", x, y, false)?;
    lax::binary(BinaryOp::Add, &a, &b)
}

/// Elementwise `x - y`. Bool is an error.
pub fn subtract(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("subtract"; [one x, one y]; []);
    let (a, b) = two("subtract", x, y, false)?;
    reject_bool("subtract", &a)?;
    lax::binary(BinaryOp::Sub, &a, &b)
}

/// Elementwise `x * y` with broadcasting and promotion (logical and for bool). A bool mask
/// of the product's shape times a float32 or float16 value selects, as in JAX (XLA makes
/// `convert(mask) * x` a select): the product is +0.0 where the mask is false, even for a
/// NaN, infinite or negative `x`.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([[1.0f32], [2.0]])?;     // (2, 1)
/// let y = np::array([1.0f32, 10.0, 100.0])?; // (3,)
/// let z = np::multiply(&x, &y)?;             // (2, 3)
/// assert_eq!(z.to_vec::<f32>()?, vec![1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn multiply(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("multiply"; [one x, one y]; []);
    let ops = vec![operand("multiply", 0, x)?, operand("multiply", 1, y)?];
    // XLA rewrites `convert(mask) * x` into `select(mask, x, 0)` when the mask has the
    // product's shape and the product is float32 or float16, so in JAX `mask * x` is +0.0
    // where the mask is false even for NaN, infinite or negative `x`. Not for a mask that
    // is broadcast, nor for bfloat16.
    let mask = ops
        .iter()
        .position(|o| o.type_spec() == TypeSpec::strong(DType::Bool))
        .map(|i| (i, ops[i].clone()));
    let mut v = promote_broadcast("multiply", ops, false)?;
    let b = v.pop().expect("two operands");
    let a = v.pop().expect("two operands");
    if let Some((i, mask)) = mask {
        if matches!(a.dtype(), DType::Float32 | DType::Float16) && mask.shape() == a.shape() {
            let x = if i == 0 { &b } else { &a };
            let mask = mask.materialize("multiply", x.device(), TypeSpec::strong(DType::Bool))?;
            let zero = lax::full(
                x.shape(),
                Literal::F32(0.0).cast(x.dtype()),
                Some(x.device()),
            )?;
            return lax::select(&mask, x, &zero.with_weak(x.weak_type()));
        }
    }
    lax::binary(BinaryOp::Mul, &a, &b)
}

/// True division; integers become float32 first. A divisor that is broadcast (a scalar,
/// a row or a column of the result) divides as XLA computes `x / broadcast(y)`: `x *
/// broadcast(1 / y)`, the reciprocal rounded once per divisor element (bfloat16 in
/// float32, rounded at the end, as XLA:CPU computes it), which is a last-bit away from
/// the quotient for about a third of values; so `x / 3.0`, `mean` and `var` give JAX's
/// bits. A bool array divided by a scalar divides (`false / 0.0` is NaN), where XLA
/// turns it into a select and JAX gives 0.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([7.0f32, 7.0])?;
/// // By a scalar: 7 * f32(1 / 3), as JAX (2.3333335); elementwise: the quotient.
/// assert_eq!(np::divide(&x, 3.0)?.to_vec::<f32>()?, vec![7.0 * (1.0 / 3.0f32); 2]);
/// assert_eq!(np::divide(&x, np::array([3.0f32, 3.0])?)?.to_vec::<f32>()?, vec![7.0 / 3.0f32; 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn divide(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("divide"; [one x, one y]; []);
    quotient("divide", x, y)
}

/// Same as [`divide`].
pub fn true_divide(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("true_divide"; [one x, one y]; []);
    quotient("true_divide", x, y)
}

/// [`divide`]: the operands promoted (to inexact) and broadcast, with XLA's rewrite of a
/// broadcast divisor.
fn quotient(func: &str, x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    let ops = vec![operand(func, 0, x)?, operand(func, 1, y)?];
    let shapes: Vec<Vec<usize>> = ops.iter().map(|o| o.shape()).collect();
    let shape = crate::shape::broadcast_shapes_for(func, &[&shapes[0], &shapes[1]])?;
    let mut v = super::promote(func, ops, true)?;
    let b = v.pop().expect("two operands");
    let a = v.pop().expect("two operands");
    if b.shape() == shape.as_slice() {
        return lax::binary(BinaryOp::Div, &super::spread_to(&a, &shape)?, &b);
    }
    times_reciprocal(&a, &b, &shape)
}

/// `a / b` for a divisor `b` broadcast to `shape`, as XLA rewrites it: `a *
/// broadcast(1 / b)`, bfloat16 in float32 and rounded once.
fn times_reciprocal(a: &Array, b: &Array, shape: &[usize]) -> Result<Array> {
    let (dtype, weak) = (b.dtype(), a.weak_type() && b.weak_type());
    let wide = |x: &Array| match dtype {
        DType::BFloat16 => x.astype(DType::Float32),
        _ => Ok(x.clone()),
    };
    let spread = |a: &Array| super::spread_to(a, shape);
    let inverse = lax::unary(UnaryOp::Reciprocal, &wide(b)?)?;
    let q = lax::binary(BinaryOp::Mul, &spread(&wide(a)?)?, &spread(&inverse)?)?;
    Ok(q.astype(dtype)?.with_weak(weak))
}

/// Floor of the quotient (`x // y`). Integer division by zero gives JAX's values (-1 for
/// 0 // 0, -2 otherwise for int32; `u32::MAX` for uint32) and never faults. Bool
/// operands are counted as int32, as in JAX. Floats follow JAX's `(x - fmod(x, y)) / y`,
/// corrected by one where the remainder's sign differs from `y`'s and rounded; a divisor
/// that is broadcast divides as [`divide`]'s does (by its reciprocal, as XLA computes it).
pub fn floor_divide(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("floor_divide"; [one x, one y]; []);
    let func = "floor_divide";
    let ops = vec![operand(func, 0, x)?, operand(func, 1, y)?];
    let shapes: Vec<Vec<usize>> = ops.iter().map(|o| o.shape()).collect();
    let shape = crate::shape::broadcast_shapes_for(func, &[&shapes[0], &shapes[1]])?;
    let mut v = super::promote(func, ops, false)?;
    let b = numeric(v.pop().expect("two operands"))?;
    let a = numeric(v.pop().expect("two operands"))?;
    let spread = |a: &Array| super::spread_to(a, &shape);
    if !b.dtype().is_floating() || b.shape() == shape.as_slice() {
        return lax::binary(BinaryOp::FloorDiv, &spread(&a)?, &spread(&b)?);
    }
    let r = FLOOR_BY_RECIPROCAL.call((a.clone(), b.clone()))?;
    Ok(r.with_weak(a.weak_type() && b.weak_type()))
}

/// Two operands for integer arithmetic: promoted together, bool counted as int32.
fn two_numeric(func: &str, x: impl ArrayLike, y: impl ArrayLike) -> Result<(Array, Array)> {
    let (a, b) = two(func, x, y, false)?;
    Ok((numeric(a)?, numeric(b)?))
}

macro_rules! numeric_binary {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Bool operands are counted as int32, as in JAX.
        pub fn $name(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x, one y]; []);
            let (a, b) = two_numeric(stringify!($name), x, y)?;
            lax::binary(BinaryOp::$op, &a, &b)
        }
    )*};
}

numeric_binary! {
    /// Remainder with the sign of the divisor (`x % y`, NumPy's `mod`); `x % 0` is 0 for
    /// integers and NaN for floats.
    remainder => Rem;
}

type Pair = (Array, Array);
type PairFn = fn(Pair) -> Result<Array>;

/// The float quotient of a broadcast divisor, compiled once per shape and dtype (eagerly,
/// its twenty operations would be as many launches).
static FLOOR_BY_RECIPROCAL: std::sync::LazyLock<crate::jit::Jit<Pair, Array, PairFn>> =
    std::sync::LazyLock::new(|| crate::jit::jit(floor_by_reciprocal as PairFn));

/// JAX's `_float_divmod` quotient of `a` by the broadcast `b`, with XLA's product by the
/// reciprocal for the division and `lax.round`'s halves away from zero.
fn floor_by_reciprocal((a, b): Pair) -> Result<Array> {
    let shape = crate::shape::broadcast_shapes_for("floor_divide", &[a.shape(), b.shape()])?;
    let spread = |a: &Array| super::spread_to(a, &shape);
    let (x, y) = (spread(&a)?, spread(&b)?);
    let m = lax::binary(BinaryOp::Fmod, &x, &y)?;
    let zero = super::zeros_like(&y)?;
    let corrected = lax::select(
        &lax::compare(CompareOp::Eq, &y, &zero)?,
        &x,
        &lax::binary(BinaryOp::Sub, &x, &m)?,
    )?;
    let d = times_reciprocal(&corrected, &b, &shape)?;
    let off = super::logical_and(
        super::not_equal(&m, 0)?,
        super::not_equal(
            lax::unary(UnaryOp::Sign, &y)?,
            lax::unary(UnaryOp::Sign, &m)?,
        )?,
    )?;
    let d = super::r#where(off, super::subtract(&d, 1)?, &d)?;
    // lax.round rounds halves away from zero.
    let t = lax::unary(UnaryOp::Trunc, &d)?;
    let half = super::equal(super::abs(super::subtract(&d, &t)?)?, 0.5)?;
    let r = super::r#where(
        half,
        super::add(&t, lax::unary(UnaryOp::Sign, &d)?)?,
        lax::unary(UnaryOp::Round, &d)?,
    )?;
    Ok(r)
}

/// `x ** y`. Integer powers wrap (the full modular power, as NumPy computes it; JAX
/// reads only the low 6 bits of an array exponent, so `3 ** [64]` is 1 there). An integer
/// (or bool) base with a negative integer scalar exponent is an error, as JAX's
/// `integer_pow` raises; a negative exponent inside an integer array gives 0 (1 and ±1
/// for bases 1 and -1; JAX's bit loop gives other values). Bool operands are counted as
/// int32. Float powers follow C's special cases and are computed as `2^(y log2 x)` with
/// `log2 x` in float-float, within 2 ulp.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([1i32, 2, 4])?;
/// assert_eq!(np::power(&x, 2)?.to_vec::<i32>()?, vec![1, 4, 16]);
/// assert!(np::power(&x, -1).is_err()); // JAX: integers cannot be raised to negative powers
/// assert_eq!(np::power(&x, -1.0)?.to_vec::<f32>()?, vec![1.0, 0.5, 0.25]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn power(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("power"; [one x, one y]; []);
    let ops = vec![operand("power", 0, x)?, operand("power", 1, y)?];
    use crate::convert::Operand;
    let negative_literal = match ops[1] {
        Operand::WeakInt(v) => (v < 0).then_some(v),
        _ => None,
    };
    let literal_exponent = match ops[1] {
        Operand::WeakInt(v) => Some(v),
        _ => None,
    };
    // JAX raises to a literal integer with `integer_pow`, whose derivative at exponent 0
    // is 0 everywhere (a float 0.0 gives `0 * x^-1`: NaN at x = 0).
    let zeroth = matches!(ops[1], Operand::WeakInt(0));
    // JAX's integer result is weak as the base is for a scalar exponent (`integer_pow`),
    // and only from two weak operands otherwise (its bit loop accumulates in a strong
    // array).
    let weak_int = match ops[1] {
        Operand::WeakInt(_) | Operand::Bool(_) => ops[0].type_spec().weak,
        _ => ops.iter().all(|o| o.type_spec().weak),
    };
    let mut v = promote_broadcast("power", ops, false)?;
    let b = numeric(v.pop().expect("two operands"))?;
    let a = numeric(v.pop().expect("two operands"))?;
    if let (Some(e), true) = (negative_literal, a.dtype().is_integer()) {
        return Err(Error::dtype(
            "power",
            &[a.dtype()],
            format!("integers cannot be raised to negative powers (exponent {e}), as in JAX"),
        ));
    }
    // A literal integer exponent of a float is JAX's `integer_pow`: repeated squaring (and
    // a reciprocal), whose last bits often differ from `pow`'s, so that ported code gets
    // JAX's values and derivatives.
    let literal = match (&literal_exponent, a.dtype().is_floating()) {
        (Some(n), true) => i32::try_from(*n).ok().filter(|&n| n != 0),
        _ => None,
    };
    if let Some(n) = literal {
        return crate::jit::ad::integer_pow(&a, n);
    }
    let mut r = lax::binary(BinaryOp::Pow, &a, &b)?;
    if zeroth {
        r = lax::stop_gradient(&r)?;
    }
    if r.dtype().is_integer() && r.weak_type() != weak_int {
        Ok(r.with_weak(weak_int))
    } else {
        Ok(r)
    }
}

/// Remainder with the sign of the dividend (C's `fmod`), exact for floats. Integer
/// `fmod(x, 0)` is 0. Bool operands give int32, and `fmod(true, false)` is 1, as in JAX
/// (whose zero-divisor guard skips bool and whose remainder by zero is the dividend).
pub fn fmod(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("fmod"; [one x, one y]; []);
    let (a, b) = two("fmod", x, y, false)?;
    if a.dtype() == DType::Bool {
        let r = lax::binary(BinaryOp::And, &a, &lax::unary(UnaryOp::Not, &b)?)?;
        return r.astype(DType::Int32);
    }
    lax::binary(BinaryOp::Fmod, &a, &b)
}

/// Same as [`remainder`].
pub fn r#mod(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("mod"; [one x, one y]; []);
    let (a, b) = two_numeric("mod", x, y)?;
    lax::binary(BinaryOp::Rem, &a, &b)
}

/// Elementwise maximum; NaN propagates.
pub fn maximum(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("maximum"; [one x, one y]; []);
    let (a, b) = two("maximum", x, y, false)?;
    lax::binary(BinaryOp::Max, &a, &b)
}

/// Elementwise minimum; NaN propagates.
pub fn minimum(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("minimum"; [one x, one y]; []);
    let (a, b) = two("minimum", x, y, false)?;
    lax::binary(BinaryOp::Min, &a, &b)
}

/// Elementwise maximum ignoring NaN (NaN only where both are NaN).
pub fn fmax(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("fmax"; [one x, one y]; []);
    let (a, b) = two("fmax", x, y, false)?;
    let op = if a.dtype().is_floating() {
        BinaryOp::Fmax
    } else {
        BinaryOp::Max
    };
    lax::binary(op, &a, &b)
}

/// Elementwise minimum ignoring NaN (NaN only where both are NaN).
pub fn fmin(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("fmin"; [one x, one y]; []);
    let (a, b) = two("fmin", x, y, false)?;
    let op = if a.dtype().is_floating() {
        BinaryOp::Fmin
    } else {
        BinaryOp::Min
    };
    lax::binary(op, &a, &b)
}

macro_rules! float_binary {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// Integer and bool inputs become float32 first.
        pub fn $name(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x, one y]; []);
            let (a, b) = two(stringify!($name), x, y, true)?;
            lax::binary(BinaryOp::$op, &a, &b)
        }
    )*};
}

float_binary! {
    /// Angle of the point `(x2, x1)` (`arctan2(y, x)`), in `[-π, π]`.
    arctan2 => Atan2;
    /// `√(x² + y²)` without overflow or underflow in between.
    hypot => Hypot;
    /// `|x|` with the sign of `y`.
    copysign => Copysign;
    /// `ln(e^x + e^y)` without overflow.
    logaddexp => LogAddExp;
    /// `log2(2^x + 2^y)` without overflow.
    logaddexp2 => LogAddExp2;
}

macro_rules! comparison {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x, one y]; []);
            let (a, b) = two(stringify!($name), x, y, false)?;
            lax::compare(CompareOp::$op, &a, &b)
        }
    )*};
}

comparison! {
    /// `x == y` elementwise (NaN is unequal to everything).
    equal => Eq;
    /// `x != y` elementwise (true where either is NaN).
    not_equal => Ne;
    /// `x < y` elementwise.
    less => Lt;
    /// `x <= y` elementwise.
    less_equal => Le;
    /// `x > y` elementwise.
    greater => Gt;
    /// `x >= y` elementwise.
    greater_equal => Ge;
}

macro_rules! logical {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x, one y]; []);
            let (a, b) = two(stringify!($name), x, y, false)?;
            lax::binary(BinaryOp::$op, &truth(&a)?, &truth(&b)?)
        }
    )*};
}

logical! {
    /// Logical and of the truth values.
    logical_and => And;
    /// Logical or of the truth values.
    logical_or => Or;
    /// Logical exclusive or of the truth values.
    logical_xor => Xor;
}

macro_rules! bitwise {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x, one y]; []);
            let (a, b) = two(stringify!($name), x, y, false)?;
            reject_float(stringify!($name), &a)?;
            lax::binary(BinaryOp::$op, &a, &b)
        }
    )*};
}

bitwise! {
    /// Bitwise and (logical on bool).
    bitwise_and => And;
    /// Bitwise or (logical on bool).
    bitwise_or => Or;
    /// Bitwise exclusive or (logical on bool).
    bitwise_xor => Xor;
}

macro_rules! integer_binary {
    ($($(#[$doc:meta])* $name:ident => $op:ident, $bool_ok:expr, $loop_weak:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
            overridable!(stringify!($name); [one x, one y]; []);
            let func = stringify!($name);
            let ops = vec![operand(func, 0, x)?, operand(func, 1, y)?];
            let both_weak = ops.iter().all(|o| o.type_spec().weak);
            let mut v = promote_broadcast(func, ops, false)?;
            let (b, a) = (v.pop().expect("two operands"), v.pop().expect("two operands"));
            let (a, b) = if $bool_ok { (numeric(a)?, numeric(b)?) } else { (a, b) };
            if !a.dtype().is_integer() {
                return Err(Error::dtype(func, &[a.dtype()], "needs integer operands"));
            }
            let r = lax::binary(BinaryOp::$op, &a, &b)?;
            // JAX computes gcd and lcm in a loop over strong arrays: weak only from two
            // weak scalars.
            if $loop_weak && r.weak_type() && !both_weak {
                Ok(r.with_weak(false))
            } else {
                Ok(r)
            }
        }
    )*};
}

integer_binary! {
    /// `x << y`; shifting by 32 or more (or a negative count) gives 0, as in JAX. Bool
    /// operands are counted as int32.
    left_shift => ShiftLeft, true, false;
    /// `x >> y`, arithmetic for int32 and logical for uint32; counts of 32 or more give
    /// the sign fill (0 or -1). Bool operands are counted as int32.
    right_shift => ShiftRight, true, false;
    /// Greatest common divisor (non-negative; `gcd(0, 0) == 0`). Two bool operands are an
    /// error, as in JAX (a bool with an integer promotes to the integer).
    gcd => Gcd, false, true;
    /// Least common multiple (non-negative, wrapping on overflow; `lcm(0, y) == 0`). Two
    /// bool operands are an error, as in JAX.
    lcm => Lcm, false, true;
}

// ---- others ----

/// `x` where `condition` is true, else `y` (`np.where` with three arguments); `condition`
/// is converted to its truth value, `x` and `y` promote together, all three broadcast.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::arange(5)?;
/// let y = np::r#where(np::less(&x, 2)?, &x, -1)?;
/// assert_eq!(y.to_vec::<i32>()?, vec![0, 1, -1, -1, -1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn r#where(condition: impl ArrayLike, x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("where"; [one condition, one x, one y]; []);
    let c = operand("where", 0, condition)?;
    let ops = vec![operand("where", 1, x)?, operand("where", 2, y)?];
    let shapes = [c.shape(), ops[0].shape(), ops[1].shape()];
    let refs: Vec<&[usize]> = shapes.iter().map(|s| s.as_slice()).collect();
    let shape = crate::shape::broadcast_shapes_for("where", &refs)?;
    let mut v = promote_broadcast("where", ops, false)?;
    let b = v.pop().expect("two cases");
    let a = v.pop().expect("two cases");
    let c = truth(&super::asarray(c)?)?;
    let bcast = |t: &Array| -> Result<Array> {
        if t.shape() == shape.as_slice() {
            Ok(t.clone())
        } else {
            let dims: Vec<usize> = (shape.len() - t.ndim()..shape.len()).collect();
            lax::broadcast_in_dim(t, &shape, &dims)
        }
    };
    lax::select(&bcast(&c)?, &bcast(&a)?, &bcast(&b)?)
}

/// Limits values to `[a_min, a_max]` (`minimum(maximum(x, a_min), a_max)`, so NaN
/// propagates as in JAX). Pass `f32::NEG_INFINITY` / `f32::INFINITY` for an open side.
pub fn clip(x: impl ArrayLike, a_min: impl ArrayLike, a_max: impl ArrayLike) -> Result<Array> {
    overridable!("clip"; [one x, one a_min, one a_max]; []);
    let lo = maximum(operand("clip", 0, x)?, operand("clip", 1, a_min)?)?;
    minimum(lo, operand("clip", 2, a_max)?)
}

/// Replaces NaN with `nan`, +inf with `posinf` (default: the dtype's largest finite
/// value) and -inf with `neginf` (default: the most negative finite value). Integers pass
/// through.
pub fn nan_to_num(
    x: impl ArrayLike,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
) -> Result<Array> {
    overridable!("nan_to_num"; [one x]; [nan, posinf, neginf]);
    let x = one("nan_to_num", x, false)?;
    let Some(big) = x.dtype().max_finite() else {
        return Ok(x);
    };
    let posinf = posinf.unwrap_or(big);
    let neginf = neginf.unwrap_or(-big);
    let y = r#where(isnan(&x)?, super::full_like(&x, nan)?, &x)?;
    let y = r#where(
        logical_and(isinf(&y)?, greater(&y, 0)?)?,
        super::full_like(&x, posinf)?,
        &y,
    )?;
    r#where(
        logical_and(isinf(&y)?, less(&y, 0)?)?,
        super::full_like(&x, neginf)?,
        &y,
    )
}

/// `|a - b| <= atol + rtol * |b|` elementwise, with infinities equal only to themselves
/// and NaN equal to NaN only when `equal_nan` (`np.isclose`). Integers compare in float32.
pub fn isclose(
    a: impl ArrayLike,
    b: impl ArrayLike,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<Array> {
    overridable!("isclose"; [one a, one b]; [rtol, atol, equal_nan]);
    let (a, b) = two("isclose", a, b, false)?;
    if a.dtype() == DType::Bool {
        return equal(&a, &b);
    }
    let (a, b) = if a.dtype().is_floating() {
        (a, b)
    } else {
        (a.astype(DType::Float32)?, b.astype(DType::Float32)?)
    };
    let tol = add(multiply(abs(&b)?, rtol)?, atol)?;
    let close = less_equal(abs(subtract(&a, &b)?)?, tol)?;
    let inf = logical_or(isinf(&a)?, isinf(&b)?)?;
    let close = r#where(inf, equal(&a, &b)?, close)?;
    if equal_nan {
        logical_or(close, logical_and(isnan(&a)?, isnan(&b)?)?)
    } else {
        Ok(close)
    }
}

// The Array API's names for NumPy's functions (NumPy 2 and JAX have both).

/// Same as [`arccos`] (the Array API's name).
pub fn acos(x: impl ArrayLike) -> Result<Array> {
    overridable!("acos"; [one x]; []);
    arccos(x)
}

/// Same as [`arccosh`] (the Array API's name).
pub fn acosh(x: impl ArrayLike) -> Result<Array> {
    overridable!("acosh"; [one x]; []);
    arccosh(x)
}

/// Same as [`arcsin`] (the Array API's name).
pub fn asin(x: impl ArrayLike) -> Result<Array> {
    overridable!("asin"; [one x]; []);
    arcsin(x)
}

/// Same as [`arcsinh`] (the Array API's name).
pub fn asinh(x: impl ArrayLike) -> Result<Array> {
    overridable!("asinh"; [one x]; []);
    arcsinh(x)
}

/// Same as [`arctan`] (the Array API's name).
pub fn atan(x: impl ArrayLike) -> Result<Array> {
    overridable!("atan"; [one x]; []);
    arctan(x)
}

/// Same as [`arctanh`] (the Array API's name).
pub fn atanh(x: impl ArrayLike) -> Result<Array> {
    overridable!("atanh"; [one x]; []);
    arctanh(x)
}

/// [`arctan2`] under the Array API's name, with JAX's quirk: the operands are promoted
/// to their common dtype first, as for `add`, and only then to a float, so integers
/// that their common dtype cannot hold wrap (an int8 array with 300: atan2 of 44).
pub fn atan2(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("atan2"; [one x, one y]; []);
    let (x, y) = super::promote_pair("atan2", x, y, false)?;
    arctan2(x, y)
}

/// Same as [`invert`] (the Array API's name).
pub fn bitwise_invert(x: impl ArrayLike) -> Result<Array> {
    overridable!("bitwise_invert"; [one x]; []);
    invert(x)
}

/// Same as [`left_shift`] (the Array API's name).
pub fn bitwise_left_shift(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("bitwise_left_shift"; [one x, one y]; []);
    left_shift(x, y)
}

/// Same as [`right_shift`] (the Array API's name).
pub fn bitwise_right_shift(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("bitwise_right_shift"; [one x, one y]; []);
    right_shift(x, y)
}

/// Same as [`power`] (the Array API's name).
pub fn pow(x: impl ArrayLike, y: impl ArrayLike) -> Result<Array> {
    overridable!("pow"; [one x, one y]; []);
    power(x, y)
}

/// Same as [`rad2deg`].
pub fn degrees(x: impl ArrayLike) -> Result<Array> {
    overridable!("degrees"; [one x]; []);
    rad2deg(x)
}

/// Same as [`deg2rad`].
pub fn radians(x: impl ArrayLike) -> Result<Array> {
    overridable!("radians"; [one x]; []);
    deg2rad(x)
}

/// `|x|` in a floating dtype: integers and bool convert to float32 first (JAX's
/// `promote_args_inexact`), unlike [`abs`].
pub fn fabs(x: impl ArrayLike) -> Result<Array> {
    overridable!("fabs"; [one x]; []);
    lax::unary(UnaryOp::Abs, &one("fabs", x, true)?)
}

/// True where `x` is -inf (never for integers or bool).
pub fn isneginf(x: impl ArrayLike) -> Result<Array> {
    overridable!("isneginf"; [one x]; []);
    signed_inf("isneginf", x, f64::NEG_INFINITY)
}

/// True where `x` is +inf (never for integers or bool).
pub fn isposinf(x: impl ArrayLike) -> Result<Array> {
    overridable!("isposinf"; [one x]; []);
    signed_inf("isposinf", x, f64::INFINITY)
}

fn signed_inf(func: &str, x: impl ArrayLike, inf: f64) -> Result<Array> {
    let x = one(func, x, false)?;
    if x.dtype().is_floating() {
        equal(&x, inf)
    } else {
        // Integers hold no infinity: all false, of x's shape.
        not_equal(&x, &x)
    }
}

/// The Heaviside step: 0 where `x1 < 0`, 1 where `x1 > 0`, `x2` where `x1` is 0, and NaN
/// where `x1` is NaN, in a floating dtype.
pub fn heaviside(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("heaviside"; [one x1, one x2]; []);
    let (x1, x2) = two("heaviside", x1, x2, true)?;
    // Comparisons with NaN are false, so NaN falls through to itself.
    let step = r#where(greater(&x1, 0.0)?, 1.0, &x1)?;
    let step = r#where(less(&x1, 0.0)?, 0.0, step)?;
    r#where(equal(&x1, 0.0)?, &x2, step)
}

/// The normalized sinc, `sin(πx) / (πx)`, with 1 at 0, in a floating dtype.
pub fn sinc(x: impl ArrayLike) -> Result<Array> {
    overridable!("sinc"; [one x]; []);
    let x = one("sinc", x, true)?;
    let zero = equal(&x, 0.0)?;
    let pi_x = multiply(&x, std::f64::consts::PI)?;
    // A safe divisor where x is 0, whose quotient the `where` then discards.
    let safe = r#where(&zero, 1.0, &pi_x)?;
    // At 0 the value is the series' first term, whose derivatives are the later terms.
    r#where(zero, sinc_maclaurin(0, &pi_x)?, divide(sin(&safe)?, &safe)?)
}

/// `x * 0 + c_k`, with `c_k` the `k`-th derivative of `sin(x) / x` at 0, and a JVP rule
/// giving the next derivative (JAX's `_sinc_maclaurin`): `sinc`'s derivatives of every
/// order at 0 are these constants, where those of `sin(x) / x` would divide by zero.
fn sinc_maclaurin(k: u32, x: &Array) -> Result<Array> {
    let term = move |x: &Array| -> Result<Array> {
        let zero = multiply(x, 0.0)?;
        if k % 2 == 1 {
            return Ok(zero);
        }
        let sign = if (k / 2).is_multiple_of(2) { 1.0 } else { -1.0 };
        add(zero, sign / f64::from(k + 1))
    };
    crate::jit::custom_jvp(
        move |x: Array| term(&x),
        move |x: Array, t: Array| -> Result<(Array, Array)> {
            Ok((term(&x)?, multiply(sinc_maclaurin(k + 1, &x)?, &t)?))
        },
    )
    .named("sinc_maclaurin")
    .call(x.clone())
}

/// `num` numbers spaced evenly on a log scale: `base ** linspace(start, stop, num,
/// endpoint)`, in float32.
pub fn logspace(start: f64, stop: f64, num: usize, endpoint: bool, base: f64) -> Result<Array> {
    let exponents = super::linspace(start, stop, num, endpoint)?;
    power(Array::scalar(base as f32)?, exponents)
}

/// [`logspace`] in `dtype` (JAX's `dtype=`): exponents and powers computed in `dtype`
/// where it is a float, else in float32 and then converted (integers truncate, as JAX's:
/// `logspace_with(0.0, 2.0, 5, true, 10.0, Int32)` is `[1, 3, 10, 31, 100]`).
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let x = np::logspace_with(0.0, 2.0, 5, true, 10.0, DType::Int32)?;
/// assert_eq!(x.to_vec::<i32>()?, vec![1, 3, 10, 31, 100]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn logspace_with(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    base: f64,
    dtype: DType,
) -> Result<Array> {
    let compute = if dtype.is_floating() {
        dtype
    } else {
        DType::Float32
    };
    let exponents = super::linspace_with(start, stop, num, endpoint, compute)?;
    let base = Array::scalar(base as f32)?.astype(compute)?;
    power(base, exponents)?.astype(dtype)
}

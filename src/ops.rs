//! Operators on arrays: `+ - * / %`, unary `-` and `!`, `& | ^ << >>`.
//!
//! They call the numpy functions, so they broadcast and promote the same way, and they
//! return `Result<Array>` instead of panicking on a shape error. Arrays (owned or
//! borrowed) and Rust scalars work on either side, and `Result<Array>` works on the left
//! of an array, so an expression chains and ends with one `?`:
//!
//! ```
//! use olympus::numpy as np;
//! let a = np::array([1.0f32, 2.0, 3.0])?;
//! let b = np::array([4.0f32, 5.0, 6.0])?;
//! let c = ((&a * &b) + &a)?;            // one `?` at the end
//! let d = ((2.0 * &c)? - 1.0)?;         // scalars on either side
//! assert_eq!(d.to_vec::<f32>()?, vec![9.0, 23.0, 41.0]);
//! let e = (&a + np::array([1.0f32, 2.0])?);  // shape errors are errors, not panics
//! assert!(e.is_err());
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! Rust's orphan rules allow `Result<Array>` on the left of an array but not of a scalar
//! or of another `Result`: write `(x * 2.0)? + 1.0` there. On the left of an array, the
//! scalar types are `f64` and `i32`, so unsuffixed literals (`2.0 * &x`, `1 - &x`) infer.

use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};

use crate::array::Array;
use crate::convert::ArrayLike;
use crate::error::Result;

/// Rust scalars usable on the right of an array operator (weakly typed, as in the numpy
/// functions). On the left, `f64` and `i32` (the types of unsuffixed literals) work.
pub trait Scalar: ArrayLike + Copy {}
impl Scalar for f32 {}
impl Scalar for f64 {}
impl Scalar for i32 {}
impl Scalar for i64 {}
impl Scalar for u32 {}
impl Scalar for usize {}
impl Scalar for bool {}
impl Scalar for half::f16 {}
use crate::numpy as np;

macro_rules! binary_ops {
    ($($trait:ident $method:ident $func:ident;)*) => {$(
        impl $trait<Array> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> { np::$func(&self, &rhs) }
        }
        impl $trait<&Array> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> { np::$func(&self, rhs) }
        }
        impl $trait<Array> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> { np::$func(self, &rhs) }
        }
        impl $trait<&Array> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> { np::$func(self, rhs) }
        }
        impl $trait<Result<Array>> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: Result<Array>) -> Result<Array> { np::$func(&self, &rhs?) }
        }
        impl $trait<Result<Array>> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: Result<Array>) -> Result<Array> { np::$func(self, &rhs?) }
        }
        impl $trait<Array> for Result<Array> {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> { np::$func(&self?, &rhs) }
        }
        impl $trait<&Array> for Result<Array> {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> { np::$func(&self?, rhs) }
        }
        impl<S: Scalar> $trait<S> for Array {
            type Output = Result<Array>;
            fn $method(self, rhs: S) -> Result<Array> { np::$func(&self, rhs) }
        }
        impl<S: Scalar> $trait<S> for &Array {
            type Output = Result<Array>;
            fn $method(self, rhs: S) -> Result<Array> { np::$func(self, rhs) }
        }
        binary_ops!(@scalars $trait $method $func; f64 i32);
    )*};
    (@scalars $trait:ident $method:ident $func:ident; $($s:ty)*) => {$(
        impl $trait<Array> for $s {
            type Output = Result<Array>;
            fn $method(self, rhs: Array) -> Result<Array> { np::$func(self, &rhs) }
        }
        impl $trait<&Array> for $s {
            type Output = Result<Array>;
            fn $method(self, rhs: &Array) -> Result<Array> { np::$func(self, rhs) }
        }
    )*};
}

binary_ops! {
    Add add add;
    Sub sub subtract;
    Mul mul multiply;
    Div div divide;
    Rem rem remainder;
    BitAnd bitand bitwise_and;
    BitOr bitor bitwise_or;
    BitXor bitxor bitwise_xor;
    Shl shl left_shift;
    Shr shr right_shift;
}

impl Neg for Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        np::negative(&self)
    }
}

impl Neg for &Array {
    type Output = Result<Array>;
    fn neg(self) -> Result<Array> {
        np::negative(self)
    }
}

/// `!x`: bitwise not for integers, logical not for bool (`np.invert`).
impl Not for Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        np::invert(&self)
    }
}

impl Not for &Array {
    type Output = Result<Array>;
    fn not(self) -> Result<Array> {
        np::invert(self)
    }
}

/// Gives a user type that implements [`SupportsOlympusArray`](crate::SupportsOlympusArray)
/// the arithmetic, bitwise and shift operators with arrays, Rust scalars and itself, on
/// either side (through the protocol; results are `Result<Array>`). Use it on the type;
/// the operators take `&YourType`.
///
/// ```
/// use olympus::{numpy as np, Array, Result, SupportsOlympusArray};
///
/// struct Meters(Vec<f32>);
/// impl SupportsOlympusArray for Meters {
///     fn olympus_array(&self) -> Result<Array> { np::asarray(self.0.clone()) }
/// }
/// olympus::impl_array_ops!(Meters);
///
/// let d = Meters(vec![1.0, 2.0]);
/// let a = np::array([10.0f32, 20.0])?;
/// assert_eq!((&d + &a)?.to_vec::<f32>()?, vec![11.0, 22.0]);
/// assert_eq!((&a * &d)?.to_vec::<f32>()?, vec![10.0, 40.0]);
/// assert_eq!((2.0 * &d)?.to_vec::<f32>()?, vec![2.0, 4.0]);
/// assert_eq!((&d - 1)?.to_vec::<f32>()?, vec![0.0, 1.0]);
/// assert_eq!((&d / &d)?.to_vec::<f32>()?, vec![1.0, 1.0]);
/// assert_eq!((-&d)?.to_vec::<f32>()?, vec![-1.0, -2.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
#[macro_export]
macro_rules! impl_array_ops {
    ($t:ty) => {
        $crate::impl_array_ops!(@ops $t;
            Add add add; Sub sub subtract; Mul mul multiply; Div div divide;
            Rem rem remainder; BitAnd bitand bitwise_and; BitOr bitor bitwise_or;
            BitXor bitxor bitwise_xor; Shl shl left_shift; Shr shr right_shift;);
        impl ::std::ops::Neg for &$t {
            type Output = $crate::Result<$crate::Array>;
            fn neg(self) -> $crate::Result<$crate::Array> {
                $crate::numpy::negative(self)
            }
        }
        impl ::std::ops::Not for &$t {
            type Output = $crate::Result<$crate::Array>;
            fn not(self) -> $crate::Result<$crate::Array> {
                $crate::numpy::invert(self)
            }
        }
    };
    (@ops $t:ty; $($tr:ident $m:ident $f:ident;)*) => {$(
        impl ::std::ops::$tr<&$t> for $crate::Array {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: &$t) -> $crate::Result<$crate::Array> { $crate::numpy::$f(&self, rhs) }
        }
        impl ::std::ops::$tr<&$t> for &$crate::Array {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: &$t) -> $crate::Result<$crate::Array> { $crate::numpy::$f(self, rhs) }
        }
        impl ::std::ops::$tr<$crate::Array> for &$t {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: $crate::Array) -> $crate::Result<$crate::Array> { $crate::numpy::$f(self, &rhs) }
        }
        impl ::std::ops::$tr<&$crate::Array> for &$t {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: &$crate::Array) -> $crate::Result<$crate::Array> { $crate::numpy::$f(self, rhs) }
        }
        impl ::std::ops::$tr<&$t> for &$t {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: &$t) -> $crate::Result<$crate::Array> { $crate::numpy::$f(self, rhs) }
        }
        $crate::impl_array_ops!(@right $t; $tr $m $f; f64 i32);
        // Rust scalars: the types of unsuffixed literals, so `&x * 2.0` and `1 + &x` infer.
        $crate::impl_array_ops!(@left $t; $tr $m $f; f64 i32);
    )*};
    (@right $t:ty; $tr:ident $m:ident $f:ident; $($s:ty)*) => {$(
        impl ::std::ops::$tr<$s> for &$t {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: $s) -> $crate::Result<$crate::Array> { $crate::numpy::$f(self, rhs) }
        }
    )*};
    (@left $t:ty; $tr:ident $m:ident $f:ident; $($s:ty)*) => {$(
        impl ::std::ops::$tr<&$t> for $s {
            type Output = $crate::Result<$crate::Array>;
            fn $m(self, rhs: &$t) -> $crate::Result<$crate::Array> { $crate::numpy::$f(self, rhs) }
        }
    )*};
}

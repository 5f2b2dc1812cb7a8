//! Questions about dtypes (`can_cast`, `isdtype`, `issubdtype`) and scalars (`isscalar`),
//! answered for Olympus's dtypes as JAX 0.10.2 answers them, and NumPy's print options.

use super::overrides::overridable;
use crate::convert::{operand, ArrayLike, IntoParam, Param};
use crate::dtype::DType;
use crate::error::Result;

/// How strictly [`can_cast`] judges a conversion (NumPy's `casting=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Casting {
    /// Only the same dtype.
    No,
    /// The same dtype (byte orders do not arise here).
    Equiv,
    /// Every value converts exactly.
    #[default]
    Safe,
    /// Safe, or within a kind (integers to any float, float32 to float16).
    SameKind,
    /// Any conversion.
    Unsafe,
}

/// Whether values of `from` may convert to `to` under `casting`.
///
/// ```
/// use olympus::numpy::{self as np, Casting, DType};
/// assert!(np::can_cast(DType::Float16, DType::Float32, Casting::Safe));
/// assert!(!np::can_cast(DType::Int32, DType::Float32, Casting::Safe));
/// assert!(np::can_cast(DType::Int32, DType::Float16, Casting::SameKind));
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    let range = |d: DType| d.integer_range();
    // Significant bits of each float (integers of at most that many magnitude bits fit).
    let precision = |d: DType| match d {
        DType::BFloat16 => 8,
        DType::Float16 => 11,
        _ => 24,
    };
    let safe = from == to
        || from.is_bool()
        || match (range(from), range(to)) {
            (Some((lo, hi)), Some((tlo, thi))) => tlo <= lo && hi <= thi,
            (Some(_), None) if to.is_floating() => {
                from.bits() - u32::from(from.is_signed()) <= precision(to)
            }
            _ => from.is_floating() && to == DType::Float32,
        };
    match casting {
        Casting::No | Casting::Equiv => from == to,
        Casting::Safe => safe,
        Casting::SameKind => {
            safe || from.is_floating() && to.is_floating()
                || from.is_integer() && to.is_floating()
                || from.is_unsigned_integer() && to.is_integer()
                || from.is_signed_integer() && to.is_signed_integer()
        }
        Casting::Unsafe => true,
    }
}

/// A kind of dtype for [`isdtype`] (the Array API's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `"bool"`.
    Bool,
    /// `"signed integer"`.
    SignedInteger,
    /// `"unsigned integer"`.
    UnsignedInteger,
    /// `"integral"`: signed or unsigned integers.
    Integral,
    /// `"real floating"`.
    RealFloating,
    /// `"complex floating"` (no Olympus dtype yet).
    ComplexFloating,
    /// `"numeric"`: integers and floats.
    Numeric,
    /// One dtype exactly.
    Is(DType),
}

impl From<DType> for Kind {
    fn from(d: DType) -> Kind {
        Kind::Is(d)
    }
}

/// Whether `dtype` is of `kind` (the Array API's `isdtype`).
pub fn isdtype(dtype: DType, kind: impl Into<Kind>) -> bool {
    use DType::*;
    match kind.into() {
        Kind::Bool => dtype == Bool,
        Kind::SignedInteger => dtype.is_signed_integer(),
        Kind::UnsignedInteger => dtype.is_unsigned_integer(),
        Kind::Integral => dtype.is_integer(),
        Kind::RealFloating => dtype.is_floating(),
        Kind::ComplexFloating => false,
        Kind::Numeric => dtype != Bool,
        Kind::Is(d) => dtype == d,
    }
}

/// A class of NumPy's dtype hierarchy for [`issubdtype`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DTypeClass {
    /// `np.generic`: every dtype.
    Generic,
    /// `np.number`: every dtype but bool.
    Number,
    /// `np.integer`.
    Integer,
    /// `np.signedinteger`.
    SignedInteger,
    /// `np.unsignedinteger`.
    UnsignedInteger,
    /// `np.inexact`.
    Inexact,
    /// `np.floating`.
    Floating,
    /// One dtype exactly (`np.bool_` is `Exact(DType::Bool)`).
    Exact(DType),
}

impl From<DType> for DTypeClass {
    fn from(d: DType) -> DTypeClass {
        DTypeClass::Exact(d)
    }
}

/// Whether `arg1` is `arg2` or below it in NumPy's dtype hierarchy.
pub fn issubdtype(arg1: DType, arg2: impl Into<DTypeClass>) -> bool {
    use DType::*;
    match arg2.into() {
        DTypeClass::Generic => true,
        DTypeClass::Number => arg1 != Bool,
        DTypeClass::Integer => arg1.is_integer(),
        DTypeClass::SignedInteger => arg1.is_signed_integer(),
        DTypeClass::UnsignedInteger => arg1.is_unsigned_integer(),
        DTypeClass::Inexact | DTypeClass::Floating => arg1.is_floating(),
        DTypeClass::Exact(d) => arg1 == d,
    }
}

impl IntoParam for Casting {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

/// Whether `element` is a scalar: a Rust number or bool, or a 0-d array (as JAX counts
/// its 0-d arrays).
pub fn isscalar(element: impl ArrayLike) -> Result<bool> {
    overridable!("isscalar"; [one element]; []);
    Ok(super::asarray(operand("isscalar", 0, element)?)?.ndim() == 0)
}

pub use crate::lax::PrintOptions;

/// Sets how arrays print from now on, in every thread (NumPy's `set_printoptions`).
///
/// ```
/// use olympus::numpy::{self as np, PrintOptions};
/// let x = np::array([1.0f32 / 3.0, 2.0])?;
/// let short = np::printoptions(PrintOptions { precision: 3, ..Default::default() }, || format!("{x}"));
/// assert_eq!(short, "Array([0.333, 2.   ], dtype=float32)");
/// assert_eq!(np::get_printoptions(), PrintOptions::default());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn set_printoptions(options: PrintOptions) {
    crate::lax::replace_print_options(options);
}

/// The print options in effect.
pub fn get_printoptions() -> PrintOptions {
    crate::lax::print_options()
}

/// Runs `f` with `options` in effect and restores the previous ones after (NumPy's
/// `printoptions` context manager; the options are the process's, so other threads printing
/// meanwhile see them too).
pub fn printoptions<R>(options: PrintOptions, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<PrintOptions>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(o) = self.0.take() {
                crate::lax::replace_print_options(o);
            }
        }
    }
    let _restore = Restore(Some(crate::lax::replace_print_options(options)));
    f()
}

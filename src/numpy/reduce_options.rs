//! JAX's keyword options of the reductions (`dtype=`, `initial=`, `where=`), taken by the
//! `_with` reductions, and the two steps they add around a reduction: the mask, which
//! replaces the elements it leaves out by the reduction's identity, and the initial value,
//! combined with the result.

use crate::array::Array;
use crate::convert::{IntoParam, Param};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{BinaryOp, Literal, ReduceOp};

/// JAX's keyword options of a reduction, for the `_with` reductions ([`sum_with`],
/// [`max_with`], [`mean_with`], [`all_with`], their `nan` forms, ...): `dtype=`, `initial=`
/// and `where=`. A function refuses the options JAX's does not take (`initial` for
/// `mean`, `dtype` for `max`). `None` and a [`DType`] convert into it, so
/// `sum_with(&x, None, false, Some(DType::Int32))` reads as before.
///
/// [`sum_with`]: super::sum_with
/// [`max_with`]: super::max_with
/// [`mean_with`]: super::mean_with
/// [`all_with`]: super::all_with
///
/// ```
/// use olympus::numpy::{self as np, ReduceOptions};
/// let x = np::array([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]])?;
/// let m = np::array([true, false, true])?;
/// // Only the elements where `m` holds, plus 10 (JAX's `initial=` is combined by the op).
/// let s = np::sum_with(&x, Some(&[1]), false, ReduceOptions::new().where_(&m).initial(10.0))?;
/// assert_eq!(s.to_vec::<f32>()?, vec![14.0, 20.0]);
/// // A masked max needs `initial`, as in JAX: max has no identity.
/// assert!(np::max_with(&x, None, false, ReduceOptions::new().where_(&m)).is_err());
/// # Ok::<(), olympus::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct ReduceOptions {
    /// The dtype the elements convert to and reduce in (`dtype=`).
    pub dtype: Option<DType>,
    /// A value combined with each result by the reduction's operation (`initial=`): added
    /// to a sum, multiplied into a product, the bound of a maximum or minimum (and the
    /// result over an empty axis). Converted to the reduction's dtype first: a whole
    /// number as JAX's Python int (wrapping: -1 is 255 in uint8), a fraction as a float
    /// (truncated toward zero).
    pub initial: Option<f64>,
    /// A bool array broadcasting to the input's shape: only the elements where it is true
    /// take part (`where=`).
    pub where_: Option<Array>,
    /// The mean to center on, for `var`, `std`, `nanvar` and `nanstd` (`mean=`): an array
    /// broadcasting to the reduction's result with the reduced axes kept.
    pub mean: Option<Array>,
}

impl ReduceOptions {
    /// No options: the plain reduction.
    pub fn new() -> ReduceOptions {
        ReduceOptions::default()
    }

    /// With `dtype=`.
    pub fn dtype(mut self, dtype: DType) -> ReduceOptions {
        self.dtype = Some(dtype);
        self
    }

    /// With `initial=`.
    pub fn initial(mut self, value: f64) -> ReduceOptions {
        self.initial = Some(value);
        self
    }

    /// With `where=` (a bool array broadcasting to the input's shape).
    pub fn where_(mut self, mask: &Array) -> ReduceOptions {
        self.where_ = Some(mask.clone());
        self
    }

    /// With `mean=` (the precomputed mean of `var` and `std`).
    pub fn mean(mut self, mean: &Array) -> ReduceOptions {
        self.mean = Some(mean.clone());
        self
    }
}

impl From<Option<DType>> for ReduceOptions {
    fn from(dtype: Option<DType>) -> ReduceOptions {
        ReduceOptions {
            dtype,
            ..ReduceOptions::default()
        }
    }
}

impl From<DType> for ReduceOptions {
    fn from(dtype: DType) -> ReduceOptions {
        ReduceOptions::new().dtype(dtype)
    }
}

// (By hand: an array's `Debug` reads its values back.)
impl std::fmt::Debug for ReduceOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReduceOptions")
            .field("dtype", &self.dtype)
            .field("initial", &self.initial)
            .field("where_", &self.where_.as_ref().map(summary))
            .field("mean", &self.mean.as_ref().map(summary))
            .finish()
    }
}

/// An array's dtype and shape (not its values).
fn summary(a: &Array) -> String {
    format!("{} {:?}", a.dtype(), a.shape())
}

impl IntoParam for ReduceOptions {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

impl ReduceOptions {
    /// An error naming `func` for an option besides `where_` that is not in `takes`
    /// (JAX's function has no such parameter).
    pub(super) fn only(&self, func: &str, takes: &[&str]) -> Result<()> {
        let given = [
            ("dtype", self.dtype.is_some()),
            ("initial", self.initial.is_some()),
            ("mean", self.mean.is_some()),
        ];
        match given.iter().find(|(n, g)| *g && !takes.contains(n)) {
            Some((name, _)) => Err(Error::arg(
                func,
                format!("takes no `{name}` option (JAX's function has no `{name}=`)"),
            )),
            None => Ok(()),
        }
    }

    /// The mask, checked: bool, and broadcasting to `shape` (the input's).
    pub(super) fn mask(&self, func: &str, shape: &[usize]) -> Result<Option<Array>> {
        let Some(m) = &self.where_ else {
            return Ok(None);
        };
        if m.dtype() != DType::Bool {
            return Err(Error::dtype(
                func,
                &[m.dtype()],
                "where= must be a bool array, as in JAX",
            ));
        }
        let joined = crate::shape::broadcast_shapes_for(func, &[shape, m.shape()])?;
        if joined != shape {
            return Err(Error::shape(
                func,
                &[shape, m.shape()],
                "where= must broadcast to the input's shape",
            ));
        }
        Ok(Some(super::broadcast_to(m, shape)?))
    }

    /// `x` with the elements the mask leaves out replaced by `op`'s identity in `x`'s dtype
    /// (JAX's `where(mask, a, init_val)`); `x` itself without a mask.
    pub(super) fn masked(&self, func: &str, x: &Array, op: ReduceOp) -> Result<Array> {
        let Some(m) = self.mask(func, x.shape())? else {
            return Ok(x.clone());
        };
        let d = x.dtype();
        let identity = match (op, d) {
            (ReduceOp::Max | ReduceOp::Or, DType::Bool) => Literal::Bool(false),
            (ReduceOp::Min | ReduceOp::And, DType::Bool) => Literal::Bool(true),
            (ReduceOp::Max, _) => Literal::from_f64(f64::NEG_INFINITY, d),
            (ReduceOp::Min, _) => Literal::from_f64(f64::INFINITY, d),
            (ReduceOp::Prod | ReduceOp::And, _) => Literal::from_f64(1.0, d),
            _ => Literal::from_f64(0.0, d),
        };
        let fill = lax::full(x.shape(), identity, Some(x.device()))?;
        lax::select(&m, x, &fill)
    }

    /// `r` combined with `initial` (converted to `r`'s dtype) by `op` (on bool: or for sums
    /// and maxima, and for products and minima), as JAX applies it after the reduction.
    pub(super) fn with_initial(&self, r: Array, op: ReduceOp) -> Result<Array> {
        let Some(v) = self.initial else {
            return Ok(r);
        };
        let d = r.dtype();
        let boolean = d == DType::Bool;
        let bop = match op {
            ReduceOp::Sum | ReduceOp::Or if boolean => BinaryOp::Or,
            ReduceOp::Prod | ReduceOp::And if boolean => BinaryOp::And,
            ReduceOp::Max if boolean => BinaryOp::Or,
            ReduceOp::Min if boolean => BinaryOp::And,
            ReduceOp::Sum => BinaryOp::Add,
            ReduceOp::Prod => BinaryOp::Mul,
            ReduceOp::Max => BinaryOp::Max,
            ReduceOp::Min => BinaryOp::Min,
            _ => {
                return Err(Error::arg(
                    "initial",
                    format!("no initial value for a {op:?} reduction"),
                ))
            }
        };
        // A whole number converts as JAX's Python int does (wrapping into an integer
        // type: -1 is 255 in uint8), a fraction as its float (truncated, saturating).
        let lit = if v.fract() == 0.0 && v.abs() < 9.0e18 {
            Literal::from_i64(v as i64, d)
        } else {
            Literal::from_f64(v, d)
        };
        let init = lax::full(r.shape(), lit, Some(r.device()))?;
        lax::binary(bop, &init, &r)
    }
}

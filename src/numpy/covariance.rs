//! Weighted means and covariances: `average` (with JAX's `returned=`), `cov` (with its
//! frequency and analytic weights) and `corrcoef`.

use super::overrides::overridable;
use super::stats::inexact;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

/// The weighted mean over `axis` (the plain [`mean`](super::mean) without `weights`).
/// `weights` has `a`'s shape, or is 1-d along a single `axis`; a zero sum of weights gives
/// NaN or infinity, as in JAX.
///
/// ```
/// use olympus::numpy as np;
/// let w = np::array([1.0f32, 3.0])?;
/// assert_eq!(np::average([2.0f32, 6.0], None, Some(&w), false)?.item::<f32>()?, 5.0);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn average(
    a: impl ArrayLike,
    axis: Option<&[isize]>,
    weights: Option<&Array>,
    keepdims: bool,
) -> Result<Array> {
    overridable!("average"; [one a]; [axis, keepdims]);
    Ok(weighted_mean("average", a, axis, weights, keepdims)?.0)
}

/// [`average`] with JAX's `returned=True`: the average and the sum of the weights, the
/// latter broadcast to the average's shape (without `weights`, the number of elements
/// averaged, in the average's dtype).
///
/// ```
/// use olympus::numpy as np;
/// let a = np::array([[1.0f32, 2.0, 3.0], [4.0, 5.0, 7.0]])?;
/// let w = np::array([1.0f32, 2.0, 3.0])?;
/// let (avg, wsum) = np::average_returned(&a, Some(&[1]), Some(&w), false)?;
/// assert_eq!(wsum.to_vec::<f32>()?, [6.0, 6.0]);
/// assert!((avg.to_vec::<f32>()?[0] - 14.0 / 6.0).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn average_returned(
    a: impl ArrayLike,
    axis: Option<&[isize]>,
    weights: Option<&Array>,
    keepdims: bool,
) -> Result<(Array, Array)> {
    overridable!("average_returned"; [one a]; [axis, keepdims]);
    weighted_mean("average_returned", a, axis, weights, keepdims)
}

/// The weighted mean and the weights' sum broadcast to its shape.
fn weighted_mean(
    func: &str,
    a: impl ArrayLike,
    axis: Option<&[isize]>,
    weights: Option<&Array>,
    keepdims: bool,
) -> Result<(Array, Array)> {
    let a = super::asarray(operand(func, 0, a)?)?;
    let Some(w) = weights else {
        let avg = super::mean(&a, axis, keepdims)?;
        let count = a.size() / avg.size().max(1);
        let wsum = super::full(avg.shape(), count as f64, Some(avg.dtype()))?;
        return Ok((avg, wsum));
    };
    let v = super::promote(
        func,
        vec![operand(func, 0, &a)?, operand(func, 1, w)?],
        true,
    )?;
    let (a, mut w) = (v[0].clone(), v[1].clone());
    if w.shape() != a.shape() {
        let ax = match axis {
            Some(&[one]) => normalize_axis(func, one, a.ndim())?,
            _ => {
                return Err(Error::shape(
                    func,
                    &[a.shape(), w.shape()],
                    "weights of another shape than a need one axis",
                ))
            }
        };
        if w.ndim() != 1 || w.size() != a.shape()[ax] {
            return Err(Error::shape(
                func,
                &[a.shape(), w.shape()],
                format!("1-d weights must have a's length along axis {ax}"),
            ));
        }
        let mut s = vec![1; a.ndim()];
        s[ax] = w.size();
        w = super::broadcast_to(lax::reshape(&w, &s)?, a.shape())?;
    }
    let num = super::sum(super::multiply(&a, &w)?, axis, keepdims)?;
    let den = super::sum(&w, axis, keepdims)?;
    let avg = super::divide(num, &den)?;
    let wsum = super::broadcast_to(den, avg.shape())?;
    Ok((avg, wsum))
}

/// The covariance matrix of the variables in `m`'s rows (columns when `rowvar` is false),
/// with `y`'s variables appended; normalised by `n - ddof` (`ddof` defaults to 1, or 0
/// when `bias`). A single variable gives a 0-d array.
pub fn cov(
    m: impl ArrayLike,
    y: Option<&Array>,
    rowvar: bool,
    bias: bool,
    ddof: Option<usize>,
) -> Result<Array> {
    overridable!("cov"; [one m]; [rowvar, bias, ddof]);
    cov_impl("cov", m, y, rowvar, bias, ddof, None, None)
}

/// [`cov`] with JAX's `fweights=` (integer repeat counts of each observation) and
/// `aweights=` (relative weights of each observation): 1-d, one per observation. As in
/// JAX, the normaliser is the weights' sum less `ddof` (less `ddof` times the
/// `aweights`-weighted mean weight when both are given).
///
/// ```
/// use olympus::numpy as np;
/// let x = np::array([0.0f32, 1.0, 2.0])?;
/// // Observation 2 counted twice is the covariance of [0, 1, 2, 2].
/// let fw = np::array([1, 1, 2])?;
/// let c = np::cov_with(&x, None, true, false, None, Some(&fw), None)?;
/// let d = np::cov(np::array([0.0f32, 1.0, 2.0, 2.0])?, None, true, false, None)?;
/// assert!((c.item::<f32>()? - d.item::<f32>()?).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn cov_with(
    m: impl ArrayLike,
    y: Option<&Array>,
    rowvar: bool,
    bias: bool,
    ddof: Option<usize>,
    fweights: Option<&Array>,
    aweights: Option<&Array>,
) -> Result<Array> {
    overridable!("cov_with"; [one m]; [rowvar, bias, ddof]);
    cov_impl("cov_with", m, y, rowvar, bias, ddof, fweights, aweights)
}

#[allow(clippy::too_many_arguments)]
fn cov_impl(
    func: &str,
    m: impl ArrayLike,
    y: Option<&Array>,
    rowvar: bool,
    bias: bool,
    ddof: Option<usize>,
    fweights: Option<&Array>,
    aweights: Option<&Array>,
) -> Result<Array> {
    let vars = |x: Array| -> Result<Array> {
        if x.ndim() > 2 {
            return Err(Error::shape(
                func,
                &[x.shape()],
                "takes at most 2 dimensions",
            ));
        }
        // A 1-d input is one variable either way; a 2-d one turns with `rowvar`.
        let one_d = x.ndim() < 2;
        let x = inexact(super::atleast_2d(x)?)?;
        if !rowvar && !one_d {
            super::transpose(&x, None)
        } else {
            Ok(x)
        }
    };
    let mut x = vars(super::asarray(operand(func, 0, m)?)?)?;
    if x.shape()[0] == 0 {
        return super::zeros(&[0, 0], x.dtype());
    }
    if let Some(y) = y {
        x = super::concatenate([x, vars(y.clone())?], 0)?;
    }
    let ddof = ddof.unwrap_or(usize::from(!bias));
    let n = x.shape()[1];
    let check = |w: &Array, what: &str| -> Result<()> {
        if w.ndim() != 1 || w.size() != n {
            return Err(Error::shape(
                func,
                &[x.shape(), w.shape()],
                format!("{what} needs one weight per observation ({n}), 1-d"),
            ));
        }
        Ok(())
    };
    let mut w: Option<Array> = None;
    if let Some(f) = fweights {
        if !f.dtype().is_integer() {
            return Err(Error::dtype(
                func,
                &[f.dtype()],
                "fweights must be integer (repeat counts), as in JAX",
            ));
        }
        check(f, "fweights")?;
        // JAX takes the weights' magnitudes.
        w = Some(super::abs(f)?);
    }
    let aweights = match aweights {
        Some(a) => {
            check(a, "aweights")?;
            Some(super::abs(a)?)
        }
        None => None,
    };
    if let Some(a) = &aweights {
        w = Some(match w {
            None => a.clone(),
            Some(f) => super::multiply(&f, a)?,
        });
    }
    let Some(w) = w else {
        let f = n as f64 - ddof as f64;
        let centred = super::subtract(&x, super::mean(&x, Some(&[1]), true)?)?;
        let c = super::matmul(&centred, super::transpose(&centred, None)?)?;
        return super::squeeze(super::true_divide(c, f)?, None);
    };
    let (avg, wsum) = weighted_mean(func, &x, Some(&[1]), Some(&w), false)?;
    let wsum = lax::reshape(&super::take(&wsum, 0, None)?, &[])?;
    let f = match (ddof, &aweights) {
        (0, _) => wsum.clone(),
        (_, None) => super::subtract(&wsum, ddof as f64)?,
        (_, Some(a)) => {
            let wa = super::sum(super::multiply(&w, a)?, None, false)?;
            super::subtract(
                &wsum,
                super::divide(super::multiply(wa, ddof as f64)?, &wsum)?,
            )?
        }
    };
    let k = avg.size();
    let centred = super::subtract(&x, lax::reshape(&avg, &[k, 1])?)?;
    let weighted = super::multiply(&centred, &w)?;
    let c = super::matmul(&centred, super::transpose(&weighted, None)?)?;
    super::squeeze(super::true_divide(c, f)?, None)
}

/// Pearson correlation coefficients: [`cov`] normalised by the standard deviations and
/// clipped to `[-1, 1]`.
pub fn corrcoef(x: impl ArrayLike, y: Option<&Array>, rowvar: bool) -> Result<Array> {
    overridable!("corrcoef"; [one x]; [rowvar]);
    let c = cov(
        super::asarray(operand("corrcoef", 0, x)?)?,
        y,
        rowvar,
        false,
        None,
    )?;
    if c.ndim() == 0 {
        return super::divide(&c, &c);
    }
    let d = super::sqrt(super::diagonal(&c, 0, 0, 1)?)?;
    let k = d.size();
    let c = super::divide(&c, lax::reshape(&d, &[k, 1])?)?;
    let c = super::divide(&c, lax::reshape(&d, &[1, k])?)?;
    super::clip(c, -1.0, 1.0)
}

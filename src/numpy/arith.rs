//! The small arithmetic and shape helpers of `jax.numpy` built from the existing
//! functions: products (`kron`, `cross`, `vecdot`), `divmod`, `modf`, `gradient`,
//! `unwrap`, `geomspace`, `append`, `resize` and the like.

use super::floats::inexact_of;
use super::overrides::overridable;
use super::stats::slice_axis;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

/// The Kronecker product: blocks of `b` scaled by each element of `a` (the lower-rank
/// operand gains leading axes of length 1).
///
/// ```
/// use olympus::numpy as np;
/// let k = np::kron([1, 10], [1, 2, 3])?;
/// assert_eq!(k.to_vec::<i32>()?, vec![1, 2, 3, 10, 20, 30]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn kron(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("kron"; [one a, one b]; []);
    let func = "kron";
    let v = super::promote_pair(func, a, b, false)?;
    let r = v.0.ndim().max(v.1.ndim());
    let lift = |x: &Array| -> Result<Array> {
        let mut s = vec![1; r - x.ndim()];
        s.extend(x.shape());
        lax::reshape(x, &s)
    };
    let (a, b) = (lift(&v.0)?, lift(&v.1)?);
    // a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...], then merge each (i, j) pair.
    let inter = |x: &Array, first: bool| -> Result<Array> {
        let s: Vec<usize> = x
            .shape()
            .iter()
            .flat_map(|&d| if first { [d, 1] } else { [1, d] })
            .collect();
        lax::reshape(x, &s)
    };
    let p = super::multiply(inter(&a, true)?, inter(&b, false)?)?;
    let out: Vec<usize> = a
        .shape()
        .iter()
        .zip(b.shape())
        .map(|(x, y)| x * y)
        .collect();
    lax::reshape(&p, &out)
}

/// `values` joined after `arr` along `axis` (both flattened when `axis` is `None`).
pub fn append(arr: impl ArrayLike, values: impl ArrayLike, axis: Option<isize>) -> Result<Array> {
    overridable!("append"; [one arr, one values]; [axis]);
    let func = "append";
    let ops: Vec<Operand> = vec![operand(func, 0, arr)?, operand(func, 1, values)?];
    match axis {
        None => {
            let v: Vec<Array> = ops.into_iter().map(super::ravel).collect::<Result<_>>()?;
            super::concatenate(v, 0)
        }
        Some(ax) => super::concatenate(ops, ax),
    }
}

/// An array of `new_shape` filled with `a`'s flattened elements, repeated as often as
/// needed (zeros when `a` is empty).
pub fn resize(a: impl ArrayLike, new_shape: &[usize]) -> Result<Array> {
    overridable!("resize"; [one a]; [new_shape]);
    let a = super::ravel(super::asarray(operand("resize", 0, a)?)?)?;
    let total: usize = new_shape.iter().product();
    if a.size() == 0 {
        return super::zeros(new_shape, a.dtype());
    }
    let reps = total.div_ceil(a.size());
    let t = super::tile(&a, &[reps])?;
    lax::reshape(&slice_axis(&t, 0, 0, total)?, new_shape)
}

/// `a` with `axis` moved to just before position `start` (NumPy's older `moveaxis`).
pub fn rollaxis(a: impl ArrayLike, axis: isize, start: isize) -> Result<Array> {
    overridable!("rollaxis"; [one a]; [axis, start]);
    let func = "rollaxis";
    let a = super::asarray(operand(func, 0, a)?)?;
    let n = a.ndim() as isize;
    let ax = normalize_axis(func, axis, a.ndim())? as isize;
    let s = if start < 0 { start + n } else { start };
    if !(0..=n).contains(&s) {
        return Err(Error::arg(
            func,
            format!("start {start} is out of range for {n} axes"),
        ));
    }
    let dest = if ax < s { s - 1 } else { s };
    super::moveaxis(&a, &[ax], &[dest])
}

/// The slices of `x` along `axis`, as a list of arrays of one dimension less.
pub fn unstack(x: impl ArrayLike, axis: isize) -> Result<Vec<Array>> {
    overridable!("unstack"; [one x]; [axis]);
    let func = "unstack";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.ndim() == 0 {
        return Err(Error::shape(func, &[x.shape()], "needs at least one axis"));
    }
    let ax = normalize_axis(func, axis, x.ndim())?;
    let mut shape = x.shape().to_vec();
    shape.remove(ax);
    (0..x.shape()[ax])
        .map(|i| lax::reshape(&slice_axis(&x, ax, i, i + 1)?, &shape))
        .collect()
}

/// True when `a1` and `a2` broadcast together and are equal everywhere (a 0-d bool array;
/// false when the shapes do not broadcast).
pub fn array_equiv(a1: impl ArrayLike, a2: impl ArrayLike) -> Result<Array> {
    overridable!("array_equiv"; [one a1, one a2]; []);
    let func = "array_equiv";
    let a = super::asarray(operand(func, 0, a1)?)?;
    let b = super::asarray(operand(func, 1, a2)?)?;
    if crate::shape::broadcast_shapes_for(func, &[a.shape(), b.shape()]).is_err() {
        return super::zeros(&[], DType::Bool);
    }
    super::all(super::equal(&a, &b)?, None, false)
}

/// `num` numbers spaced evenly on a log scale from `start` to `stop`, endpoint included
/// when `endpoint`; float32 unless `dtype` is given (integer dtypes truncate the float32
/// values, as JAX converts them). JAX's formula, `sign(start) * 10 ** linspace(log10(start
/// / sign), log10(stop / sign))`, in f64 with each value rounded once (JAX's float32
/// values differ by a few ulps), so bounds that are zero or of opposite signs give NaN
/// where JAX's do.
///
/// ```
/// use olympus::numpy as np;
/// let g = np::geomspace(-2.0, -32.0, 5, false, None)?.to_vec::<f32>()?;
/// for (k, v) in g.iter().enumerate() {
///     let want = -2.0 * 16f64.powf(k as f64 / 5.0);
///     assert!((f64::from(*v) - want).abs() <= 2.0 * f64::from(f32::EPSILON) * want.abs());
/// }
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn geomspace(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: Option<DType>,
) -> Result<Array> {
    let func = "geomspace";
    let dtype = dtype.unwrap_or(DType::Float32);
    // JAX's `sign`: 0 for a zero start, whose every value is then NaN (0 / 0).
    let sign = if start == 0.0 { 0.0 } else { start.signum() };
    let (ls, le) = ((start / sign).log10(), (stop / sign).log10());
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let exponent = |k: usize| {
        if num == 1 {
            ls
        } else if endpoint && k == div {
            le
        } else {
            let t = k as f64 / div as f64;
            ls * (1.0 - t) + le * t
        }
    };
    let device = crate::array::current_device()?;
    let mut v = device.host_vec(num, func, &[num], dtype)?;
    v.extend((0..num).map(|k| (sign * 10f64.powf(exponent(k))) as f32));
    Array::from_slice_on(&device, &v, &[num])?.astype(dtype)
}

/// The cross product of 2- or 3-vectors along `axis` (the last by default) of `a` and `b`
/// (broadcast); two 2-vectors give the scalar z component.
///
/// ```
/// use olympus::numpy as np;
/// let c = np::cross([1, 0, 0], [0, 1, 0], -1)?;
/// assert_eq!(c.to_vec::<i32>()?, vec![0, 0, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn cross(a: impl ArrayLike, b: impl ArrayLike, axis: isize) -> Result<Array> {
    overridable!("cross"; [one a, one b]; [axis]);
    cross_impl("cross", a, b, [axis; 3])
}

/// [`cross`] with JAX's `axisa=`, `axisb=` and `axisc=`: the vectors run along `axisa` of
/// `a` and `axisb` of `b`, and the result's (for 3-vectors) along `axisc`.
///
/// ```
/// use olympus::numpy as np;
/// let a = np::array([[1, 0], [0, 1], [0, 0]])?; // vectors in columns
/// let c = np::cross_with(&a, [[0, 0, 1]], 0, -1, -1)?; // x × z, y × z in rows
/// assert_eq!(c.shape(), &[2, 3]);
/// assert_eq!(c.to_vec::<i32>()?, vec![0, -1, 0, 1, 0, 0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn cross_with(
    a: impl ArrayLike,
    b: impl ArrayLike,
    axisa: isize,
    axisb: isize,
    axisc: isize,
) -> Result<Array> {
    overridable!("cross_with"; [one a, one b]; [axisa, axisb, axisc]);
    cross_impl("cross_with", a, b, [axisa, axisb, axisc])
}

fn cross_impl(func: &str, a: impl ArrayLike, b: impl ArrayLike, axes: [isize; 3]) -> Result<Array> {
    let v = super::promote_pair(func, a, b, false)?;
    let mv = |x: &Array, axis: isize| -> Result<Array> {
        if x.ndim() == 0 {
            return Err(Error::shape(func, &[x.shape()], "needs vectors"));
        }
        let ax = normalize_axis(func, axis, x.ndim())?;
        super::moveaxis(x, &[ax as isize], &[-1])
    };
    let (a, b) = (mv(&v.0, axes[0])?, mv(&v.1, axes[1])?);
    let (na, nb) = (a.shape()[a.ndim() - 1], b.shape()[b.ndim() - 1]);
    if !matches!(na, 2 | 3) || !matches!(nb, 2 | 3) {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "the vectors along the axis must have 2 or 3 components",
        ));
    }
    let comp = |x: &Array, i: usize| -> Result<Array> {
        let n = x.shape()[x.ndim() - 1];
        if i >= n {
            return super::zeros(&x.shape()[..x.ndim() - 1], x.dtype());
        }
        let s = slice_axis(x, x.ndim() - 1, i, i + 1)?;
        lax::reshape(&s, &x.shape()[..x.ndim() - 1])
    };
    let (a0, a1, a2) = (comp(&a, 0)?, comp(&a, 1)?, comp(&a, 2)?);
    let (b0, b1, b2) = (comp(&b, 0)?, comp(&b, 1)?, comp(&b, 2)?);
    let m = |x: &Array, y: &Array| super::multiply(x, y);
    let z = super::subtract(m(&a0, &b1)?, m(&a1, &b0)?)?;
    if na == 2 && nb == 2 {
        return Ok(z);
    }
    let x = super::subtract(m(&a1, &b2)?, m(&a2, &b1)?)?;
    let y = super::subtract(m(&a2, &b0)?, m(&a0, &b2)?)?;
    let out = super::stack(super::broadcast_arrays([x, y, z])?, -1)?;
    let ax = normalize_axis(func, axes[2], out.ndim())? as isize;
    super::moveaxis(&out, &[-1], &[ax])
}

/// The matrix-vector product over the last axes: `x1` `(..., m, n)` times `x2` `(..., n)`
/// gives `(..., m)`, leading axes broadcast.
pub fn matvec(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("matvec"; [one x1, one x2]; []);
    let func = "matvec";
    let a = super::asarray(operand(func, 0, x1)?)?;
    let b = super::asarray(operand(func, 1, x2)?)?;
    if a.ndim() < 2 || b.ndim() < 1 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "needs a matrix and a vector",
        ));
    }
    let r = super::matmul(&a, super::expand_dims(&b, &[-1])?)?;
    super::squeeze(&r, Some(&[-1]))
}

/// The vector-matrix product over the last axes: `x1` `(..., n)` times `x2` `(..., n, m)`
/// gives `(..., m)`, leading axes broadcast.
pub fn vecmat(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("vecmat"; [one x1, one x2]; []);
    let func = "vecmat";
    let a = super::asarray(operand(func, 0, x1)?)?;
    let b = super::asarray(operand(func, 1, x2)?)?;
    if a.ndim() < 1 || b.ndim() < 2 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "needs a vector and a matrix",
        ));
    }
    let r = super::matmul(super::expand_dims(&a, &[-2])?, &b)?;
    super::squeeze(&r, Some(&[-2]))
}

/// [`vecdot`] with JAX's `precision=` and `preferred_element_type=`
/// ([`DotOptions`](super::DotOptions)).
pub fn vecdot_with(
    x1: impl ArrayLike,
    x2: impl ArrayLike,
    axis: isize,
    options: impl Into<super::DotOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("vecdot_with"; [one x1, one x2]; [axis, options]);
    super::linalg::preferred("vecdot_with", x1, x2, options, |a, b| vecdot(a, b, axis))
}

/// The dot product of vectors along `axis` of `x1` and `x2` (broadcast together).
pub fn vecdot(x1: impl ArrayLike, x2: impl ArrayLike, axis: isize) -> Result<Array> {
    overridable!("vecdot"; [one x1, one x2]; [axis]);
    let func = "vecdot";
    let (a, b) = super::promote_pair(func, x1, x2, false)?;
    let check = |x: &Array| normalize_axis(func, axis, x.ndim());
    let (aa, ab) = (check(&a)?, check(&b)?);
    if a.shape()[aa] != b.shape()[ab] {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "the vectors along the axis must have one length",
        ));
    }
    let boolean = a.dtype() == DType::Bool;
    // Bool vectors are summed as int32 and the result converted back.
    let counted = |x: &Array, ax: usize| -> Result<Array> {
        let x = super::moveaxis(x, &[ax as isize], &[-1])?;
        if boolean {
            x.astype(DType::Int32)
        } else {
            Ok(x)
        }
    };
    let (a, b) = (counted(&a, aa)?, counted(&b, ab)?);
    let r = super::matmul(
        super::expand_dims(&a, &[-2])?,
        super::expand_dims(&b, &[-1])?,
    )?;
    let r = super::squeeze(&r, Some(&[-2, -1]))?;
    if boolean {
        r.astype(DType::Bool)
    } else {
        Ok(r)
    }
}

/// [`round`](super::round) under NumPy's other name.
pub fn around(a: impl ArrayLike, decimals: i32) -> Result<Array> {
    overridable!("around"; [one a]; [decimals]);
    super::round(super::asarray(operand("around", 0, a)?)?, decimals)
}

/// The floor quotient and the remainder, `(floor_divide(x1, x2), remainder(x1, x2))`.
pub fn divmod(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("divmod"; [one x1, one x2]; []);
    let func = "divmod";
    let v = super::promote_pair(func, x1, x2, false)?;
    Ok((
        super::floor_divide(&v.0, &v.1)?,
        super::remainder(&v.0, &v.1)?,
    ))
}

/// The fractional and integral parts, `(x - w, w)` with `w` rounded toward zero (as
/// floats).
pub fn modf(x: impl ArrayLike) -> Result<(Array, Array)> {
    overridable!("modf"; [one x]; []);
    let x = inexact_of("modf", x)?;
    let whole = super::r#where(
        super::greater_equal(&x, 0.0)?,
        super::floor(&x)?,
        super::ceil(&x)?,
    )?;
    Ok((super::subtract(&x, &whole)?, whole))
}

/// `x1 ** x2` in an inexact dtype (integers and bool promote to float32), as JAX's
/// `float_power` with 64-bit types disabled.
pub fn float_power(x1: impl ArrayLike, x2: impl ArrayLike) -> Result<Array> {
    overridable!("float_power"; [one x1, one x2]; []);
    let func = "float_power";
    let v = super::promote_pair(func, x1, x2, true)?;
    super::power(&v.0, &v.1)
}

/// The gradient of `f` by second-order central differences inside and first-order ones at
/// the ends, along each of `axis` (all by default), with sample spacing `spacing` (one
/// value for every axis, or one per axis); one array per axis.
pub fn gradient(f: impl ArrayLike, spacing: &[f64], axis: Option<&[isize]>) -> Result<Vec<Array>> {
    overridable!("gradient"; [one f]; [axis]);
    let spacing: Vec<Spacing> = spacing.iter().map(|&h| Spacing::Step(h)).collect();
    gradient_impl("gradient", f, &spacing, axis)
}

/// The sample spacing along one axis of [`gradient_with`]: a uniform step, or the
/// coordinates of the samples (1-d, one per sample along the axis), as JAX's `*varargs`.
/// A 0-d array given as coordinates is a step, as in JAX (it may be a traced value).
#[derive(Clone, Debug)]
pub enum Spacing {
    /// The same distance between neighbouring samples.
    Step(f64),
    /// The samples' coordinates, which need not be evenly spaced.
    Coordinates(Array),
}

impl From<f64> for Spacing {
    fn from(h: f64) -> Spacing {
        Spacing::Step(h)
    }
}

impl From<Array> for Spacing {
    fn from(x: Array) -> Spacing {
        Spacing::Coordinates(x)
    }
}

/// [`gradient`] with JAX's spacing arguments: each a uniform step or the samples'
/// coordinates along the axis (second-order accurate inside, first-order at the edges,
/// as JAX computes them). One spacing serves every axis, or there is one per axis. JAX
/// has no `edge_order=` (it raises), and neither does Olympus.
///
/// ```
/// use olympus::numpy as np;
/// let f = np::array([1.0f32, 2.0, 4.0, 7.0, 11.0])?;
/// let x = np::array([0.0f32, 1.0, 1.5, 3.0, 4.0])?;
/// let g = np::gradient_with(&f, &[x.into()], None)?.remove(0).to_vec::<f32>()?;
/// assert!((g[0] - 1.0).abs() < 1e-6 && (g[4] - 4.0).abs() < 1e-6);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn gradient_with(
    f: impl ArrayLike,
    spacing: &[Spacing],
    axis: Option<&[isize]>,
) -> Result<Vec<Array>> {
    overridable!("gradient_with"; [one f]; [axis]);
    gradient_impl("gradient_with", f, spacing, axis)
}

fn gradient_impl(
    func: &str,
    f: impl ArrayLike,
    spacing: &[Spacing],
    axis: Option<&[isize]>,
) -> Result<Vec<Array>> {
    // As JAX, `f` and every coordinate array are promoted together (steps are weak).
    let coords: Vec<Operand> = spacing
        .iter()
        .filter_map(|s| match s {
            Spacing::Coordinates(x) => Some(operand(func, 1, x)),
            Spacing::Step(_) => None,
        })
        .collect::<Result<_>>()?;
    let (a, promoted) = if coords.is_empty() {
        (inexact_of(func, f)?, Vec::new())
    } else {
        let mut all = vec![operand(func, 0, f)?];
        all.extend(coords);
        let mut v = super::promote(func, all, true)?;
        let a = v.remove(0);
        (a, v)
    };
    let mut promoted = promoted.into_iter();
    let spacing: Vec<Spacing> = spacing
        .iter()
        .map(|s| match s {
            Spacing::Step(h) => Ok(Spacing::Step(*h)),
            Spacing::Coordinates(_) => promoted
                .next()
                .map(Spacing::Coordinates)
                .ok_or_else(|| Error::arg(func, "internal: a coordinate array went missing")),
        })
        .collect::<Result<_>>()?;
    let axes: Vec<usize> = match axis {
        None => (0..a.ndim()).collect(),
        Some(ax) => crate::shape::normalize_axes(func, ax, a.ndim())?,
    };
    let h: Vec<Spacing> = match spacing.len() {
        0 => vec![Spacing::Step(1.0); axes.len()],
        1 => vec![spacing[0].clone(); axes.len()],
        n if n == axes.len() => spacing.to_vec(),
        n => {
            return Err(Error::arg(
                func,
                format!("{n} spacings for {} axes", axes.len()),
            ))
        }
    };
    axes.iter()
        .zip(h)
        .map(|(&ax, h)| {
            let n = a.shape()[ax];
            if n < 2 {
                return Err(Error::shape(
                    func,
                    &[a.shape()],
                    format!("axis {ax} needs at least 2 samples"),
                ));
            }
            match h {
                Spacing::Step(h) => uniform(&a, ax, h),
                // A 0-d array is a step (one that may be traced).
                Spacing::Coordinates(x) if x.ndim() == 0 => uniform(&a, ax, &x),
                Spacing::Coordinates(x) => along_coordinates(func, &a, &x, ax),
            }
        })
        .collect()
}

/// The gradient of `a` along `ax` for samples `h` apart: central differences inside,
/// one-sided at the edges.
fn uniform<H: ArrayLike + Copy>(a: &Array, ax: usize, h: H) -> Result<Array> {
    let n = a.shape()[ax];
    let s = |lo: usize, hi: usize| slice_axis(a, ax, lo, hi);
    let upper = super::divide(super::subtract(s(1, 2)?, s(0, 1)?)?, h)?;
    let lower = super::divide(super::subtract(s(n - 1, n)?, s(n - 2, n - 1)?)?, h)?;
    let inner = super::divide(
        super::multiply(super::subtract(s(2, n)?, s(0, n - 2)?)?, 0.5)?,
        h,
    )?;
    super::concatenate([upper, inner, lower], ax as isize)
}

/// The gradient of `a` along `ax` at samples with coordinates `x` (JAX's formula: one-sided
/// differences at the edges, the second-order three-point formula inside).
fn along_coordinates(func: &str, a: &Array, x: &Array, ax: usize) -> Result<Array> {
    let n = a.shape()[ax];
    if x.ndim() != 1 || x.size() != n {
        return Err(Error::shape(
            func,
            &[a.shape(), x.shape()],
            format!("coordinates must be 1-d with the {n} samples of axis {ax}"),
        ));
    }
    let mut hs = vec![1; a.ndim()];
    hs[ax] = n;
    let x = lax::reshape(x, &hs)?;
    let s = |lo: usize, hi: usize| slice_axis(a, ax, lo, hi);
    let t = |lo: usize, hi: usize| slice_axis(&x, ax, lo, hi);
    let d = |lo: usize, hi: usize, lo2: usize, hi2: usize| -> Result<Array> {
        super::subtract(t(lo, hi)?, t(lo2, hi2)?)
    };
    let upper = super::divide(super::subtract(s(1, 2)?, s(0, 1)?)?, d(1, 2, 0, 1)?)?;
    let lower = super::divide(
        super::subtract(s(n - 1, n)?, s(n - 2, n - 1)?)?,
        d(n - 1, n, n - 2, n - 1)?,
    )?;
    let dx1 = d(1, n - 1, 0, n - 2)?;
    let dx2 = d(2, n, 1, n - 1)?;
    let m = |p: &Array, q: &Array| super::multiply(p, q);
    let sum12 = super::add(&dx1, &dx2)?;
    let ca = super::negative(super::divide(&dx2, m(&dx1, &sum12)?)?)?;
    let cb = super::divide(super::subtract(&dx2, &dx1)?, m(&dx1, &dx2)?)?;
    let cc = super::divide(&dx1, m(&dx2, &sum12)?)?;
    let inner = super::add(
        super::add(m(&ca, &s(0, n - 2)?)?, m(&cb, &s(1, n - 1)?)?)?,
        m(&cc, &s(2, n)?)?,
    )?;
    super::concatenate([upper, inner, lower], ax as isize)
}

/// `p` with jumps between neighbours along `axis` larger than `discont` (half the period by
/// default) corrected by whole multiples of `period` (JAX's default is `2 * pi`,
/// [`std::f64::consts::TAU`]), as JAX's `unwrap`: `p` and `period` are promoted together,
/// so an integer array with an integer period stays integer (half a period rounds down)
/// and a float period makes the result float.
///
/// ```
/// use olympus::numpy as np;
/// let u = np::unwrap([0, 5, 11, 2], None, -1, 8)?;
/// assert_eq!(u.to_vec::<i32>()?, vec![0, -3, -5, -6]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unwrap(
    p: impl ArrayLike,
    discont: Option<f64>,
    axis: isize,
    period: impl ArrayLike,
) -> Result<Array> {
    overridable!("unwrap"; [one p, one period]; [discont, axis]);
    let func = "unwrap";
    let (p, period) = super::promote_pair(func, p, period, false)?;
    let ax = normalize_axis(func, axis, p.ndim().max(1))?;
    if p.ndim() == 0 {
        return Err(Error::shape(func, &[p.shape()], "needs at least one axis"));
    }
    if p.shape()[ax] == 0 {
        return Ok(p);
    }
    let interval = if p.dtype().is_integer() {
        super::floor_divide(&period, 2)?
    } else {
        super::divide(&period, 2)?
    };
    let discont = match discont {
        Some(d) => super::asarray(d)?,
        None => super::divide(&period, 2)?,
    };
    let dd = super::diff(&p, 1, ax as isize, None, None)?;
    let ddmod = super::subtract(
        super::r#mod(super::add(&dd, &interval)?, &period)?,
        &interval,
    )?;
    let edge = super::logical_and(
        super::equal(&ddmod, super::negative(&interval)?)?,
        super::greater(&dd, 0)?,
    )?;
    let ddmod = super::r#where(edge, &interval, ddmod)?;
    let correct = super::r#where(
        super::less(super::abs(&dd)?, &discont)?,
        0,
        super::subtract(&ddmod, &dd)?,
    )?;
    let n = p.shape()[ax];
    let rest = super::add(
        slice_axis(&p, ax, 1, n)?,
        super::cumsum(correct, Some(ax as isize))?,
    )?;
    super::concatenate(
        [slice_axis(&p, ax, 0, 1)?, rest.astype(p.dtype())?],
        ax as isize,
    )
}

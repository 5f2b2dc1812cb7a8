//! Linear algebra: matmul and friends, all through the one tiled matmul kernel
//! (`lax::batch_matmul`, batched `[b, m, k] x [b, k, n]`), with transposes, broadcasts and
//! reshapes as views wherever the strides allow.

use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

fn two(func: &str, a: impl ArrayLike, b: impl ArrayLike) -> Result<(Array, Array)> {
    let ops = vec![operand(func, 0, a)?, operand(func, 1, b)?];
    let mut v = super::promote(func, ops, false)?;
    let b = v.pop().expect("two operands");
    let a = v.pop().expect("two operands");
    Ok((a, b))
}

/// `[.., m, k] x [.., k, n]` with broadcast batch dimensions, as views where possible.
fn batched(func: &str, a: &Array, b: &Array) -> Result<Array> {
    let (ra, rb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    let (k2, n) = (b.shape()[rb - 2], b.shape()[rb - 1]);
    if k != k2 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            format!("contracted dimensions differ: {k} (last of the first operand) vs {k2} (second to last of the second)"),
        ));
    }
    let batch =
        crate::shape::broadcast_shapes_for(func, &[&a.shape()[..ra - 2], &b.shape()[..rb - 2]])?;
    let nb: usize = batch.iter().product();
    let expand = |x: &Array, tail: [usize; 2]| -> Result<Array> {
        let mut full = batch.clone();
        full.extend_from_slice(&tail);
        let off = full.len() - x.ndim();
        let xb = if x.shape() == full.as_slice() {
            x.clone()
        } else {
            lax::broadcast_in_dim(x, &full, &(off..full.len()).collect::<Vec<_>>())?
        };
        lax::reshape(&xb, &[nb, tail[0], tail[1]])
    };
    let a3 = expand(a, [m, k])?;
    let b3 = expand(b, [k, n])?;
    let r = lax::batch_matmul(&a3, &b3)?;
    let mut out = batch;
    out.extend_from_slice(&[m, n]);
    lax::reshape(&r, &out)
}

/// Matrix product with NumPy's rules: the last two axes multiply, leading axes broadcast
/// as a batch; a 1-D first operand is a row vector and a 1-D second one a column vector
/// (their axis is removed from the result). float16 accumulates in float32; 0-d operands
/// are an error.
///
/// ```
/// use olympus::numpy as np;
/// let a = np::array([[1.0f32, 2.0], [3.0, 4.0]])?;
/// let b = np::array([[5.0f32], [6.0]])?;
/// assert_eq!(np::matmul(&a, &b)?.to_vec::<f32>()?, vec![17.0, 39.0]);
/// assert_eq!(np::matmul(&a, [1.0f32, 1.0])?.shape(), &[2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn matmul(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("matmul"; [one a, one b]; []);
    let func = "matmul";
    let (a, b) = two(func, a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "operands must be at least 1-D (use multiply for scalars)",
        ));
    }
    let a1 = a.ndim() == 1;
    let b1 = b.ndim() == 1;
    let a2 = if a1 {
        lax::reshape(&a, &[1, a.size()])?
    } else {
        a.clone()
    };
    let b2 = if b1 {
        lax::reshape(&b, &[b.size(), 1])?
    } else {
        b.clone()
    };
    let r = batched(func, &a2, &b2).map_err(|e| with_shapes(e, func, &a, &b))?;
    let mut shape = r.shape().to_vec();
    let rn = shape.len();
    if b1 {
        shape.remove(rn - 1);
    }
    if a1 {
        shape.remove(rn - 2);
    }
    if shape.len() == rn {
        Ok(r)
    } else {
        lax::reshape(&r, &shape)
    }
}

/// Reports the user's shapes (not the internal 2-D/3-D views) in shape errors.
fn with_shapes(e: Error, func: &str, a: &Array, b: &Array) -> Error {
    match e {
        Error::ShapeMismatch { reason, .. } => Error::ShapeMismatch {
            func: func.to_string(),
            shapes: vec![a.shape().to_vec(), b.shape().to_vec()],
            reason,
        },
        e => e,
    }
}

/// Sum of products over the axes `axes_a` of `a` paired in order with `axes_b` of `b`
/// (NumPy's `tensordot` with explicit axis lists); the result has `a`'s free axes then
/// `b`'s.
///
/// ```
/// use olympus::numpy as np;
/// let a = np::ones(&[2, 3, 4], np::DType::Float32)?;
/// let b = np::ones(&[4, 3, 5], np::DType::Float32)?;
/// let c = np::tensordot(&a, &b, &[1, 2], &[1, 0])?;
/// assert_eq!(c.shape(), &[2, 5]);
/// assert_eq!(c.to_vec::<f32>()?[0], 12.0);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn tensordot(
    a: impl ArrayLike,
    b: impl ArrayLike,
    axes_a: &[isize],
    axes_b: &[isize],
) -> Result<Array> {
    overridable!("tensordot"; [one a, one b]; [axes_a, axes_b]);
    let func = "tensordot";
    let (a, b) = two(func, a, b)?;
    contract(func, &a, &b, axes_a, axes_b)
}

fn contract(func: &str, a: &Array, b: &Array, axes_a: &[isize], axes_b: &[isize]) -> Result<Array> {
    if axes_a.len() != axes_b.len() {
        return Err(Error::arg(
            func,
            format!("axes {axes_a:?} and {axes_b:?} must pair up (equal lengths)"),
        ));
    }
    let ca = crate::shape::normalize_axes(func, axes_a, a.ndim())?;
    let cb = crate::shape::normalize_axes(func, axes_b, b.ndim())?;
    for (&i, &j) in ca.iter().zip(&cb) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::shape(
                func,
                &[a.shape(), b.shape()],
                format!(
                    "axis {i} of the first operand ({}) does not match axis {j} of the second ({})",
                    a.shape()[i],
                    b.shape()[j]
                ),
            ));
        }
    }
    let fa: Vec<usize> = (0..a.ndim()).filter(|i| !ca.contains(i)).collect();
    let fb: Vec<usize> = (0..b.ndim()).filter(|i| !cb.contains(i)).collect();
    let m: usize = fa.iter().map(|&i| a.shape()[i]).product();
    let n: usize = fb.iter().map(|&i| b.shape()[i]).product();
    let k: usize = ca.iter().map(|&i| a.shape()[i]).product();
    let pa: Vec<usize> = fa.iter().chain(&ca).copied().collect();
    let pb: Vec<usize> = cb.iter().chain(&fb).copied().collect();
    let at = lax::reshape(&lax::transpose(a, &pa)?, &[1, m, k])?;
    let bt = lax::reshape(&lax::transpose(b, &pb)?, &[1, k, n])?;
    let r = lax::batch_matmul(&at, &bt)?;
    let shape: Vec<usize> = fa
        .iter()
        .map(|&i| a.shape()[i])
        .chain(fb.iter().map(|&i| b.shape()[i]))
        .collect();
    lax::reshape(&r, &shape)
}

/// JAX's `precision=` of [`matmul_with`] and [`dot_with`] (`jax.lax.Precision`): how many
/// passes of reduced-precision arithmetic a product may use on hardware that has it (TPUs,
/// and TF32 on NVIDIA GPUs under XLA). Olympus's kernels multiply and accumulate float32
/// in float32 on every backend (Vulkan, Metal, DX12, GL and the software adapters; no
/// TF32 or bfloat16 passes), and float16 and bfloat16 operands accumulate in float32 and
/// round once, so every level gives the `Highest` result, as JAX does on its CPU backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// The fastest the backend offers (`"default"`, `"bfloat16"` in JAX).
    #[default]
    Default,
    /// A middle ground (`"high"`, `"tensorfloat32"` in JAX).
    High,
    /// Full float32 products and sums (`"highest"`, `"float32"` in JAX).
    Highest,
}

super::overrides::debug_param!(Precision);

/// JAX's keyword options of the products (`matmul`, `dot`, `inner`, `tensordot`, `vdot`,
/// `vecdot`): `precision=` (see [`Precision`]: every level computes in full float32 here)
/// and `preferred_element_type=`, the result's dtype. A [`Precision`] converts into it.
///
/// With `preferred_element_type`, as JAX's `dot_general` computes it: integer and bool
/// operands accumulate in 32 bits, without wrapping in their narrow type (int8 `100 * 2 +
/// 100 * 3` is 500 in int32), and convert once, or convert to a float type before the
/// product; float operands accumulate in float32 and round once to a float type, or round
/// to their own type and then convert (truncated) to an integer or bool type. For integer
/// operands a type narrower than theirs, bool included, is an error, as in JAX.
///
/// ```
/// use olympus::numpy::{self as np, DType, DotOptions};
/// let a = np::array([[100i8, 100]])?;
/// let b = np::array([[2i8], [3]])?;
/// assert_eq!(np::matmul(&a, &b)?.item::<i8>()?, -12); // wraps in int8
/// let wide = DotOptions::new().preferred_element_type(DType::Int32);
/// assert_eq!(np::matmul_with(&a, &b, wide)?.item::<i32>()?, 500);
/// # Ok::<(), olympus::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DotOptions {
    /// JAX's `precision=`.
    pub precision: Precision,
    /// The result's dtype (`preferred_element_type=`); `None` is the operands' promoted
    /// dtype.
    pub preferred_element_type: Option<DType>,
}

impl DotOptions {
    /// The defaults: default precision, the promoted dtype.
    pub fn new() -> DotOptions {
        DotOptions::default()
    }

    /// With `precision=`.
    pub fn precision(mut self, precision: Precision) -> DotOptions {
        self.precision = precision;
        self
    }

    /// With `preferred_element_type=`.
    pub fn preferred_element_type(mut self, dtype: DType) -> DotOptions {
        self.preferred_element_type = Some(dtype);
        self
    }
}

impl From<Precision> for DotOptions {
    fn from(precision: Precision) -> DotOptions {
        DotOptions::new().precision(precision)
    }
}

super::overrides::debug_param!(DotOptions);

/// `product` of `a` and `b` promoted together, in `options`' preferred dtype (see
/// [`DotOptions`]).
pub(super) fn preferred(
    func: &str,
    a: impl ArrayLike,
    b: impl ArrayLike,
    options: DotOptions,
    product: impl Fn(Array, Array) -> Result<Array>,
) -> Result<Array> {
    let (a, b) = two(func, a, b)?;
    let Some(p) = options.preferred_element_type else {
        return product(a, b);
    };
    let t = a.dtype();
    // JAX's rule: integer operands need a type at least as wide (bool is narrower than all).
    if t.is_integer() && (p == DType::Bool || p.storage_bytes() < t.storage_bytes()) {
        return Err(Error::dtype(
            func,
            &[t, p],
            "preferred_element_type must not be narrower than the operands' integer dtype, as in JAX",
        ));
    }
    let compute = match (t.is_floating(), p.is_floating()) {
        (false, true) => p,
        (true, true) => DType::Float32,
        // Rounded to the operands' own float type before the conversion (XLA's dot of
        // bfloat16 into int32 rounds to bfloat16 first).
        (true, false) => t,
        (false, false) => DType::Int32,
    };
    product(a.astype(compute)?, b.astype(compute)?)?.astype(p)
}

/// [`matmul`] with JAX's `precision=` and `preferred_element_type=` ([`DotOptions`]; a
/// [`Precision`] converts into it).
///
/// ```
/// use olympus::numpy as np;
/// let a = np::array([[1.0f32, 2.0], [3.0, 4.0]])?;
/// let c = np::matmul_with(&a, &a, np::Precision::Highest)?;
/// assert_eq!(c.to_vec::<f32>()?, np::matmul(&a, &a)?.to_vec::<f32>()?);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn matmul_with(
    a: impl ArrayLike,
    b: impl ArrayLike,
    options: impl Into<DotOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("matmul_with"; [one a, one b]; [options]);
    preferred("matmul_with", a, b, options, matmul)
}

/// [`dot`] with JAX's `precision=` and `preferred_element_type=` ([`DotOptions`]).
pub fn dot_with(
    a: impl ArrayLike,
    b: impl ArrayLike,
    options: impl Into<DotOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("dot_with"; [one a, one b]; [options]);
    preferred("dot_with", a, b, options, dot)
}

/// [`inner`] with JAX's `precision=` and `preferred_element_type=` ([`DotOptions`]).
pub fn inner_with(
    a: impl ArrayLike,
    b: impl ArrayLike,
    options: impl Into<DotOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("inner_with"; [one a, one b]; [options]);
    preferred("inner_with", a, b, options, inner)
}

/// [`vdot`] with JAX's `precision=` and `preferred_element_type=` ([`DotOptions`]).
pub fn vdot_with(
    a: impl ArrayLike,
    b: impl ArrayLike,
    options: impl Into<DotOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("vdot_with"; [one a, one b]; [options]);
    preferred("vdot_with", a, b, options, vdot)
}

/// [`tensordot`] with JAX's `precision=` and `preferred_element_type=` ([`DotOptions`]).
pub fn tensordot_with(
    a: impl ArrayLike,
    b: impl ArrayLike,
    axes_a: &[isize],
    axes_b: &[isize],
    options: impl Into<DotOptions>,
) -> Result<Array> {
    let options = options.into();
    overridable!("tensordot_with"; [one a, one b]; [axes_a, axes_b, options]);
    preferred("tensordot_with", a, b, options, |a, b| {
        tensordot(a, b, axes_a, axes_b)
    })
}

/// NumPy's `dot`: scalars multiply; 1-D with 1-D is the inner product; otherwise a sum over
/// the last axis of `a` and the second-to-last of `b` (the last when `b` is 1-D).
///
/// ```
/// use olympus::numpy as np;
/// assert_eq!(np::dot([1, 2, 3], [4, 5, 6])?.item::<i32>()?, 32);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn dot(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("dot"; [one a, one b]; []);
    let func = "dot";
    let (a, b) = two(func, a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return super::multiply(&a, &b);
    }
    let bj = if b.ndim() == 1 {
        0
    } else {
        b.ndim() as isize - 2
    };
    contract(func, &a, &b, &[a.ndim() as isize - 1], &[bj])
}

/// Inner product over the last axes (NumPy's `inner`): the result has `a`'s other axes
/// then `b`'s. Scalars multiply.
pub fn inner(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("inner"; [one a, one b]; []);
    let func = "inner";
    let (a, b) = two(func, a, b)?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return super::multiply(&a, &b);
    }
    contract(func, &a, &b, &[-1], &[-1])
}

/// Dot product of the flattened operands (which must have equal sizes).
pub fn vdot(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("vdot"; [one a, one b]; []);
    let func = "vdot";
    let (a, b) = two(func, a, b)?;
    if a.size() != b.size() {
        return Err(Error::shape(
            func,
            &[a.shape(), b.shape()],
            "operands must have the same number of elements",
        ));
    }
    let (fa, fb) = (super::ravel(&a)?, super::ravel(&b)?);
    contract(func, &fa, &fb, &[0], &[0])
}

/// Outer product of the flattened operands: `out[i, j] = a[i] * b[j]`.
pub fn outer(a: impl ArrayLike, b: impl ArrayLike) -> Result<Array> {
    overridable!("outer"; [one a, one b]; []);
    let func = "outer";
    let (a, b) = two(func, a, b)?;
    let ca = lax::reshape(&a, &[a.size(), 1])?;
    let rb = lax::reshape(&b, &[1, b.size()])?;
    super::multiply(&ca, &rb)
}

/// The diagonal `offset` of the 2-D planes spanned by `axis1` and `axis2` (NumPy's
/// `diagonal`): those axes are removed and the diagonal is appended as the last axis.
///
/// ```
/// use olympus::numpy as np;
/// let x = np::reshape(np::arange(9)?, &[3, 3])?;
/// assert_eq!(np::diagonal(&x, 0, 0, 1)?.to_vec::<i32>()?, vec![0, 4, 8]);
/// assert_eq!(np::diagonal(&x, 1, 0, 1)?.to_vec::<i32>()?, vec![1, 5]);
/// assert_eq!(np::trace(&x, -1, 0, 1)?.item::<i32>()?, 3 + 7);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn diagonal(x: impl ArrayLike, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    overridable!("diagonal"; [one x]; [offset, axis1, axis2]);
    let x = super::asarray(operand("diagonal", 0, x)?)?;
    diag_impl("diagonal", &x, offset, axis1, axis2)
}

pub(super) fn diag_impl(
    func: &str,
    x: &Array,
    offset: isize,
    axis1: isize,
    axis2: isize,
) -> Result<Array> {
    if x.ndim() < 2 {
        return Err(Error::shape(
            func,
            &[x.shape()],
            "needs at least 2 dimensions",
        ));
    }
    let a1 = normalize_axis(func, axis1, x.ndim())?;
    let a2 = normalize_axis(func, axis2, x.ndim())?;
    if a1 == a2 {
        return Err(Error::arg(func, "axis1 and axis2 cannot be the same"));
    }
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|&i| i != a1 && i != a2).collect();
    perm.push(a1);
    perm.push(a2);
    let y = lax::transpose(x, &perm)?;
    let r = y.ndim();
    // i128: no offset or length wraps.
    let (n1, n2) = (y.shape()[r - 2] as i128, y.shape()[r - 1] as i128);
    let offset = offset as i128;
    let (r0, c0) = if offset >= 0 {
        (0, offset)
    } else {
        (-offset, 0)
    };
    let len = (n1 - r0).min(n2 - c0).max(0) as usize;
    let mut lead = y.shape()[..r - 2].to_vec();
    if len == 0 {
        lead.push(0);
        return lax::full(
            &lead,
            crate::primitive::Literal::I32(0).cast(x.dtype()),
            Some(x.device()),
        )
        .map(|a| a.with_weak(x.weak_type()));
    }
    // Rows r0..r0+len, then along each row the column c0 + row: a gather.
    let mut start = vec![0; r];
    let mut limit = y.shape().to_vec();
    start[r - 2] = r0 as usize;
    limit[r - 2] = r0 as usize + len;
    let rows = lax::slice(&y, &start, &limit, None)?;
    let cols = lax::iota(DType::Int32, &[len, 1], 0, Some(x.device()))?;
    let cols = super::add(&cols, c0 as i32)?;
    let mut ishape = lead.clone();
    ishape.extend_from_slice(&[len, 1]);
    let cols = lax::broadcast_in_dim(&cols, &ishape, &[r - 2, r - 1])?;
    let g = lax::gather(&rows, &cols, r - 1)?;
    lead.push(len);
    lax::reshape(&g, &lead)
}

/// Sum along a diagonal (see [`diagonal`]); bool counts as int32.
pub fn trace(x: impl ArrayLike, offset: isize, axis1: isize, axis2: isize) -> Result<Array> {
    overridable!("trace"; [one x]; [offset, axis1, axis2]);
    let x = super::asarray(operand("trace", 0, x)?)?;
    let d = diag_impl("trace", &x, offset, axis1, axis2)?;
    super::sum(&d, Some(&[-1]), false)
}

/// [`trace`] with JAX's `dtype=`: the diagonal summed in `dtype` (as
/// [`sum_with`](super::sum_with): integers wrap in it); `None` is [`trace`], which widens
/// 8- and 16-bit integers as `sum` does.
///
/// ```
/// use olympus::numpy::{self as np, DType};
/// let x = np::full(&[3, 3], 100, Some(DType::Int8))?;
/// assert_eq!(np::trace_with(&x, 0, 0, 1, Some(DType::Int8))?.item::<i8>()?, 44);
/// assert_eq!(np::trace(&x, 0, 0, 1)?.item::<i32>()?, 300);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn trace_with(
    x: impl ArrayLike,
    offset: isize,
    axis1: isize,
    axis2: isize,
    dtype: Option<DType>,
) -> Result<Array> {
    overridable!("trace_with"; [one x]; [offset, axis1, axis2, dtype]);
    let x = super::asarray(operand("trace_with", 0, x)?)?;
    let d = diag_impl("trace_with", &x, offset, axis1, axis2)?;
    super::sum_with(&d, Some(&[-1]), false, dtype)
}

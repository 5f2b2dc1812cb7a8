//! Functions over functions and host data: `apply_along_axis`, `apply_over_axes`,
//! `vectorize` (through `vmap`), `fromfunction`, `fromiter`, `frombuffer`, `fromfile`.

use super::grids::index_grids;
use super::overrides::overridable;
use crate::array::Array;
use crate::convert::{operand, ArrayLike};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

/// `func1d` applied to every 1-d slice of `arr` along `axis` (through [`vmap`]); the
/// function's output axes replace `axis`.
///
/// [`vmap`]: crate::vmap
pub fn apply_along_axis(
    func1d: impl Fn(&Array) -> Result<Array>,
    axis: isize,
    arr: impl ArrayLike,
) -> Result<Array> {
    overridable!("apply_along_axis"; [one arr]; [axis]);
    let func = "apply_along_axis";
    let a = super::asarray(operand(func, 0, arr)?)?;
    if a.ndim() == 0 {
        return Err(Error::shape(func, &[a.shape()], "needs at least one axis"));
    }
    let ax = normalize_axis(func, axis, a.ndim())?;
    let moved = super::moveaxis(&a, &[ax as isize], &[-1])?;
    let lead: Vec<usize> = moved.shape()[..a.ndim() - 1].to_vec();
    let rows = lax::reshape(&moved, &[lead.iter().product(), a.shape()[ax]])?;
    let f = crate::vmap(|row: Array| func1d(&row), 0, 0);
    let r = f(rows)?;
    let out: Vec<usize> = r.shape()[1..].to_vec();
    let r = lax::reshape(&r, &[&lead[..], &out[..]].concat())?;
    // The output axes sit where `axis` was.
    let src: Vec<isize> = (lead.len()..lead.len() + out.len())
        .map(|d| d as isize)
        .collect();
    let dst: Vec<isize> = (ax..ax + out.len()).map(|d| d as isize).collect();
    super::moveaxis(&r, &src, &dst)
}

/// `func(a, axis)` applied for each of `axes` in turn, each result kept at the input's rank
/// (a reduced axis comes back with length 1).
pub fn apply_over_axes(
    func: impl Fn(&Array, isize) -> Result<Array>,
    a: impl ArrayLike,
    axes: &[isize],
) -> Result<Array> {
    overridable!("apply_over_axes"; [one a]; [axes]);
    let name = "apply_over_axes";
    let mut a = super::asarray(operand(name, 0, a)?)?;
    for &ax in axes {
        let r = func(&a, ax)?;
        a = if r.ndim() == a.ndim() {
            r
        } else if r.ndim() + 1 == a.ndim() {
            super::expand_dims(&r, &[ax])?
        } else {
            return Err(Error::shape(
                name,
                &[a.shape(), r.shape()],
                "func must keep the rank or drop the one axis",
            ));
        };
    }
    Ok(a)
}

/// An array of `shape` whose element at each index is `function` of the index arrays (one
/// int32 grid per axis, converted to `dtype`, float32 by default).
pub fn fromfunction(
    function: impl Fn(&[Array]) -> Result<Array>,
    shape: &[usize],
    dtype: Option<DType>,
) -> Result<Array> {
    let grids = index_grids(shape, dtype.unwrap_or(DType::Float32))?;
    function(&grids)
}

/// A 1-d array of the first `count` items of `iter` (all of them by default).
pub fn fromiter<T: crate::dtype::Element>(
    iter: impl IntoIterator<Item = T>,
    count: Option<usize>,
) -> Result<Array> {
    let v: Vec<T> = match count {
        Some(n) => {
            let v: Vec<T> = iter.into_iter().take(n).collect();
            if v.len() < n {
                return Err(Error::arg(
                    "fromiter",
                    format!("the iterator ended after {} of {n} items", v.len()),
                ));
            }
            v
        }
        None => iter.into_iter().collect(),
    };
    Array::from_slice(&v, &[v.len()])
}

/// A 1-d array of `dtype` read from little-endian `buffer` bytes, from byte `offset`,
/// `count` elements (all that fit by default); bool is one byte per element.
pub fn frombuffer(
    buffer: &[u8],
    dtype: DType,
    count: Option<usize>,
    offset: usize,
) -> Result<Array> {
    let func = "frombuffer";
    let size = dtype.itemsize();
    let avail = buffer.len().checked_sub(offset).ok_or_else(|| {
        Error::arg(
            func,
            format!(
                "offset {offset} is past the buffer's {} bytes",
                buffer.len()
            ),
        )
    })?;
    let n = match count {
        Some(n) if n.checked_mul(size).is_none_or(|b| b > avail) => {
            return Err(Error::arg(
                func,
                format!("{n} elements of {dtype} need more than the {avail} bytes left"),
            ))
        }
        Some(n) => n,
        None if avail % size != 0 => {
            return Err(Error::arg(
                func,
                format!("{avail} bytes are not a whole number of {dtype} elements"),
            ))
        }
        None => avail / size,
    };
    let b = &buffer[offset..offset + n * size];
    // Each element from its little-endian bytes.
    fn parse<T: crate::dtype::Element, const N: usize>(
        b: &[u8],
        n: usize,
        f: fn([u8; N]) -> T,
    ) -> Result<Array> {
        let v: Vec<T> = b
            .chunks_exact(N)
            .map(|w| f(w.try_into().unwrap_or([0; N])))
            .collect();
        Array::from_slice(&v, &[n])
    }
    match dtype {
        DType::Bool => parse(b, n, |[x]: [u8; 1]| x != 0),
        DType::Int32 => parse(b, n, i32::from_le_bytes),
        DType::UInt32 => parse(b, n, u32::from_le_bytes),
        DType::Float32 => parse(b, n, f32::from_le_bytes),
        DType::Float16 => parse(b, n, half::f16::from_le_bytes),
        DType::BFloat16 => parse(b, n, half::bf16::from_le_bytes),
        DType::Int8 => parse(b, n, i8::from_le_bytes),
        DType::UInt8 => parse(b, n, u8::from_le_bytes),
        DType::Int16 => parse(b, n, i16::from_le_bytes),
        DType::UInt16 => parse(b, n, u16::from_le_bytes),
        #[cfg(test)]
        DType::TestPair => parse(b, n, |w: [u8; 8]| {
            let [a, b, c, d, e, f, g, h] = w;
            [
                f32::from_le_bytes([a, b, c, d]),
                f32::from_le_bytes([e, f, g, h]),
            ]
        }),
    }
}

/// [`frombuffer`] of a file's bytes (raw little-endian data, as NumPy's `tofile` writes).
pub fn fromfile(
    path: impl AsRef<std::path::Path>,
    dtype: DType,
    count: Option<usize>,
    offset: usize,
) -> Result<Array> {
    let p = path.as_ref();
    let bytes =
        std::fs::read(p).map_err(|e| Error::arg("fromfile", format!("{}: {e}", p.display())))?;
    frombuffer(&bytes, dtype, count, offset).map_err(|e| match e {
        Error::InvalidArgument { reason, .. } => {
            Error::arg("fromfile", format!("{}: {reason}", p.display()))
        }
        e => e,
    })
}

/// `f` (a function of 0-d arrays) made to work elementwise on arrays: the arguments are
/// broadcast together, `f` is mapped over every element with [`vmap`](crate::vmap), and
/// the results take the broadcast shape (followed by any axes of `f`'s own result).
///
/// ```
/// use olympus::numpy as np;
/// let clamp_sq = np::vectorize(|v: &[olympus::Array]| {
///     let s = np::multiply(&v[0], &v[0])?;
///     np::minimum(s, &v[1])
/// });
/// let r = clamp_sq(&[np::array([1.0f32, 2.0, 3.0])?, np::asarray(5.0f32)?])?;
/// assert_eq!(r.to_vec::<f32>()?, vec![1.0, 4.0, 5.0]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn vectorize<F>(f: F) -> impl Fn(&[Array]) -> Result<Array>
where
    F: Fn(&[Array]) -> Result<Array>,
{
    move |args: &[Array]| {
        let func = "vectorize";
        let b = super::broadcast_arrays(args.to_vec())?;
        let shape = b.first().map_or_else(Vec::new, |x| x.shape().to_vec());
        let n: usize = shape.iter().product();
        if n == 0 {
            // The result's own axes and dtype come from one call on zeros.
            let probe: Vec<Array> = b
                .iter()
                .map(|x| super::zeros(&[], x.dtype()))
                .collect::<Result<_>>()?;
            let r = f(&probe)?;
            return super::zeros(&[&shape[..], r.shape()].concat(), r.dtype());
        }
        let flat: Vec<Array> = b.iter().map(super::ravel).collect::<Result<_>>()?;
        let mapped = crate::vmap(|xs: Vec<Array>| f(&xs), 0, 0);
        let r = mapped(flat).map_err(|e| match e {
            Error::InvalidArgument { reason, .. } => Error::arg(func, reason),
            e => e,
        })?;
        lax::reshape(&r, &[&shape[..], &r.shape()[1..]].concat())
    }
}

//! Shapes, strided layouts and NumPy broadcasting.

use crate::dtype::DType;
use crate::error::{Error, Result};

// Defined with the errors that print shapes, below this module.
pub use crate::error::fmt_shape;

/// JAX's short dtype names.
pub(crate) fn short_dtype(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "i8",
        DType::UInt8 => "u8",
        DType::Int16 => "i16",
        DType::UInt16 => "u16",
        DType::BFloat16 => "bf16",
        DType::Int32 => "i32",
        DType::UInt32 => "u32",
        DType::Float16 => "f16",
        DType::Float32 => "f32",
        #[cfg(test)]
        DType::TestPair => "pair",
    }
}

/// `f32[3,4]`, with `{weak}` for weakly typed values.
pub(crate) fn fmt_aval(a: &Aval) -> String {
    let dims: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
    format!(
        "{}[{}]{}",
        short_dtype(a.dtype),
        dims.join(","),
        if a.weak { "{weak}" } else { "" }
    )
}

/// The abstract value of an array: shape, dtype and weak-type flag.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aval {
    /// The shape.
    pub shape: Vec<usize>,
    /// The dtype.
    pub dtype: DType,
    /// JAX's weak-type flag: set on values that came from Rust scalars.
    pub weak: bool,
}

impl Aval {
    /// A new abstract value.
    pub fn new(shape: Vec<usize>, dtype: DType, weak: bool) -> Aval {
        Aval { shape, dtype, weak }
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        size_of(&self.shape)
    }
}

/// Number of elements of a shape (1 for a 0-d shape).
pub fn size_of(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Number of elements, or an error if it overflows `usize`.
pub(crate) fn checked_size(func: &str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::shape(func, &[shape], "the number of elements overflows"))
}

/// A result dimension `a + b + ...`, or an error naming `func` (and the operands'
/// `shapes`) when it overflows `usize`.
pub(crate) fn dim_sum(
    func: &str,
    shapes: &[&[usize]],
    parts: impl IntoIterator<Item = usize>,
) -> Result<usize> {
    dim_fold(func, shapes, parts, 0, usize::checked_add)
}

/// A result dimension `a * b * ...`, or an error naming `func` when it overflows `usize`.
pub(crate) fn dim_product(
    func: &str,
    shapes: &[&[usize]],
    parts: impl IntoIterator<Item = usize>,
) -> Result<usize> {
    dim_fold(func, shapes, parts, 1, usize::checked_mul)
}

fn dim_fold(
    func: &str,
    shapes: &[&[usize]],
    parts: impl IntoIterator<Item = usize>,
    init: usize,
    op: fn(usize, usize) -> Option<usize>,
) -> Result<usize> {
    parts
        .into_iter()
        .try_fold(init, op)
        .ok_or_else(|| Error::shape(func, shapes, "the result's size overflows"))
}

/// The shape NumPy broadcasting gives for a set of shapes.
///
/// ```
/// use olympus::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[&[3, 1], &[1, 4]]).unwrap(), vec![3, 4]);
/// assert!(broadcast_shapes(&[&[3], &[4]]).is_err());
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    broadcast_shapes_for("broadcast_shapes", shapes)
}

pub(crate) fn broadcast_shapes_for(func: &str, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        let pad = rank - s.len();
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[pad + i];
            if *o == d || d == 1 {
                continue;
            }
            if *o == 1 {
                *o = d;
            } else {
                return Err(Error::shape(
                    func,
                    shapes,
                    format!(
                        "dimension {} is {} in one operand and {} in another; broadcasting needs them equal or 1",
                        i as isize - s.len() as isize,
                        *o,
                        d
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// Where the elements of an array sit in its buffer: shape, strides and offset in elements.
///
/// Views (broadcasts, transposes, slices) change only the layout; the buffer is shared.
/// Strides may be zero (broadcast) or negative (reversed views).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The logical shape.
    pub shape: Vec<usize>,
    /// Element strides, one per dimension.
    pub strides: Vec<isize>,
    /// Element offset of index `(0, …, 0)` in the buffer.
    pub offset: usize,
}

impl Layout {
    /// A C-contiguous layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        size_of(&self.shape)
    }

    /// True when the elements are laid out in C order without gaps (strides of length-1
    /// dimensions do not matter).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 && s != expected {
                return false;
            }
            expected *= d as isize;
        }
        true
    }

    /// This layout reshaped to `shape` (same size) without moving data, when the strides
    /// allow it (NumPy's no-copy reshape: each run of old dimensions that merges into new
    /// ones must itself be mergeable). `None` when a copy is needed.
    pub fn reshaped(&self, shape: &[usize]) -> Option<Layout> {
        if self.is_contiguous() || size_of(shape) == 0 {
            return Some(Layout {
                shape: shape.to_vec(),
                strides: contiguous_strides(shape),
                offset: self.offset,
            });
        }
        // Drop length-1 dimensions of the old layout; they carry no stride information.
        let old: Vec<(usize, isize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&d, _)| d != 1)
            .map(|(&d, &s)| (d, s))
            .collect();
        let mut strides = vec![0isize; shape.len()];
        let (mut oi, mut ni) = (0usize, 0usize);
        while ni < shape.len() {
            if shape[ni] == 1 {
                strides[ni] = 0;
                ni += 1;
                continue;
            }
            // Grow a group of old dims [oi, oj) and new dims [ni, nj) with equal products.
            let (mut oj, mut nj) = (oi, ni);
            let (mut op, mut np) = (1usize, 1usize);
            loop {
                if op <= np && oj < old.len() && (op < np || op == 1) {
                    op *= old[oj].0;
                    oj += 1;
                } else if nj < shape.len() && np < op {
                    np *= shape[nj];
                    nj += 1;
                } else {
                    break;
                }
            }
            if op != np || oj == oi {
                return None;
            }
            // The old group must be one strided run.
            for k in oi..oj - 1 {
                if old[k].1 != old[k + 1].1 * old[k + 1].0 as isize {
                    return None;
                }
            }
            let mut st = old[oj - 1].1;
            for k in (ni..nj).rev() {
                strides[k] = st;
                st *= shape[k] as isize;
            }
            oi = oj;
            ni = nj;
        }
        if oi != old.len() {
            return None;
        }
        Some(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// A broadcast view of this layout onto `shape` (NumPy rules; new dimensions and
    /// stretched length-1 dimensions get stride 0).
    pub fn broadcast_to(&self, func: &str, shape: &[usize]) -> Result<Layout> {
        if shape.len() < self.shape.len() {
            return Err(Error::shape(
                func,
                &[&self.shape, shape],
                "cannot broadcast to a shape of lower rank",
            ));
        }
        let pad = shape.len() - self.shape.len();
        let mut strides = vec![0isize; shape.len()];
        for (i, (&d, &s)) in self.shape.iter().zip(&self.strides).enumerate() {
            let t = shape[pad + i];
            if d == t {
                strides[pad + i] = if d == 1 { 0 } else { s };
            } else if d == 1 {
                strides[pad + i] = 0;
            } else {
                return Err(Error::shape(
                    func,
                    &[&self.shape, shape],
                    format!("dimension {i} of size {d} cannot be broadcast to {t}"),
                ));
            }
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// The smallest and one past the largest element index the layout touches, or `None`
    /// when it has no elements.
    pub fn span(&self) -> Option<(usize, usize)> {
        if self.size() == 0 {
            return None;
        }
        let mut lo = self.offset as isize;
        let mut hi = self.offset as isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let ext = (d as isize - 1) * s;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        Some((lo.max(0) as usize, hi as usize + 1))
    }
}

/// A possibly negative axis as an index into `ndim` dimensions (NumPy's rule), or an
/// error naming the function.
pub fn normalize_axis(func: &str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::arg(
            func,
            format!("axis {axis} is out of bounds for an array of dimension {ndim}"),
        ));
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

/// Normalises a list of axes, rejecting repeats.
pub fn normalize_axes(func: &str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = normalize_axis(func, a, ndim)?;
        if out.contains(&a) {
            return Err(Error::arg(func, format!("repeated axis {a}")));
        }
        out.push(a);
    }
    Ok(out)
}

/// C-order strides of a shape, in elements.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        // Saturating: only an empty shape can get this far (`[0, 2^40, 2^40]`), and its
        // strides address nothing.
        acc = acc.saturating_mul(isize::try_from(shape[i].max(1)).unwrap_or(isize::MAX));
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_rules() {
        assert_eq!(
            broadcast_shapes(&[&[2, 1, 4], &[3, 1]]).unwrap(),
            vec![2, 3, 4]
        );
        assert_eq!(broadcast_shapes(&[&[], &[5]]).unwrap(), vec![5]);
        assert_eq!(broadcast_shapes(&[&[0], &[1]]).unwrap(), vec![0]);
        let e = broadcast_shapes_for("add", &[&[2, 3], &[4]]).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("add") && msg.contains("(2, 3)") && msg.contains("(4,)"),
            "{msg}"
        );
    }

    #[test]
    fn no_copy_reshapes() {
        // A transpose cannot be flattened, but its rows can be split.
        let t = Layout {
            shape: vec![3, 4],
            strides: vec![1, 3],
            offset: 5,
        };
        assert!(t.reshaped(&[12]).is_none());
        let r = t.reshaped(&[3, 2, 2]).unwrap();
        assert_eq!(r.strides, vec![1, 6, 3]);
        assert_eq!(r.offset, 5);
        // Broadcast batch dimensions merge into one stride-0 dimension.
        let b = Layout {
            shape: vec![2, 5, 3, 4],
            strides: vec![0, 0, 4, 1],
            offset: 0,
        };
        assert_eq!(b.reshaped(&[10, 3, 4]).unwrap().strides, vec![0, 4, 1]);
        let b = Layout {
            shape: vec![2, 5, 3],
            strides: vec![0, 3, 1],
            offset: 0,
        };
        assert!(b.reshaped(&[10, 3]).is_none());
        assert_eq!(b.reshaped(&[2, 1, 5, 3]).unwrap().strides, vec![0, 0, 3, 1]);
        // A step slice of a row.
        let s = Layout {
            shape: vec![4, 6],
            strides: vec![20, 2],
            offset: 0,
        };
        assert_eq!(s.reshaped(&[4, 3, 2]).unwrap().strides, vec![20, 4, 2]);
        assert!(s.reshaped(&[24]).is_none());
    }

    #[test]
    fn contiguity() {
        let l = Layout::contiguous(&[2, 3]);
        assert!(l.is_contiguous());
        let b = Layout::contiguous(&[3]).broadcast_to("t", &[2, 3]).unwrap();
        assert_eq!(b.strides, vec![0, 1]);
        assert!(!b.is_contiguous());
        assert_eq!(b.span(), Some((0, 3)));
        let t = Layout {
            shape: vec![3, 2],
            strides: vec![1, 3],
            offset: 0,
        };
        assert!(!t.is_contiguous());
        assert_eq!(t.span(), Some((0, 6)));
    }
}

//! Bit packing: `packbits` and `unpackbits`.

use super::overrides::overridable;
use super::stats::slice_axis;
use crate::array::Array;
use crate::convert::{operand, ArrayLike, IntoParam, Param};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::shape::normalize_axis;

/// The order of bits within a byte for [`packbits`] and [`unpackbits`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BitOrder {
    /// The first element is the byte's most significant bit (NumPy's default).
    #[default]
    Big,
    /// The first element is the byte's least significant bit.
    Little,
}

impl IntoParam for BitOrder {
    fn to_param(&self) -> Param {
        Param::Other(format!("{self:?}"))
    }
}

/// The eight bit weights of a byte in `order`, as uint32.
fn byte_weights(order: BitOrder) -> Result<Array> {
    let w: Vec<u32> = (0..8)
        .map(|i| match order {
            BitOrder::Big => 128 >> i,
            BitOrder::Little => 1 << i,
        })
        .collect();
    Array::from_slice(&w, &[8])
}

/// `x` (the whole array flattened when `axis` is `None`) with the chosen axis moved last,
/// and that axis.
fn axis_last(func: &str, x: &Array, axis: Option<isize>) -> Result<(Array, usize)> {
    match axis {
        None => Ok((super::ravel(x)?, 0)),
        Some(a) => {
            let a = normalize_axis(func, a, x.ndim())?;
            Ok((super::moveaxis(x, &[a as isize], &[-1])?, a))
        }
    }
}

/// Packs the truth of each element of an integer or bool array into the bits of uint8
/// bytes along `axis` (the flattened array by default), eight elements a byte, the last
/// byte padded with zeros (`np.packbits`).
///
/// ```
/// use olympus::numpy as np;
/// let b = np::packbits(np::asarray(vec![1u8, 0, 1, 1, 0, 0, 0, 1, 1])?, None, np::BitOrder::Big)?;
/// assert_eq!(b.to_vec::<u8>()?, vec![177, 128]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn packbits(x: impl ArrayLike, axis: Option<isize>, bitorder: BitOrder) -> Result<Array> {
    overridable!("packbits"; [one x]; [axis, bitorder]);
    let func = "packbits";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.dtype().is_floating() {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "packs integer or bool arrays",
        ));
    }
    let (m, a) = axis_last(func, &x, axis)?;
    let r = m.ndim();
    let n = m.shape()[r - 1];
    let bytes = n.div_ceil(8);
    let bits = super::not_equal(&m, 0)?.astype(DType::UInt32)?;
    let mut pad = vec![(0, 0); r];
    pad[r - 1] = (0, bytes * 8 - n);
    let bits = super::pad(&bits, &pad, super::PadMode::Constant(0.0))?;
    let mut shape = m.shape()[..r - 1].to_vec();
    shape.extend([bytes, 8]);
    let weighted = super::multiply(lax::reshape(&bits, &shape)?, byte_weights(bitorder)?)?;
    let packed = super::sum(&weighted, Some(&[-1]), false)?.astype(DType::UInt8)?;
    match axis {
        None => Ok(packed),
        Some(_) => super::moveaxis(&packed, &[-1], &[a as isize]),
    }
}

/// Unpacks each uint8 byte into its eight bits along `axis` (the flattened array by
/// default), keeping the first `count` bits (all of them by default; a negative count
/// drops that many from the end, a count past the end pads with zeros) (`np.unpackbits`).
///
/// ```
/// use olympus::numpy as np;
/// let b = np::unpackbits(np::asarray(vec![177u8])?, None, None, np::BitOrder::Little)?;
/// assert_eq!(b.to_vec::<u8>()?, vec![1, 0, 0, 0, 1, 1, 0, 1]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn unpackbits(
    x: impl ArrayLike,
    axis: Option<isize>,
    count: Option<isize>,
    bitorder: BitOrder,
) -> Result<Array> {
    overridable!("unpackbits"; [one x]; [axis, count, bitorder]);
    let func = "unpackbits";
    let x = super::asarray(operand(func, 0, x)?)?;
    if x.dtype() != DType::UInt8 {
        return Err(Error::dtype(
            func,
            &[x.dtype()],
            "unpacks uint8 arrays (convert with astype first)",
        ));
    }
    let (m, a) = axis_last(func, &x, axis)?;
    let r = m.ndim();
    let n = m.shape()[r - 1] * 8;
    let mut shape = m.shape().to_vec();
    shape.push(1);
    let words = lax::reshape(&m.astype(DType::UInt32)?, &shape)?;
    let bits = super::bitwise_and(super::floor_divide(&words, byte_weights(bitorder)?)?, 1)?;
    shape.pop();
    shape[r - 1] = n;
    let bits = lax::reshape(&bits, &shape)?;
    let keep = match count {
        None => n,
        Some(c) if c < 0 => n.saturating_sub(c.unsigned_abs()),
        Some(c) => c as usize,
    };
    let bits = if keep <= n {
        slice_axis(&bits, r - 1, 0, keep)?
    } else {
        let mut pad = vec![(0, 0); r];
        pad[r - 1] = (0, keep - n);
        super::pad(&bits, &pad, super::PadMode::Constant(0.0))?
    };
    let bits = bits.astype(DType::UInt8)?;
    match axis {
        None => Ok(bits),
        Some(_) => super::moveaxis(&bits, &[-1], &[a as isize]),
    }
}

//! Bit-level primitives: reinterpreting bits between dtypes and the Threefry block
//! function behind `random`. Both lower to one expression of the fused kernel.

use super::same_shapes;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::params::{BitcastConvertType, Threefry};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{Primitive, ThreefryOutput};
use crate::shape::Aval;

impl ShapeRule for BitcastConvertType<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let x = &inputs[0];
        let dtype = *self.dtype;
        // Equal widths, as XLA's bitcast needs; float16 also from and to the low 16 bits
        // of uint32 words (how random bits become float16).
        let ok = match (x.dtype, dtype) {
            (DType::Bool, _) | (_, DType::Bool) => false,
            (DType::UInt32, DType::Float16 | DType::BFloat16)
            | (DType::Float16 | DType::BFloat16, DType::UInt32) => true,
            (a, b) => a.bits() == b.bits(),
        };
        if !ok {
            return Err(Error::dtype(
                "bitcast_convert_type",
                &[x.dtype, dtype],
                "converts bits between dtypes of one width (or between uint32's low 16 bits and a 16-bit float)",
            ));
        }
        Ok(vec![Aval::new(x.shape.clone(), dtype, false)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        DType::ALL
            .iter()
            .filter(|d| !d.is_bool())
            .map(|&dtype| Primitive::BitcastConvertType { dtype })
            .collect()
    }
}

impl ShapeRule for Threefry<'_> {
    fn arity(&self) -> usize {
        4
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        same_shapes("threefry2x32", inputs)?;
        if inputs.iter().any(|a| a.dtype != DType::UInt32) {
            let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
            return Err(Error::dtype(
                "threefry2x32",
                &dtypes,
                "keys and counters are uint32",
            ));
        }
        Ok(vec![Aval::new(
            inputs[0].shape.clone(),
            DType::UInt32,
            false,
        )])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        [
            ThreefryOutput::First,
            ThreefryOutput::Second,
            ThreefryOutput::Xor,
        ]
        .into_iter()
        .map(|output| Primitive::Threefry { output })
        .collect()
    }
}

// Bits and random bits are integers: no tangent.
no_tangent!(BitcastConvertType<'_>, Threefry<'_>);

// Bits are not linear in anything.
not_linear!(BitcastConvertType<'_>, Threefry<'_>);

batch_as_leading!(BitcastConvertType<'_>, Threefry<'_>);

//! Bit-level primitives: reinterpreting bits between dtypes and the Threefry block
//! function behind `random`. Both lower to one expression of the fused kernel.

use super::same_shapes;
use crate::codegen::maps::{self, InputMap};
use crate::codegen::rules::{convert, decode, float16_bits, narrow, Ctx, Elementwise, Lowering};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::params::{BitcastConvertType, Threefry};
#[cfg(test)]
use crate::primitive::Primitive;
use crate::primitive::{ShapeRule, ThreefryOutput};
use crate::shape::{Aval, Layout};

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

impl Lowering for BitcastConvertType<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        let (x, from) = (&args[0], arg_dtypes[0]);
        Ok(match (from, *self.dtype) {
            (a, b) if a == b => x.clone(),
            // 16-bit floats compute as f32: their bits are the pattern of the value, read
            // from (or written to) the low bits of an integer.
            (_, to @ (DType::Float16 | DType::BFloat16)) => {
                let bits = match from.compute_dtype() {
                    DType::Int32 => format!("bitcast<u32>({x})"),
                    DType::Float32 => float16_bits(from, x),
                    _ => x.clone(),
                };
                decode(to, &format!("({bits} & 0xffffu)"))
            }
            (DType::Float16 | DType::BFloat16, to) => {
                convert(&float16_bits(from, x), DType::UInt32, to)
            }
            (_, to) => match to.compute_dtype() {
                DType::Float32 => format!("bitcast<f32>({x})"),
                DType::Int32 => narrow(to, &format!("bitcast<i32>({x})")),
                _ => narrow(to, &format!("bitcast<u32>({x})")),
            },
        })
    }
}

impl Lowering for Threefry<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        false
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    /// The prelude's `threefry2x32` block function.
    fn emit(&self, args: &[String], _: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        let t = format!(
            "threefry2x32({}, {}, {}, {})",
            args[0], args[1], args[2], args[3]
        );
        Ok(match self.output {
            ThreefryOutput::First => format!("{t}.x"),
            ThreefryOutput::Second => format!("{t}.y"),
            ThreefryOutput::Xor => format!("threefry_xor({t})"),
        })
    }
}

evaluate_elementwise!(BitcastConvertType<'_>, Threefry<'_>);

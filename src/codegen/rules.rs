//! The WGSL rule of each elementwise primitive: operand expressions in, one expression out.
//!
//! Expressions are in the *compute type* of their dtype: `bool`, `i32`, `u32`, and `f32`
//! for both float dtypes (float16 is computed in float32 and rounded once per operation).

use super::Ctx;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax::Primitive;

/// The WGSL type values of a dtype are computed in.
pub(crate) fn compute_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int32 => "i32",
        DType::UInt32 => "u32",
        DType::Float16 | DType::Float32 => "f32",
    }
}

/// Converts an expression of compute type `from` to the compute type of `to`, with the
/// crate's conversion semantics (saturating float-to-int, NaN to 0, float16 rounding).
pub(crate) fn convert(x: &str, from: DType, to: DType) -> String {
    use DType::*;
    let e = match (from, to) {
        (a, b) if a == b => return x.to_string(),
        (Float16, Float32) => return x.to_string(),
        (Float32, Float16) => return format!("round_f16({x})"),
        (_, Bool) => match from {
            Int32 => format!("({x} != 0)"),
            UInt32 => format!("({x} != 0u)"),
            // A bit test: NaN is true, as in NumPy (an ordered `!=` would say false).
            _ => format!("((bitcast<u32>({x}) & 0x7fffffffu) != 0u)"),
        },
        (Bool, Int32) => format!("select(0, 1, {x})"),
        (Bool, UInt32) => format!("select(0u, 1u, {x})"),
        (Bool, _) => format!("select(0.0, 1.0, {x})"),
        (UInt32, Int32) => format!("bitcast<i32>({x})"),
        (Int32, UInt32) => format!("bitcast<u32>({x})"),
        (Float16 | Float32, Int32) => format!("f32_to_i32({x})"),
        (Float16 | Float32, UInt32) => format!("f32_to_u32({x})"),
        (Int32 | UInt32, _) => format!("f32({x})"),
        _ => unreachable!("every dtype pair is covered"),
    };
    if to == Float16 && from != Float32 {
        format!("round_f16({e})")
    } else {
        e
    }
}

/// The expression computing `prim` on `args` (compute-type expressions of `arg_dtypes`),
/// giving a value of dtype `out`.
pub(crate) fn emit(
    prim: &Primitive,
    args: &[String],
    arg_dtypes: &[DType],
    out: DType,
    ctx: &mut Ctx,
) -> Result<String> {
    Ok(match prim {
        Primitive::Add => match out {
            DType::Bool => format!("({} || {})", args[0], args[1]),
            _ => format!("({} + {})", args[0], args[1]),
        },
        Primitive::Mul => match out {
            DType::Bool => format!("({} && {})", args[0], args[1]),
            _ => format!("({} * {})", args[0], args[1]),
        },
        Primitive::Exp => format!("exp_f32({})", args[0]),
        Primitive::ConvertElementType { dtype, .. } => convert(&args[0], arg_dtypes[0], *dtype),
        Primitive::Copy => args[0].clone(),
        Primitive::Full { value, .. } => {
            let m = ctx.param(value.compute_bits());
            match out {
                DType::Bool => format!("({m} != 0u)"),
                DType::Int32 => format!("bitcast<i32>({m})"),
                DType::UInt32 => m,
                DType::Float16 | DType::Float32 => format!("bitcast<f32>({m})"),
            }
        }
        Primitive::Iota {
            shape, dimension, ..
        } => {
            let stride: usize = shape[dimension + 1..].iter().product();
            let s = ctx.param(stride as u32);
            let d = ctx.param(shape[*dimension] as u32);
            let idx = format!("((i / {s}) % {d})");
            convert(&idx, DType::UInt32, out)
        }
        Primitive::BroadcastInDim { .. } | Primitive::Transpose { .. } => {
            return Err(Error::arg(
                prim.name(),
                "is a view and has no elementwise rule",
            ))
        }
    })
}

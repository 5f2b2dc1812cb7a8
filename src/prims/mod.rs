//! Each primitive's rules, one file per family: a primitive's view (`primitive::params`)
//! implements the rule traits the layers below define (`primitive::ShapeRule`, ...), so
//! everything about a primitive sits in its family's file. Nothing imports this module:
//! the layers reach the rules through `primitive::with_params!`, and a view missing a rule
//! is a compile error there.

/// Implements [`JvpRule`](crate::jit::ad::JvpRule) for views whose outputs never carry a
/// tangent (integer or bool results, no operands): every output's tangent is zero.
macro_rules! no_tangent {
    ($($view:ty),*) => {$(
        impl crate::jit::ad::JvpRule for $view {
            fn jvp(
                &self,
                _: &[&crate::array::Array],
                outs: &[crate::array::Array],
                _: &[Option<crate::array::Array>],
            ) -> crate::error::Result<Vec<Option<crate::array::Array>>> {
                Ok(vec![None; outs.len()])
            }
        }
    )*};
}

/// Implements [`TransposeRule`](crate::jit::transpose::TransposeRule) for views of
/// primitives that are not linear: no JVP rule applies them to a tangent, so reaching one
/// in a linear graph is an error naming the operand.
macro_rules! not_linear {
    ($($view:ty),*) => {$(
        impl crate::jit::transpose::TransposeRule for $view {
            fn transpose(
                &self,
                cx: &crate::jit::transpose::Transposing,
                _: &crate::array::Array,
            ) -> crate::error::Result<Vec<Option<crate::array::Array>>> {
                Err(cx.nonlinear())
            }
        }
    )*};
}

/// Implements [`BatchRule`](crate::jit::batching::BatchRule) for views of primitives to
/// which a leading batch dimension is one more dimension (elementwise ones, sorting along
/// the last dimension): every operand batched, then the primitive itself.
macro_rules! batch_as_leading {
    ($($view:ty),*) => {$(
        impl crate::jit::batching::BatchRule for $view {
            fn batch(
                &self,
                args: &[(&crate::array::Array, bool)],
                b: usize,
            ) -> crate::error::Result<Vec<(crate::array::Array, Option<usize>)>> {
                crate::jit::batching::bind_lifted(self.primitive(), args, b)
            }
        }
    )*};
}

/// Implements [`Lowering`](crate::codegen::rules::Lowering) for views of primitives with
/// kernels of their own (or none): not elementwise.
macro_rules! own_kernels {
    ($($view:ty),*) => {$(
        impl crate::codegen::rules::Lowering for $view {
            fn elementwise(&self) -> Option<crate::codegen::rules::Elementwise> {
                None
            }
            fn moves_values(&self) -> bool {
                false
            }
            fn input_maps(
                &self,
                layouts: &[&crate::shape::Layout],
                _: &[usize],
            ) -> Vec<(crate::shape::Layout, crate::codegen::InputMap)> {
                crate::codegen::maps::plain(layouts)
            }
            fn emit(
                &self,
                _: &[String],
                _: &[crate::dtype::DType],
                _: crate::dtype::DType,
                _: &mut crate::codegen::rules::Ctx,
            ) -> crate::error::Result<String> {
                Err(crate::codegen::rules::not_elementwise(self.primitive().name()))
            }
        }
    )*};
}

/// Implements [`Evaluate`](crate::lax::eval::Evaluate) for views of elementwise
/// primitives: a one-node program of the elementwise generator.
macro_rules! evaluate_elementwise {
    ($($view:ty),*) => {$(
        impl crate::lax::eval::Evaluate for $view {
            fn evaluate(
                &self,
                dev: &crate::runtime::Device,
                inputs: &[&crate::array::Array],
                outs: Vec<crate::shape::Aval>,
            ) -> crate::error::Result<Vec<crate::array::Array>> {
                let prim = self.primitive();
                let out = crate::lax::eval::single(prim.name(), outs)?;
                Ok(vec![crate::lax::eval::elementwise_node(dev, prim, inputs, out)?])
            }
        }
    )*};
}

mod bits;
mod calls;
mod contraction;
mod creation;
mod elementwise;
mod indexing;
mod reductions;
mod sorting;
mod structural;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Aval;

/// Whether every operand is weakly typed (so an elementwise result is too).
fn all_weak(inputs: &[Aval]) -> bool {
    inputs.iter().all(|a| a.weak)
}

/// An error unless the operands have one shape (lax does not broadcast).
fn same_shapes(name: &str, avals: &[Aval]) -> Result<()> {
    if avals.windows(2).any(|w| w[0].shape != w[1].shape) {
        let shapes: Vec<&[usize]> = avals.iter().map(|a| a.shape.as_slice()).collect();
        return Err(Error::shape(
            name,
            &shapes,
            "lax operands must have equal shapes (numpy functions broadcast)",
        ));
    }
    Ok(())
}

/// An error unless the operands have one dtype (lax does not promote).
fn same_dtypes(name: &str, avals: &[Aval]) -> Result<()> {
    if avals.windows(2).any(|w| w[0].dtype != w[1].dtype) {
        let dtypes: Vec<DType> = avals.iter().map(|a| a.dtype).collect();
        return Err(Error::dtype(
            name,
            &dtypes,
            "lax operands must have equal dtypes (numpy functions promote)",
        ));
    }
    Ok(())
}

/// An error when a dimension of `x` longer than int32 can count is indexed by int32
/// positions.
fn int32_positions(name: &str, shapes: &[&[usize]], len: usize) -> Result<()> {
    if len > i32::MAX as usize {
        return Err(Error::shape(
            name,
            shapes,
            "int32 positions number at most 2^31 - 1 elements along the axis",
        ));
    }
    Ok(())
}

//! Primitives that carry a closed sub-graph: functions with custom derivative rules
//! (`custom_jvp`, `custom_vjp`) and the linear part of a `custom_vjp` call that reverse mode
//! leaves (`custom_lin`). Their transformation rules live with the rules they carry
//! (`jit/custom.rs`, `jit/linearize.rs`).

use crate::array::Array;
use crate::error::{Error, Result};
use crate::jit::ad::JvpRule;
use crate::jit::batching::{batch_call, batched_first, BatchRule};
use crate::jit::transpose::{TransposeRule, Transposing};
use crate::lax::eval::Evaluate;
use crate::primitive::params::{CustomJvpCall, CustomLin, CustomVjpCall};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{CustomCall, Primitive};
use crate::runtime::Device;
use crate::shape::Aval;

/// Implements the shape rule of a call primitive: the graph's inputs and outputs.
macro_rules! call_shape_rule {
    ($($view:ident),*) => {$(
        impl ShapeRule for $view<'_> {
            fn arity(&self) -> usize {
                self.call.fun.invars.len()
            }
            fn num_outputs(&self) -> usize {
                self.call.fun.outvars.len()
            }
            fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
                self.call.out_avals(inputs)
            }
            #[cfg(test)]
            fn examples() -> Vec<Primitive> {
                vec![Primitive::$view { call: CustomCall::example() }]
            }
        }
    )*};
}

call_shape_rule!(CustomJvpCall, CustomVjpCall, CustomLin);

/// A custom call reaching the table's JVP rules: the interpreters apply its own rules
/// (`jit/linearize.rs`).
macro_rules! own_jvp {
    ($($view:ident),*) => {$(
        impl JvpRule for $view<'_> {
            fn jvp(&self, _: &[&Array], _: &[Array], _: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
                Err(Error::arg(
                    self.primitive().name(),
                    "is differentiated by its own rules (jit/linearize.rs), not the table's",
                ))
            }
        }
    )*};
}

own_jvp!(CustomJvpCall, CustomVjpCall);

impl JvpRule for CustomLin<'_> {
    fn jvp(&self, _: &[&Array], _: &[Array], _: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        Err(Error::arg(
            "custom_lin",
            "is only transposed by reverse mode, never differentiated",
        ))
    }
}

// A call applied to tangents is inlined before transposition (`jit/compile.rs`).
not_linear!(CustomJvpCall<'_>, CustomVjpCall<'_>);

impl TransposeRule for CustomLin<'_> {
    fn transpose(&self, _: &Transposing, _: &Array) -> Result<Vec<Option<Array>>> {
        Err(Error::arg(
            "custom_lin",
            "is transposed by transpose_graph, not by a rule",
        ))
    }
}

impl BatchRule for CustomJvpCall<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(batch_call(self.call, true, args, b)?)
    }
}

impl BatchRule for CustomVjpCall<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(batch_call(self.call, false, args, b)?)
    }
}

impl BatchRule for CustomLin<'_> {
    /// Made by linearization and transposed at once, inside any vmap trace.
    fn batch(&self, _: &[(&Array, bool)], _: usize) -> Result<Vec<(Array, Option<usize>)>> {
        Err(Error::arg(
            "custom_lin",
            "is only transposed by reverse mode, never batched",
        ))
    }
}

// A call runs its graph.
own_kernels!(CustomJvpCall<'_>, CustomVjpCall<'_>, CustomLin<'_>);

/// Outside every transformation a function with custom rules is its graph.
macro_rules! evaluate_graph {
    ($($view:ident),*) => {$(
        impl Evaluate for $view<'_> {
            fn evaluate(&self, dev: &Device, inputs: &[&Array], _: Vec<Aval>) -> Result<Vec<Array>> {
                let args: Vec<Array> = inputs.iter().map(|&a| a.clone()).collect();
                let env = crate::lax::eval_graph(&self.call.fun, &[], &args, dev)?;
                self.call
                    .fun
                    .outvars
                    .iter()
                    .map(|&o| env[o].clone().ok_or_else(|| crate::lax::missing(o)))
                    .collect()
            }
        }
    )*};
}

evaluate_graph!(CustomJvpCall, CustomVjpCall);

impl Evaluate for CustomLin<'_> {
    fn evaluate(&self, _: &Device, _: &[&Array], _: Vec<Aval>) -> Result<Vec<Array>> {
        Err(Error::arg(
            &self.call.name,
            "the linearized custom_vjp function (custom_lin) can only be transposed by \
             reverse mode, not evaluated",
        ))
    }
}

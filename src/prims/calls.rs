//! Primitives that carry a closed sub-graph: functions with custom derivative rules
//! (`custom_jvp`, `custom_vjp`) and the linear part of a `custom_vjp` call that reverse mode
//! leaves (`custom_lin`). Their transformation rules live with the rules they carry
//! (`jit/custom.rs`, `jit/linearize.rs`).

use crate::error::Result;
use crate::primitive::params::{CustomJvpCall, CustomLin, CustomVjpCall};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{CustomCall, Primitive};
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

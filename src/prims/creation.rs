//! Arrays made from nothing but their shape: `full` and `iota`. Both lower to one
//! expression of the fused kernel (so a constant costs no buffer inside `jit`).

use crate::array::Array;
use crate::codegen::maps::{self, InputMap};
use crate::codegen::rules::{compute_type, convert, Ctx, Elementwise, Lowering};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::batching::BatchRule;
use crate::primitive::params::{Full, Iota};
use crate::primitive::ShapeRule;
#[cfg(test)]
use crate::primitive::{Literal, Primitive};
use crate::shape::{checked_size, Aval, Layout};

impl ShapeRule for Full<'_> {
    fn arity(&self) -> usize {
        0
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, _inputs: &[Aval]) -> Result<Vec<Aval>> {
        checked_size("full", self.shape)?;
        Ok(vec![Aval::new(
            self.shape.clone(),
            self.value.dtype(),
            false,
        )])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        DType::ALL
            .iter()
            .map(|&d| Primitive::Full {
                shape: vec![3],
                value: Literal::F32(1.0).cast(d),
            })
            .collect()
    }
}

impl ShapeRule for Iota<'_> {
    fn arity(&self) -> usize {
        0
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, _inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (shape, dimension, dtype) = (self.shape, *self.dimension, *self.dtype);
        checked_size("iota", shape)?;
        if dimension >= shape.len() {
            return Err(Error::shape(
                "iota",
                &[shape],
                format!("dimension {dimension} is out of range"),
            ));
        }
        if dtype.is_bool() {
            return Err(Error::dtype("iota", &[dtype], "iota needs a numeric dtype"));
        }
        Ok(vec![Aval::new(shape.clone(), dtype, false)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        DType::ALL
            .iter()
            .filter(|d| !d.is_bool())
            .map(|&dtype| Primitive::Iota {
                dtype,
                shape: vec![2, 3],
                dimension: 1,
            })
            .collect()
    }
}

// No operands, so no tangent.
no_tangent!(Full<'_>, Iota<'_>);

// Constants are not linear in anything.
not_linear!(Full<'_>, Iota<'_>);

/// Never batched: the interpreter calls a batching rule only for a batched operand.
macro_rules! no_operands_batch {
    ($($view:ident),*) => {$(
        impl BatchRule for $view<'_> {
            fn batch(&self, _: &[(&Array, bool)], _: usize) -> Result<Vec<(Array, Option<usize>)>> {
                Err(Error::arg(self.primitive().name(), "has no operands to batch"))
            }
        }
    )*};
}

no_operands_batch!(Full, Iota);

impl Lowering for Full<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Pointwise)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    /// The value's bits, a parameter of the kernel (so one kernel serves every value); a
    /// two-word value is two parameters.
    fn emit(&self, _: &[String], _: &[DType], out: DType, ctx: &mut Ctx) -> Result<String> {
        let [w0, w1] = self.value.compute_words();
        let m = ctx.param(w0);
        if out.words() == 2 {
            let m1 = ctx.param(w1);
            return Ok(format!(
                "bitcast<{}>(vec2<u32>({m}, {m1}))",
                compute_type(out)
            ));
        }
        Ok(match out.compute_dtype() {
            DType::Bool => format!("({m} != 0u)"),
            DType::Int32 => format!("bitcast<i32>({m})"),
            DType::UInt32 => m,
            _ => format!("bitcast<f32>({m})"),
        })
    }
}

impl Lowering for Iota<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Positional)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], _: &[usize]) -> Vec<(Layout, InputMap)> {
        maps::plain(layouts)
    }
    /// `(i / stride) % len`, without the division where the axis is innermost or the
    /// modulo where it is outermost, and each stepped from the thread's first element
    /// where the kernel walks vectors ([`Ctx::stepped_division`]): software adapters
    /// divide lane by lane, so a fused reduction over an iota (argmax's second pass), and
    /// random bits over a matrix (their counters are iotas), were bound by them.
    fn emit(&self, _: &[String], _: &[DType], out: DType, ctx: &mut Ctx) -> Result<String> {
        let (shape, dimension) = (self.shape, *self.dimension);
        let stride: usize = shape[dimension + 1..].iter().product();
        let outer: usize = shape[..dimension].iter().product();
        let (s, d) = (stride as u32, shape[dimension] as u32);
        let idx = match (stride == 1, outer == 1) {
            (true, true) => "i".to_string(),
            (true, false) => match ctx.stepped_division(d, "i", 4) {
                Some((_, r)) => r,
                None => format!("(i % {})", ctx.param(d)),
            },
            (false, true) => match ctx.stepped_division(s, "i", 4) {
                Some((q, _)) => q,
                None => format!("(i / {})", ctx.param(s)),
            },
            (false, false) => match ctx.stepped_digit(s, d, "i", 4) {
                Some(digit) => digit,
                None => format!("((i / {}) % {})", ctx.param(s), ctx.param(d)),
            },
        };
        Ok(convert(&idx, DType::UInt32, out))
    }
}

evaluate_elementwise!(Iota<'_>);

/// The most bytes a fill writes from the host ([`Full`]'s evaluation).
const HOST_FILL_BYTES: usize = 4096;

impl crate::lax::eval::Evaluate for Full<'_> {
    /// A small array is written from the host (copied at the next submit, as an upload
    /// is) rather than by a kernel: a launch (on lavapipe, a handoff to the driver's
    /// threads and back) costs far more than a copy of a few kilobytes.
    fn evaluate(
        &self,
        dev: &crate::runtime::Device,
        inputs: &[&Array],
        outs: Vec<Aval>,
    ) -> Result<Vec<Array>> {
        use crate::primitive::Literal as L;
        let out = crate::lax::eval::single("full", outs)?;
        let n = out.size();
        let small = n
            .checked_mul(out.dtype.storage_bytes())
            .is_some_and(|b| b <= HOST_FILL_BYTES);
        if small && self.value.dtype() == out.dtype {
            let s = &out.shape;
            let a = match *self.value {
                L::Bool(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::I8(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::U8(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::I16(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::U16(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::I32(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::U32(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::BF16(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::F16(v) => Array::from_slice_on(dev, &vec![v; n], s),
                L::F32(v) => Array::from_slice_on(dev, &vec![v; n], s),
                #[cfg(test)]
                L::Pair(_) => {
                    let prim = self.primitive();
                    return Ok(vec![crate::lax::eval::elementwise_node(
                        dev, prim, inputs, out,
                    )?]);
                }
            };
            return Ok(vec![a.map_err(|e| e.renamed("full"))?.with_weak(out.weak)]);
        }
        let prim = self.primitive();
        Ok(vec![crate::lax::eval::elementwise_node(
            dev, prim, inputs, out,
        )?])
    }
}

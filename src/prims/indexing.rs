//! Indexing: `gather` along one axis, `scatter` at flat positions (its own atomic kernel)
//! and `search_sorted` (a binary search per query, elementwise).

use super::{int32_positions, same_dtypes};
use crate::array::Array;
use crate::codegen::maps::{over_out, InputMap};
use crate::codegen::rules::{Ctx, Elementwise, Lowering};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::ad::{
    add, cmp, div, gather_flat, lit, mul, not_differentiable, or_zeros, sel, set_winners,
    where_or_zero, zeros, JvpRule,
};
use crate::jit::batching::{batched_first, bind_lifted, lift, BatchRule};
use crate::jit::transpose::{TransposeRule, Transposing};
use crate::lax;
use crate::lax::eval::gather::{gather_in_ranges, search_in_ranges};
use crate::lax::eval::scatter::scatter;
use crate::lax::eval::{elementwise_node, single, Evaluate};
use crate::primitive::params::{Gather, Scatter, SearchSorted};
use crate::primitive::Primitive;
use crate::primitive::{BinaryOp, CompareOp, Literal, ScatterMode, ShapeRule};
use crate::runtime::Device;
use crate::shape::{Aval, Layout};

impl ShapeRule for Gather<'_> {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, idx, axis) = (&inputs[0], &inputs[1], *self.axis);
        let r = x.shape.len();
        if axis >= r
            || idx.shape.len() != r
            || (0..r).any(|d| d != axis && idx.shape[d] != x.shape[d])
        {
            return Err(Error::shape(
                "gather",
                &[&x.shape, &idx.shape],
                format!("indices must have the operand's shape except along axis {axis}"),
            ));
        }
        if !idx.dtype.is_integer() {
            return Err(Error::dtype(
                "gather",
                &[x.dtype, idx.dtype],
                "indices must be int32 or uint32",
            ));
        }
        if x.shape[axis] == 0 && idx.size() > 0 {
            return Err(Error::shape(
                "gather",
                &[&x.shape, &idx.shape],
                format!("cannot index an empty axis {axis}"),
            ));
        }
        Ok(vec![Aval::new(idx.shape.clone(), x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Gather { axis: 1 }]
    }
}

impl ShapeRule for Scatter<'_> {
    fn arity(&self) -> usize {
        3
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, p, v) = (&inputs[0], &inputs[1], &inputs[2]);
        if p.dtype != DType::Int32 || v.dtype != x.dtype {
            return Err(Error::dtype(
                "scatter",
                &[x.dtype, p.dtype, v.dtype],
                "needs int32 positions and values of the operand's dtype",
            ));
        }
        if p.shape != v.shape {
            return Err(Error::shape(
                "scatter",
                &[&x.shape, &p.shape, &v.shape],
                "positions and values must have one shape",
            ));
        }
        if x.size() > i32::MAX as usize {
            return Err(Error::shape(
                "scatter",
                &[&x.shape],
                "scatter addresses at most 2^31 - 1 elements",
            ));
        }
        Ok(vec![x.clone()])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Scatter {
            mode: ScatterMode::Add,
        }]
    }
}

impl ShapeRule for SearchSorted<'_> {
    fn arity(&self) -> usize {
        2
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, q, axis) = (&inputs[0], &inputs[1], *self.axis);
        let r = x.shape.len();
        if axis >= r || q.shape.len() != r || (0..r).any(|d| d != axis && q.shape[d] != x.shape[d])
        {
            return Err(Error::shape(
                "search_sorted",
                &[&x.shape, &q.shape],
                format!("queries must have the sorted operand's shape except along axis {axis}"),
            ));
        }
        same_dtypes("search_sorted", inputs)?;
        int32_positions("search_sorted", &[&x.shape, &q.shape], x.shape[axis])?;
        Ok(vec![Aval::new(q.shape.clone(), DType::Int32, false)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![
            Primitive::SearchSorted {
                axis: 1,
                right: false,
            },
            Primitive::SearchSorted {
                axis: 0,
                right: true,
            },
        ]
    }
}

// ----- JVP rules -----

impl JvpRule for Gather<'_> {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        Ok(vec![match &t[0] {
            Some(t) => Some(lax::gather(t, x[1], *self.axis)?),
            None => None,
        }])
    }
}

impl JvpRule for Scatter<'_> {
    fn jvp(&self, x: &[&Array], outs: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let (base, pos, vals, out) = (x[0], x[1], x[2], &outs[0]);
        let tangent = match self.mode {
            ScatterMode::Add => Some(lax::scatter(
                &or_zeros(&t[0], base)?,
                pos,
                &or_zeros(&t[2], vals)?,
                ScatterMode::Add,
            )?),
            ScatterMode::Set => {
                // Clear the written positions, then add the winning updates' tangents.
                let cleared = lax::scatter(
                    &or_zeros(&t[0], base)?,
                    pos,
                    &zeros(vals.aval(), vals.device())?,
                    ScatterMode::Set,
                )?;
                let won = set_winners(base.shape(), pos)?;
                let tv = where_or_zero(&won, &or_zeros(&t[2], vals)?)?;
                Some(lax::scatter(&cleared, pos, &tv, ScatterMode::Add)?)
            }
            ScatterMode::Min | ScatterMode::Max => {
                // JAX's rule (`_scatter_extremal_jvp`, in its order of operations):
                // each position's tangent is the mean of its tied winners' tangents,
                // the base's among them where the base is kept. Every update carries a
                // share of the base's tangent away (`base_coef`) and brings its own
                // where it won.
                let tb = or_zeros(&t[0], base)?;
                let tu = or_zeros(&t[2], vals)?;
                let none = zeros(out.aval(), out.device())?;
                let (one, zero) = (lit(vals, 1.0)?, lit(vals, 0.0)?);
                let target = gather_flat(out, pos)?;
                let won = cmp(CompareOp::Eq, vals, &target)?;
                let kept = cmp(CompareOp::Eq, &gather_flat(base, pos)?, &target)?;
                let count =
                    |x: &Array| gather_flat(&lax::scatter(&none, pos, x, ScatterMode::Add)?, pos);
                let wins = count(&sel(&won, &one, &zero)?)?;
                let refs = count(&one)?;
                let shared = div(&one, &add(&wins, &one)?)?;
                let vals_coef = sel(&won, &sel(&kept, &shared, &div(&one, &wins)?)?, &zero)?;
                let base_norm = sel(&kept, &shared, &zero)?;
                let base_coef = div(&add(&lit(vals, -1.0)?, &base_norm)?, &refs)?;
                let moved = add(
                    &mul(&gather_flat(&tb, pos)?, &base_coef)?,
                    &mul(&tu, &vals_coef)?,
                )?;
                Some(lax::scatter(&tb, pos, &moved, ScatterMode::Add)?)
            }
            ScatterMode::Mul => {
                // The base's tangent times the factors the scatter applies
                // (`scatter_mul(ones, pos, vals)`; JAX scatters the tangent itself, the
                // same but where a position's factors over- or underflow together). As
                // in JAX, the updates have a derivative only for positions promised
                // unique, which a scatter here cannot promise; no updates have none.
                if t[2].is_some() && vals.size() > 0 {
                    return Err(not_differentiable(
                        &self.primitive(),
                        "a multiplying scatter has a derivative with respect to its \
                             updates only for unique positions (as in JAX)",
                    ));
                }
                match &t[0] {
                    Some(tb) => {
                        let one = lax::full(
                            &[],
                            Literal::from_f64(1.0, base.dtype()),
                            Some(base.device()),
                        )?;
                        let ones = lax::broadcast_in_dim(&one, base.shape(), &[])?;
                        let factors = lax::scatter(&ones, pos, vals, ScatterMode::Mul)?;
                        Some(mul(tb, &factors)?)
                    }
                    None => None,
                }
            }
        };
        Ok(vec![tangent])
    }
}

// Positions are integers: no tangent.
no_tangent!(SearchSorted<'_>);

// ----- lowering -----

impl Lowering for Gather<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Indexed)
    }
    fn moves_values(&self) -> bool {
        true
    }
    fn input_maps(&self, layouts: &[&Layout], out_shape: &[usize]) -> Vec<(Layout, InputMap)> {
        gather_maps(layouts, out_shape, *self.axis)
    }
    /// The operand's input map read at the index (`ld_`, which clamps it); uint32 indices
    /// past int32's range clamp to its largest.
    fn emit(&self, args: &[String], arg_dtypes: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        let (a, b) = (&args[0], &args[1]);
        let j = match arg_dtypes[1].compute_dtype() {
            DType::UInt32 => format!("i32(min({b}, 0x7fffffffu))"),
            _ => b.to_string(),
        };
        Ok(format!("ld_{a}(i, {j})"))
    }
}

impl Lowering for SearchSorted<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Indexed)
    }
    fn moves_values(&self) -> bool {
        false
    }
    fn input_maps(&self, layouts: &[&Layout], out_shape: &[usize]) -> Vec<(Layout, InputMap)> {
        gather_maps(layouts, out_shape, *self.axis)
    }
    /// The binary search the generator declares for the sorted operand.
    fn emit(&self, args: &[String], _: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        let side = if *self.right { "r" } else { "l" };
        Ok(format!("search_{side}_{}(i, {})", args[0], args[1]))
    }
}

/// Gather and search maps: the operand read along `axis` at a loaded index (its stride 0
/// there, `ld_` or the search adding the index's), the indices at the output index.
fn gather_maps(layouts: &[&Layout], out_shape: &[usize], axis: usize) -> Vec<(Layout, InputMap)> {
    let (x, idx) = (layouts[0], layouts[1]);
    let mut v = over_out(x, out_shape);
    v.strides[axis] = 0;
    let map = InputMap::Gather {
        stride: x.strides[axis],
        len: x.shape[axis],
    };
    vec![(v, map), (idx.clone(), InputMap::Plain)]
}

// Scatter has its own atomic kernel.
own_kernels!(Scatter<'_>);

// ----- evaluation -----

impl Evaluate for Gather<'_> {
    /// An elementwise kernel, run by ranges of rows where the operand is past one binding.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("gather", outs)?;
        if let Some(r) = gather_in_ranges(dev, *self.axis, inputs[0], inputs[1], &out)? {
            return Ok(vec![r]);
        }
        Ok(vec![elementwise_node(dev, self.primitive(), inputs, out)?])
    }
}

impl Evaluate for SearchSorted<'_> {
    /// An elementwise kernel, run by ranges of rows where the operand is past one binding.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("search_sorted", outs)?;
        let params = (*self.axis, *self.right);
        if let Some(r) = search_in_ranges(dev, params, inputs[0], inputs[1], &out)? {
            return Ok(vec![r]);
        }
        Ok(vec![elementwise_node(dev, self.primitive(), inputs, out)?])
    }
}

impl Evaluate for Scatter<'_> {
    /// A copy of the operand, then the atomic scatter kernel.
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("scatter", outs)?;
        Ok(vec![scatter(dev, inputs, *self.mode, out)?])
    }
}

// ----- batching rules (batched operands have their batch dimension first) -----

impl BatchRule for Gather<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        bind_lifted(
            Primitive::Gather {
                axis: self.axis + 1,
            },
            args,
            b,
        )
    }
}

impl BatchRule for SearchSorted<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let prim = Primitive::SearchSorted {
            axis: self.axis + 1,
            right: *self.right,
        };
        bind_lifted(prim, args, b)
    }
}

impl BatchRule for Scatter<'_> {
    /// Flat positions address one example: they are shifted into the example's block of
    /// the batched operand, out-of-range positions kept out of range.
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let base = lift(args[0].0, args[0].1, b)?;
        let vals = lift(args[2].0, args[2].1, b)?;
        let pos = lift(args[1].0, args[1].1, b)?;
        let n = base.size() / b.max(1);
        let dev = pos.device();
        let c = |v: i64| lax::full(pos.shape(), Literal::I32(v as i32), Some(dev));
        let valid = lax::binary(
            BinaryOp::And,
            &lax::compare(CompareOp::Ge, &pos, &c(0)?)?,
            &lax::compare(CompareOp::Lt, &pos, &c(n as i64)?)?,
        )?;
        let offset = lax::binary(
            BinaryOp::Mul,
            &lax::iota(DType::Int32, pos.shape(), 0, Some(dev))?,
            &c(n as i64)?,
        )?;
        let shifted_pos =
            lax::select(&valid, &lax::binary(BinaryOp::Add, &pos, &offset)?, &c(-1)?)?;
        batched_first(vec![lax::scatter(&base, &shifted_pos, &vals, *self.mode)?])
    }
}

// ----- transpose rules -----

impl TransposeRule for Gather<'_> {
    /// Linear in the operand for known indices: the cotangent added at the positions read.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        cx.only_linear(0)?;
        let idx = cx.known(1)?;
        let x = cx.x[0];
        let pos = gather_positions(x.shape(), idx, *self.axis)?;
        let base = zeros(x.aval(), ct.device())?;
        Ok(vec![
            Some(lax::scatter(&base, &pos, ct, ScatterMode::Add)?),
            None,
        ])
    }
}

impl TransposeRule for Scatter<'_> {
    /// Adding and setting scatters are linear in the operand and the updates, for known
    /// positions; min, max and mul are not.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let mode = *self.mode;
        if !matches!(mode, ScatterMode::Add | ScatterMode::Set) {
            return Err(cx.nonlinear());
        }
        let pos = cx.known(1)?;
        let vals = cx.x[2].aval();
        let mut out = cx.none();
        if cx.lin(0) {
            out[0] = Some(match mode {
                ScatterMode::Add => ct.clone(),
                // The written positions take the updates, not the operand.
                _ => lax::scatter(ct, pos, &zeros(vals, ct.device())?, mode)?,
            });
        }
        if cx.lin(2) {
            let g = gather_flat(ct, pos)?;
            out[2] = Some(match mode {
                ScatterMode::Add => g,
                _ => where_or_zero(&set_winners(cx.x[0].shape(), pos)?, &g)?,
            });
        }
        Ok(out)
    }
}

not_linear!(SearchSorted<'_>);

/// The flat positions in `x` (of `shape`) that `gather(x, idx, axis)` reads, clamped as the
/// gather clamps them.
fn gather_positions(shape: &[usize], idx: &Array, axis: usize) -> Result<Array> {
    let dev = idx.device();
    let q = idx.shape();
    let i32c = |v: usize| lax::full(q, Literal::I32(v as i32), Some(dev));
    let hi = shape[axis].saturating_sub(1);
    let coord = if idx.dtype() == DType::UInt32 {
        let top = lax::full(q, Literal::U32(hi as u32), Some(dev))?;
        lax::convert_element_type(&lax::binary(BinaryOp::Min, idx, &top)?, DType::Int32)?
    } else {
        let c = lax::convert_element_type(idx, DType::Int32)?;
        lax::binary(
            BinaryOp::Min,
            &lax::binary(BinaryOp::Max, &c, &i32c(0)?)?,
            &i32c(hi)?,
        )?
    };
    let mut stride = 1usize;
    let mut pos: Option<Array> = None;
    for d in (0..shape.len()).rev() {
        let c = if d == axis {
            coord.clone()
        } else {
            lax::iota(DType::Int32, q, d, Some(dev))?
        };
        let term = if stride == 1 {
            c
        } else {
            mul(&c, &i32c(stride)?)?
        };
        pos = Some(match pos {
            None => term,
            Some(p) => add(&p, &term)?,
        });
        stride *= shape[d];
    }
    match pos {
        Some(p) => Ok(p),
        None => i32c(0),
    }
}

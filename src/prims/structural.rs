//! Structural primitives: broadcasts, transposes, reshapes, reversals and slices (views
//! over the operand's buffer), and concatenation and padding (elementwise kernels that
//! pick a source per output position).

use super::{all_weak, same_dtypes};
use crate::array::Array;
use crate::codegen::maps::{over_out, InputMap};
use crate::codegen::rules::{emit, Ctx, Elementwise, Lowering};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::jit::ad::{add, linear, or_zeros, sum_axes, JvpRule};
use crate::jit::batching::{batched_first, bind_lifted, prepend, shifted, BatchRule};
use crate::jit::transpose::{TransposeRule, Transposing};
use crate::lax;
use crate::lax::eval::gather::concatenate;
use crate::lax::eval::{elementwise_node, single, Evaluate};
use crate::primitive::params::{BroadcastInDim, Concatenate, Pad, Reshape, Rev, Slice, Transpose};
use crate::primitive::Primitive;
use crate::primitive::{Literal, ReduceOp, ShapeRule};
use crate::runtime::Device;
use crate::shape::{checked_size, contiguous_strides, dim_sum, Aval, Layout};

impl ShapeRule for BroadcastInDim<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, shape, dims) = (&inputs[0], self.shape, self.broadcast_dimensions);
        let ok = dims.len() == x.shape.len()
            && dims.windows(2).all(|w| w[0] < w[1])
            && dims
                .iter()
                .zip(&x.shape)
                .all(|(&d, &s)| d < shape.len() && (s == 1 || s == shape[d]));
        if !ok {
            return Err(Error::shape(
                "broadcast_in_dim",
                &[&x.shape, shape],
                format!(
                    "broadcast_dimensions {dims:?} do not map the operand into the output shape"
                ),
            ));
        }
        checked_size("broadcast_in_dim", shape)?;
        Ok(vec![Aval::new(shape.clone(), x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::BroadcastInDim {
            shape: vec![2, 3],
            broadcast_dimensions: vec![1],
        }]
    }
}

impl ShapeRule for Transpose<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, permutation) = (&inputs[0], self.permutation);
        let mut seen = vec![false; x.shape.len()];
        let ok = permutation.len() == x.shape.len()
            && permutation
                .iter()
                .all(|&p| p < seen.len() && !std::mem::replace(&mut seen[p], true));
        if !ok {
            return Err(Error::shape(
                "transpose",
                &[&x.shape],
                format!("{permutation:?} is not a permutation of the operand's dimensions"),
            ));
        }
        let shape = permutation.iter().map(|&p| x.shape[p]).collect();
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Transpose {
            permutation: vec![1, 0],
        }]
    }
}

impl ShapeRule for Reshape<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, new_sizes) = (&inputs[0], self.new_sizes);
        let n = checked_size("reshape", new_sizes)?;
        if n != x.size() {
            return Err(Error::shape(
                "reshape",
                &[&x.shape, new_sizes],
                format!("cannot reshape {} elements into {n}", x.size()),
            ));
        }
        Ok(vec![Aval::new(new_sizes.clone(), x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Reshape {
            new_sizes: vec![3, 2],
        }]
    }
}

impl ShapeRule for Rev<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, dimensions) = (&inputs[0], self.dimensions);
        if dimensions.iter().any(|&d| d >= x.shape.len()) {
            return Err(Error::shape(
                "rev",
                &[&x.shape],
                format!("dimensions {dimensions:?} are out of range"),
            ));
        }
        Ok(vec![x.clone()])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Rev {
            dimensions: vec![0],
        }]
    }
}

impl ShapeRule for Slice<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let x = &inputs[0];
        let (start, limit, strides) = (self.start_indices, self.limit_indices, self.strides);
        let r = x.shape.len();
        let ok = start.len() == r
            && limit.len() == r
            && strides.len() == r
            && (0..r).all(|d| start[d] <= limit[d] && limit[d] <= x.shape[d] && strides[d] >= 1);
        if !ok {
            return Err(Error::shape(
                "slice",
                &[&x.shape],
                format!("start {start:?}, limit {limit:?}, strides {strides:?} do not describe a window of the operand"),
            ));
        }
        let shape = (0..r)
            .map(|d| (limit[d] - start[d]).div_ceil(strides[d]))
            .collect();
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Slice {
            start_indices: vec![0, 1],
            limit_indices: vec![2, 3],
            strides: vec![1, 2],
        }]
    }
}

impl ShapeRule for Concatenate<'_> {
    fn arity(&self) -> usize {
        usize::MAX
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, dimension) = (&inputs[0], *self.dimension);
        let r = x.shape.len();
        let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape.as_slice()).collect();
        if dimension >= r
            || inputs.iter().any(|a| {
                a.shape.len() != r || (0..r).any(|d| d != dimension && a.shape[d] != x.shape[d])
            })
        {
            return Err(Error::shape(
                "concatenate",
                &shapes,
                format!("operands must have equal shapes except along dimension {dimension}"),
            ));
        }
        same_dtypes("concatenate", inputs)?;
        let mut shape = x.shape.clone();
        shape[dimension] = dim_sum(
            "concatenate",
            &shapes,
            inputs.iter().map(|a| a.shape[dimension]),
        )?;
        checked_size("concatenate", &shape)?;
        Ok(vec![Aval::new(shape, x.dtype, all_weak(inputs))])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        vec![Primitive::Concatenate { dimension: 1 }]
    }
}

impl ShapeRule for Pad<'_> {
    fn arity(&self) -> usize {
        1
    }
    fn num_outputs(&self) -> usize {
        1
    }
    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let (x, low, high) = (&inputs[0], self.low, self.high);
        let r = x.shape.len();
        if low.len() != r || high.len() != r {
            return Err(Error::shape(
                "pad",
                &[&x.shape],
                format!("low {low:?} and high {high:?} need one entry per dimension"),
            ));
        }
        if let Some(v) = self.value {
            if v.dtype() != x.dtype {
                return Err(Error::dtype(
                    "pad",
                    &[x.dtype, v.dtype()],
                    "the padding value must have the operand's dtype",
                ));
            }
        } else if (0..r).any(|d| x.shape[d] == 0 && (low[d] > 0 || high[d] > 0)) {
            return Err(Error::shape(
                "pad",
                &[&x.shape],
                "edge padding needs a non-empty operand along padded dimensions",
            ));
        }
        let shape = (0..r)
            .map(|d| dim_sum("pad", &[&x.shape], [low[d], x.shape[d], high[d]]))
            .collect::<Result<Vec<usize>>>()?;
        checked_size("pad", &shape)?;
        Ok(vec![Aval::new(shape, x.dtype, x.weak)])
    }
    #[cfg(test)]
    fn examples() -> Vec<Primitive> {
        [None, Some(Literal::F32(0.0))]
            .into_iter()
            .map(|value| Primitive::Pad {
                low: vec![0, 1],
                high: vec![1, 0],
                value,
            })
            .collect()
    }
}

// ----- JVP rules -----

/// Views are linear: each applies itself to the tangent.
macro_rules! self_linear_jvp {
    ($($view:ty),*) => {$(
        impl JvpRule for $view {
            fn jvp(&self, _: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
                linear(self.primitive(), &t[0])
            }
        }
    )*};
}

self_linear_jvp!(
    BroadcastInDim<'_>,
    Transpose<'_>,
    Reshape<'_>,
    Rev<'_>,
    Slice<'_>
);

impl JvpRule for Pad<'_> {
    fn jvp(&self, _: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        linear(
            crate::primitive::Primitive::Pad {
                low: self.low.clone(),
                high: self.high.clone(),
                // The padding value is a constant: its tangent is zero.
                value: self.value.map(|v| Literal::from_f64(0.0, v.dtype())),
            },
            &t[0],
        )
    }
}

impl JvpRule for Concatenate<'_> {
    fn jvp(&self, x: &[&Array], _: &[Array], t: &[Option<Array>]) -> Result<Vec<Option<Array>>> {
        let parts = t
            .iter()
            .zip(x)
            .map(|(t, x)| or_zeros(t, x))
            .collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Array> = parts.iter().collect();
        Ok(vec![Some(lax::bind(self.primitive(), &refs, None)?)])
    }
}

// ----- transpose rules -----

impl TransposeRule for BroadcastInDim<'_> {
    /// Sums over the dimensions the broadcast added or stretched.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let (shape, dims) = (self.shape, self.broadcast_dimensions);
        let xs = cx.x[0].shape();
        let axes: Vec<usize> = (0..shape.len())
            .filter(|d| match dims.iter().position(|b| b == d) {
                None => true,
                Some(i) => xs[i] == 1 && shape[*d] != 1,
            })
            .collect();
        let s = sum_axes(ct, &axes)?;
        Ok(vec![Some(if s.shape() == xs {
            s
        } else {
            lax::reshape(&s, xs)?
        })])
    }
}

impl TransposeRule for Transpose<'_> {
    /// The inverse permutation.
    fn transpose(&self, _: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let mut inv = vec![0; self.permutation.len()];
        for (i, &p) in self.permutation.iter().enumerate() {
            inv[p] = i;
        }
        Ok(vec![Some(lax::transpose(ct, &inv)?)])
    }
}

impl TransposeRule for Reshape<'_> {
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        Ok(vec![Some(lax::reshape(ct, cx.x[0].shape())?)])
    }
}

impl TransposeRule for Rev<'_> {
    fn transpose(&self, _: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        Ok(vec![Some(lax::rev(ct, self.dimensions)?)])
    }
}

impl TransposeRule for Slice<'_> {
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        Ok(vec![Some(slice_transpose(
            ct,
            cx.x[0].shape(),
            self.start_indices,
            self.limit_indices,
            self.strides,
        )?)])
    }
}

impl TransposeRule for Concatenate<'_> {
    /// Each linear operand's window of the cotangent.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        let dimension = *self.dimension;
        let mut out = cx.none();
        let mut start = 0;
        for (k, a) in cx.x.iter().enumerate() {
            let mut lo = vec![0; ct.ndim()];
            let mut hi = ct.shape().to_vec();
            lo[dimension] = start;
            hi[dimension] = start + a.shape()[dimension];
            start = hi[dimension];
            if a.is_linear() {
                out[k] = Some(lax::slice(ct, &lo, &hi, None)?);
            }
        }
        Ok(out)
    }
}

impl TransposeRule for Pad<'_> {
    /// The padding value is a constant (zero in the JVP rule): only the operand is linear.
    fn transpose(&self, cx: &Transposing, ct: &Array) -> Result<Vec<Option<Array>>> {
        Ok(vec![Some(pad_transpose(
            ct,
            cx.x[0].shape(),
            self.low,
            self.high,
            self.value.is_none(),
        )?)])
    }
}

/// The transpose of `slice`: `ct` placed back at its window of a zero array of `shape`.
fn slice_transpose(
    ct: &Array,
    shape: &[usize],
    start: &[usize],
    limit: &[usize],
    strides: &[usize],
) -> Result<Array> {
    let mut cur = ct.clone();
    for d in 0..shape.len() {
        let s = strides[d];
        // One element (or none) needs no spreading: the padding below places it (and a
        // huge step would spread it over more elements than any array holds).
        if s == 1 || cur.shape()[d] <= 1 {
            continue;
        }
        // Interleave s - 1 zeros after each element: [.., m, ..] -> [.., m, s, ..] ->
        // [.., m*s, ..], then keep the window's length.
        let m = cur.shape()[d];
        let mut split = cur.shape().to_vec();
        split.insert(d + 1, 1);
        let mut hi = vec![0; split.len()];
        hi[d + 1] = s - 1;
        let zero = Some(Literal::from_f64(0.0, ct.dtype()));
        let spread = lax::pad(
            &lax::reshape(&cur, &split)?,
            &vec![0; split.len()],
            &hi,
            zero,
        )?;
        let mut merged = cur.shape().to_vec();
        merged[d] = m * s;
        let merged_arr = lax::reshape(&spread, &merged)?;
        let mut lim = merged.clone();
        lim[d] = limit[d] - start[d];
        cur = lax::slice(&merged_arr, &vec![0; merged.len()], &lim, None)?;
    }
    let low = start.to_vec();
    let high: Vec<usize> = (0..shape.len())
        .map(|d| shape[d] - start[d] - cur.shape()[d])
        .collect();
    if low.iter().chain(&high).all(|&p| p == 0) {
        return Ok(cur);
    }
    lax::pad(&cur, &low, &high, Some(Literal::from_f64(0.0, ct.dtype())))
}

/// The transpose of `pad`: the window of `ct` over the operand, plus (for edge padding) the
/// padded regions summed into the edge elements they copied.
fn pad_transpose(
    ct: &Array,
    shape: &[usize],
    low: &[usize],
    high: &[usize],
    edge: bool,
) -> Result<Array> {
    let mut cur = ct.clone();
    for d in 0..shape.len() {
        if low[d] + high[d] == 0 {
            continue;
        }
        let n = shape[d];
        let window = |a: &Array, from: usize, to: usize| -> Result<Array> {
            let mut lo = vec![0; a.ndim()];
            let mut hi = a.shape().to_vec();
            lo[d] = from;
            hi[d] = to;
            lax::slice(a, &lo, &hi, None)
        };
        let mut mid = window(&cur, low[d], low[d] + n)?;
        if edge && n > 0 {
            let zero = Some(Literal::from_f64(0.0, ct.dtype()));
            let mut one = cur.shape().to_vec();
            one[d] = 1;
            let r = cur.ndim();
            let onto = |region: Array, first: bool| -> Result<Array> {
                let s = lax::reshape(&lax::reduce(ReduceOp::Sum, &region, &[d])?, &one)?;
                let mut lo = vec![0; r];
                let mut hi = vec![0; r];
                if first {
                    hi[d] = n - 1;
                } else {
                    lo[d] = n - 1;
                }
                lax::pad(&s, &lo, &hi, zero)
            };
            if low[d] > 0 {
                mid = add(&mid, &onto(window(&cur, 0, low[d])?, true)?)?;
            }
            if high[d] > 0 {
                let total = cur.shape()[d];
                mid = add(&mid, &onto(window(&cur, total - high[d], total)?, false)?)?;
            }
        }
        cur = mid;
    }
    Ok(cur)
}

// ----- batching rules (batched operands have their batch dimension first) -----

impl BatchRule for BroadcastInDim<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::broadcast_in_dim(
            args[0].0,
            &prepend(b, self.shape),
            &prepend(0, &shifted(self.broadcast_dimensions)),
        )?])
    }
}

impl BatchRule for Transpose<'_> {
    fn batch(&self, args: &[(&Array, bool)], _: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::transpose(
            args[0].0,
            &prepend(0, &shifted(self.permutation)),
        )?])
    }
}

impl BatchRule for Reshape<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::reshape(args[0].0, &prepend(b, self.new_sizes))?])
    }
}

impl BatchRule for Rev<'_> {
    fn batch(&self, args: &[(&Array, bool)], _: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::rev(args[0].0, &shifted(self.dimensions))?])
    }
}

impl BatchRule for Slice<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::slice(
            args[0].0,
            &prepend(0, self.start_indices),
            &prepend(b, self.limit_indices),
            Some(&prepend(1, self.strides)),
        )?])
    }
}

impl BatchRule for Concatenate<'_> {
    fn batch(&self, args: &[(&Array, bool)], b: usize) -> Result<Vec<(Array, Option<usize>)>> {
        let prim = Primitive::Concatenate {
            dimension: self.dimension + 1,
        };
        bind_lifted(prim, args, b)
    }
}

impl BatchRule for Pad<'_> {
    fn batch(&self, args: &[(&Array, bool)], _: usize) -> Result<Vec<(Array, Option<usize>)>> {
        batched_first(vec![lax::pad(
            args[0].0,
            &prepend(0, self.low),
            &prepend(0, self.high),
            *self.value,
        )?])
    }
}

// ----- lowering -----

// Views: metadata over the operand's buffer, no kernel.
own_kernels!(
    BroadcastInDim<'_>,
    Transpose<'_>,
    Reshape<'_>,
    Rev<'_>,
    Slice<'_>
);

impl Lowering for Concatenate<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Indexed)
    }
    fn moves_values(&self) -> bool {
        true
    }
    /// Each operand over its run of the joined dimension, clamped (`inb_` tells where it
    /// is in range).
    fn input_maps(&self, layouts: &[&Layout], out_shape: &[usize]) -> Vec<(Layout, InputMap)> {
        let dimension = *self.dimension;
        let mut lo = 0usize;
        layouts
            .iter()
            .map(|l| {
                let map = (0..out_shape.len())
                    .map(|d| {
                        if d == dimension {
                            (lo as isize, l.shape[d])
                        } else {
                            (0, out_shape[d])
                        }
                    })
                    .collect();
                lo += l.shape[dimension];
                (over_out(l, out_shape), InputMap::Clamp(map))
            })
            .collect()
    }
    /// Operand k covers the output where its coordinates are in range (its input map's
    /// `inb_`); the last covers the rest.
    fn emit(&self, args: &[String], _: &[DType], _: DType, _: &mut Ctx) -> Result<String> {
        let mut e = args[args.len() - 1].clone();
        for a in args[..args.len() - 1].iter().rev() {
            e = format!("select({e}, {a}, inb_{a}(i))");
        }
        Ok(e)
    }
}

impl Lowering for Pad<'_> {
    fn elementwise(&self) -> Option<Elementwise> {
        Some(Elementwise::Indexed)
    }
    fn moves_values(&self) -> bool {
        true
    }
    /// The operand shifted by the low padding, clamped (so edge padding reads the nearest
    /// element).
    fn input_maps(&self, layouts: &[&Layout], out_shape: &[usize]) -> Vec<(Layout, InputMap)> {
        let l = layouts[0];
        let map = (0..out_shape.len())
            .map(|d| (self.low[d] as isize, l.shape[d]))
            .collect();
        vec![(over_out(l, out_shape), InputMap::Clamp(map))]
    }
    /// The operand where its input map is in range, else the value (edge padding clamps
    /// the map instead).
    fn emit(&self, args: &[String], _: &[DType], out: DType, ctx: &mut Ctx) -> Result<String> {
        let a = &args[0];
        Ok(match self.value {
            None => a.clone(),
            Some(v) => {
                let full = Primitive::Full {
                    shape: vec![],
                    value: *v,
                };
                let fill = emit(&full, &[], &[], out, ctx)?;
                format!("select({fill}, {a}, inb_{a}(i))")
            }
        })
    }
}

// ----- evaluation: views over the operand's buffer -----

impl Evaluate for BroadcastInDim<'_> {
    /// Stride 0 along the new and the stretched dimensions.
    fn evaluate(&self, _: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let (x, out) = (inputs[0], single("broadcast_in_dim", outs)?);
        let l = x.layout();
        let mut strides = vec![0isize; self.shape.len()];
        for (i, &d) in self.broadcast_dimensions.iter().enumerate() {
            strides[d] = if l.shape[i] == 1 { 0 } else { l.strides[i] };
        }
        let layout = Layout {
            shape: self.shape.clone(),
            strides,
            offset: l.offset,
        };
        Ok(vec![x.with_layout(layout, out)])
    }
}

impl Evaluate for Transpose<'_> {
    fn evaluate(&self, _: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let (x, out) = (inputs[0], single("transpose", outs)?);
        let l = x.layout();
        let layout = Layout {
            shape: self.permutation.iter().map(|&p| l.shape[p]).collect(),
            strides: self.permutation.iter().map(|&p| l.strides[p]).collect(),
            offset: l.offset,
        };
        Ok(vec![x.with_layout(layout, out)])
    }
}

impl Evaluate for Reshape<'_> {
    /// A view where the layout allows one, else a contiguous copy first.
    fn evaluate(&self, _: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let (x, out) = (inputs[0], single("reshape", outs)?);
        if let Some(layout) = x.layout().reshaped(self.new_sizes) {
            return Ok(vec![x.with_layout(layout, out)]);
        }
        let base = x.contiguous()?;
        let layout = Layout {
            shape: self.new_sizes.clone(),
            strides: contiguous_strides(self.new_sizes),
            offset: base.layout().offset,
        };
        Ok(vec![base.with_layout(layout, out)])
    }
}

impl Evaluate for Slice<'_> {
    fn evaluate(&self, _: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let (x, out) = (inputs[0], single("slice", outs)?);
        let l = x.layout();
        let offset = l.offset as isize
            + self
                .start_indices
                .iter()
                .zip(&l.strides)
                .map(|(&s, &st)| s as isize * st)
                .sum::<isize>();
        let layout = Layout {
            shape: out.shape.clone(),
            // A step only matters where the window holds two elements or more (then the
            // product stays inside the buffer); a huge step past the end of a shorter
            // window leaves the stride as it was.
            strides: (0..l.shape.len())
                .map(|d| {
                    if out.shape[d] > 1 {
                        l.strides[d] * self.strides[d] as isize
                    } else {
                        l.strides[d]
                    }
                })
                .collect(),
            offset: if out.size() == 0 {
                l.offset
            } else {
                offset as usize
            },
        };
        Ok(vec![x.with_layout(layout, out)])
    }
}

impl Evaluate for Rev<'_> {
    /// Negative strides from the last element of each reversed dimension.
    fn evaluate(&self, _: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let (x, out) = (inputs[0], single("rev", outs)?);
        let l = x.layout();
        let mut layout = l.clone();
        for &d in self.dimensions {
            if l.shape[d] > 1 {
                let shift = (l.shape[d] as isize - 1) * l.strides[d];
                layout.offset = (layout.offset as isize + shift) as usize;
                layout.strides[d] = -l.strides[d];
            }
        }
        Ok(vec![x.with_layout(layout, out)])
    }
}

impl Evaluate for Concatenate<'_> {
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("concatenate", outs)?;
        Ok(vec![concatenate(dev, *self.dimension, inputs, out)?])
    }
}

impl Evaluate for Pad<'_> {
    fn evaluate(&self, dev: &Device, inputs: &[&Array], outs: Vec<Aval>) -> Result<Vec<Array>> {
        let out = single("pad", outs)?;
        if let (Some(v), 0) = (self.value, inputs[0].size()) {
            // Nothing to copy: the result is all padding.
            let full = lax::full(&out.shape, *v, Some(dev))?;
            return Ok(vec![full.with_weak(out.weak)]);
        }
        Ok(vec![elementwise_node(dev, self.primitive(), inputs, out)?])
    }
}

//! `olympus::lax`: the primitives, which take arrays only.
//!
//! Conversion of array-like values (scalars, Vecs, user types implementing
//! [`SupportsOlympusArray`](crate::SupportsOlympusArray)) is a feature of
//! [`olympus::numpy`](crate::numpy), as JEP 28661 decides; `lax` functions take `&Array`
//! and check shapes and dtypes strictly (no broadcasting, no promotion), like `jax.lax`.
//!
//! Every operation is one variant of [`Primitive`], the one primitive table; its rules
//! (shape, lowering, evaluation, JVP, transpose, batching) sit together in its family's
//! file under `prims/` (see ARCHITECTURE.md). `bind` applies the shape rule and records an
//! equation under a trace or evaluates it (`eval/`).

pub(crate) mod eval;
mod read;

pub use read::PrintOptions;
pub(crate) use read::{print_options, replace_print_options};

pub use crate::primitive::{
    BinaryOp, CompareOp, CumulativeOp, Literal, Primitive, ReduceOp, ScatterMode, ThreefryOutput,
    UnaryOp,
};
pub(crate) use eval::common_device;
pub(crate) use eval::eval_all as eval_primitive;
pub(crate) use eval::{dot_with, fused_reduce_with, reduce_with, EpilogueCall};
#[cfg(test)]
pub(crate) use eval::{elementwise_kernel, Operand};
pub(crate) use eval::{run_cached as run_program_cached, KernelCache};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::primitive::{var_name, Graph};
use crate::runtime::Device;

/// Binds a single-output primitive to its operands: checks them with the shape/dtype rule
/// and evaluates (a view, or a one-node program through the kernel generator, encoded
/// asynchronously), or, while a function is traced by [`jit`](crate::jit::jit), records an
/// equation. A primitive of several outputs is an error here: [`bind_all`].
///
/// `device` places primitives without operands (`full`, `iota`); otherwise the operands'
/// common device is used.
pub fn bind(prim: Primitive, inputs: &[&Array], device: Option<&Device>) -> Result<Array> {
    let outputs = prim.num_outputs();
    if outputs != 1 {
        return Err(crate::Error::arg(
            prim.name(),
            format!("has {outputs} outputs, not one (bind it with `bind_all`)"),
        ));
    }
    let mut outs = bind_all(prim, inputs, device)?;
    outs.pop()
        .ok_or_else(|| crate::Error::arg("bind", "a primitive gave no output"))
}

/// Binds a primitive of any number of outputs ([`bind`] for one), giving every output.
pub fn bind_all(prim: Primitive, inputs: &[&Array], device: Option<&Device>) -> Result<Vec<Array>> {
    let avals: Vec<_> = inputs.iter().map(|a| a.aval().clone()).collect();
    let outs = prim.abstract_eval_all(&avals)?;
    if let Some(traced) = crate::trace::record(&prim, inputs, &outs) {
        return traced;
    }
    eval::eval_all(prim, inputs, outs, device)
}

/// Evaluates `graph` on `consts` and `args` by binding each equation: eagerly on concrete
/// arrays, or recorded into the enclosing trace when there is one. Returns every
/// variable's value (`None` for values never computed) so transformations can reuse them.
/// This is how a primitive holding a sub-graph runs it.
pub(crate) fn eval_graph(
    graph: &Graph,
    consts: &[Array],
    args: &[Array],
    device: &Device,
) -> Result<Vec<Option<Array>>> {
    let mut env: Vec<Option<Array>> = vec![None; graph.avals.len()];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        env[v] = Some(a.clone());
    }
    for (&v, a) in graph.invars.iter().zip(args) {
        env[v] = Some(a.clone());
    }
    for e in &graph.eqns {
        let ins = e
            .inputs
            .iter()
            .map(|&i| env[i].as_ref().ok_or_else(|| missing(i)))
            .collect::<Result<Vec<&Array>>>()?;
        let outs = bind_all(e.prim.clone(), &ins, Some(device))?;
        for (&o, a) in e.outs.iter().zip(outs) {
            env[o] = Some(a);
        }
    }
    Ok(env)
}

/// The error for a graph variable without a value (a malformed graph).
pub(crate) fn missing(v: usize) -> crate::Error {
    crate::Error::Tracing {
        func: "graph evaluation".into(),
        traced: "the traced function".into(),
        reason: format!("variable {} has no value", var_name(v)),
    }
}

/// Applies an elementwise unary op.
pub fn unary(op: UnaryOp, x: &Array) -> Result<Array> {
    bind(Primitive::Unary(op), &[x], None)
}

/// Applies an elementwise binary op; shapes and dtypes must match.
pub fn binary(op: BinaryOp, x: &Array, y: &Array) -> Result<Array> {
    bind(Primitive::Binary(op), &[x, y], None)
}

/// Compares elementwise; shapes and dtypes must match; the result is bool.
pub fn compare(op: CompareOp, x: &Array, y: &Array) -> Result<Array> {
    bind(Primitive::Compare(op), &[x, y], None)
}

/// `pred ? on_true : on_false` elementwise (`jax.lax.select`).
pub fn select(pred: &Array, on_true: &Array, on_false: &Array) -> Result<Array> {
    bind(Primitive::Select, &[pred, on_true, on_false], None)
}

/// `x` clamped into `[min, max]` elementwise (`jax.lax.clamp`): `min(max(x, min), max)`,
/// so a NaN in any operand gives NaN. `min` and `max` have `x`'s dtype and either its shape
/// or none (0-d, broadcast), as in JAX; where `min > max` the result is `max`.
///
/// ```
/// use olympus::{lax, numpy as np};
/// let x = np::array([-2.0f32, 0.5, 3.0, f32::NAN])?;
/// let (lo, hi) = (np::array(0.0f32)?, np::array(1.0f32)?);
/// let y = lax::clamp(&lo, &x, &hi)?.to_vec::<f32>()?;
/// assert_eq!(&y[..3], &[0.0, 0.5, 1.0]);
/// assert!(y[3].is_nan());
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn clamp(min: &Array, x: &Array, max: &Array) -> Result<Array> {
    let fit = |bound: &Array| -> Result<Array> {
        if bound.shape() == x.shape() {
            return Ok(bound.clone());
        }
        if bound.ndim() != 0 {
            return Err(crate::Error::shape(
                "clamp",
                &[min.shape(), x.shape(), max.shape()],
                "min and max must have the operand's shape or be 0-d",
            ));
        }
        broadcast_in_dim(bound, x.shape(), &[])
    };
    bind(Primitive::Clamp, &[&fit(min)?, x, &fit(max)?], None)
}

/// Elementwise `x + y` (logical or for bool). Shapes and dtypes must match.
pub fn add(x: &Array, y: &Array) -> Result<Array> {
    binary(BinaryOp::Add, x, y)
}

/// Elementwise `x * y` (logical and for bool). Shapes and dtypes must match.
pub fn mul(x: &Array, y: &Array) -> Result<Array> {
    binary(BinaryOp::Mul, x, y)
}

/// `x`, through which no derivative flows (`jax.lax.stop_gradient`): under `grad` and `jvp`
/// it is a constant. Only floating arrays are marked (others carry no derivative anyway),
/// and outside every transformation it is `x` itself, as in JAX.
///
/// ```
/// use olympus::{grad, lax, numpy as np, Array};
///
/// // d/dx (x * stop_gradient(x)) = stop_gradient(x) = 3.
/// let g = grad(|x: Array| np::multiply(&x, lax::stop_gradient(&x)?))(np::array(3.0f32)?)?;
/// assert_eq!(g.item::<f32>()?, 3.0);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn stop_gradient(x: &Array) -> Result<Array> {
    if !x.dtype().is_floating() || !x.is_traced() {
        return Ok(x.clone());
    }
    unary(UnaryOp::StopGradient, x)
}

/// Elementwise `e^x` for floating arrays.
pub fn exp(x: &Array) -> Result<Array> {
    unary(UnaryOp::Exp, x)
}

/// Converts to `dtype` (floats to ints truncate toward zero and saturate; NaN gives 0).
/// The result is strongly typed.
pub fn convert_element_type(x: &Array, dtype: DType) -> Result<Array> {
    // As in JAX, a concrete array already of `dtype` converts to itself (strongly typed),
    // not to a copy: callers such as `sum` widen with `astype` unconditionally. Views still
    // convert, as callers may count on a contiguous result.
    let l = x.layout();
    if x.dtype() == dtype && !x.is_traced() && l.is_contiguous() && l.offset == 0 {
        return Ok(x.with_weak(false));
    }
    bind(
        Primitive::ConvertElementType { dtype, weak: false },
        &[x],
        None,
    )
}

/// Broadcasts `x` to `shape`; `broadcast_dimensions[i]` is the output dimension operand
/// dimension `i` maps to (`jax.lax.broadcast_in_dim`). A view: no data is copied.
pub fn broadcast_in_dim(
    x: &Array,
    shape: &[usize],
    broadcast_dimensions: &[usize],
) -> Result<Array> {
    bind(
        Primitive::BroadcastInDim {
            shape: shape.to_vec(),
            broadcast_dimensions: broadcast_dimensions.to_vec(),
        },
        &[x],
        None,
    )
}

/// Permutes the dimensions of `x` (`jax.lax.transpose`). A view: no data is copied.
pub fn transpose(x: &Array, permutation: &[usize]) -> Result<Array> {
    bind(
        Primitive::Transpose {
            permutation: permutation.to_vec(),
        },
        &[x],
        None,
    )
}

/// Reshapes `x` in C order (`jax.lax.reshape`): a view when `x` is contiguous.
pub fn reshape(x: &Array, new_sizes: &[usize]) -> Result<Array> {
    bind(
        Primitive::Reshape {
            new_sizes: new_sizes.to_vec(),
        },
        &[x],
        None,
    )
}

/// Reverses `x` along `dimensions` (`jax.lax.rev`): a view with negative strides.
pub fn rev(x: &Array, dimensions: &[usize]) -> Result<Array> {
    bind(
        Primitive::Rev {
            dimensions: dimensions.to_vec(),
        },
        &[x],
        None,
    )
}

/// Reduces `x` over `axes` with `op` (`jax.lax.reduce_sum` and friends); float16
/// accumulates in float32, float32 sums accumulate as a tree.
pub fn reduce(op: ReduceOp, x: &Array, axes: &[usize]) -> Result<Array> {
    bind(
        Primitive::Reduce {
            op,
            axes: axes.to_vec(),
        },
        &[x],
        None,
    )
}

/// A contiguous copy of `x` (materialises views).
pub fn copy(x: &Array) -> Result<Array> {
    bind(Primitive::Copy, &[x], None)
}

/// An array of `shape` filled with `value` (`jax.lax.full`).
pub fn full(shape: &[usize], value: Literal, device: Option<&Device>) -> Result<Array> {
    bind(
        Primitive::Full {
            shape: shape.to_vec(),
            value,
        },
        &[],
        device,
    )
}

/// `0, 1, 2, …` along `dimension` of `shape` (`jax.lax.broadcasted_iota`).
pub fn iota(
    dtype: DType,
    shape: &[usize],
    dimension: usize,
    device: Option<&Device>,
) -> Result<Array> {
    bind(
        Primitive::Iota {
            dtype,
            shape: shape.to_vec(),
            dimension,
        },
        &[],
        device,
    )
}

/// A strided window of `x` (`jax.lax.slice`): `start..limit` by `strides` (at least 1)
/// along each dimension. A view: no data is copied.
pub fn slice(
    x: &Array,
    start_indices: &[usize],
    limit_indices: &[usize],
    strides: Option<&[usize]>,
) -> Result<Array> {
    let strides = strides.map_or_else(|| vec![1; x.ndim()], <[usize]>::to_vec);
    bind(
        Primitive::Slice {
            start_indices: start_indices.to_vec(),
            limit_indices: limit_indices.to_vec(),
            strides,
        },
        &[x],
        None,
    )
}

/// `x[start..limit]` by `stride` along `axis`, whole along the others
/// (`jax.lax.slice_in_dim`). A view.
///
/// ```
/// use olympus::{lax, numpy as np};
/// let x = np::arange(12)?.reshape(&[3, 4])?;
/// let odd = lax::slice_in_dim(&x, 1, 4, 2, 1)?;
/// assert_eq!(odd.to_vec::<i32>()?, vec![1, 3, 5, 7, 9, 11]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn slice_in_dim(
    x: &Array,
    start: usize,
    limit: usize,
    stride: usize,
    axis: usize,
) -> Result<Array> {
    if axis >= x.ndim() {
        return Err(Error::shape(
            "slice_in_dim",
            &[x.shape()],
            format!("axis {axis} is out of range for {} dimensions", x.ndim()),
        ));
    }
    let (mut from, mut to, mut strides) =
        (vec![0; x.ndim()], x.shape().to_vec(), vec![1; x.ndim()]);
    from[axis] = start;
    to[axis] = limit;
    strides[axis] = stride;
    slice(x, &from, &to, Some(&strides))
}

/// Joins arrays of one dtype along `dimension` (`jax.lax.concatenate`).
pub fn concatenate(operands: &[&Array], dimension: usize) -> Result<Array> {
    bind(Primitive::Concatenate { dimension }, operands, None)
}

/// Pads `x` with `low`/`high` elements per dimension: copies of `value` (in `x`'s dtype),
/// or of the edge element when `value` is `None`.
pub fn pad(x: &Array, low: &[usize], high: &[usize], value: Option<Literal>) -> Result<Array> {
    bind(
        Primitive::Pad {
            low: low.to_vec(),
            high: high.to_vec(),
            value,
        },
        &[x],
        None,
    )
}

/// The int32 position along `axis` of the first maximum (`max`) or minimum of `x`; NaN
/// counts as the extreme (JAX's `lax.argmax`/`argmin`).
pub fn arg_reduce(x: &Array, axis: usize, max: bool) -> Result<Array> {
    bind(Primitive::ArgReduce { max, axis }, &[x], None)
}

/// For each of `queries`, how many elements of its row of the sorted `sorted` (`axis` of
/// an array of the queries' shape and dtype except along `axis`) order before it, or with
/// `right` at or before it: int32 of the queries' shape (see
/// [`Primitive::SearchSorted`]). Floats order with NaN last.
pub fn search_sorted(sorted: &Array, queries: &Array, axis: usize, right: bool) -> Result<Array> {
    bind(
        Primitive::SearchSorted { axis, right },
        &[sorted, queries],
        None,
    )
}

/// `out[p] = x[p with p[axis] = indices[p]]`: `indices` (int32/uint32) has `x`'s shape
/// except along `axis`. Out-of-range indices are clamped (JAX's behaviour where it cannot
/// check); `olympus::numpy::take_along_axis` checks them eagerly.
pub fn gather(x: &Array, indices: &Array, axis: usize) -> Result<Array> {
    bind(Primitive::Gather { axis }, &[x, indices], None)
}

/// Batched matrix product `[b, m, k] x [b, k, n] -> [b, m, n]` of one dtype, computed by
/// the tiled matmul kernel (operands are read through their strides: transposed and
/// broadcast views are not copied). float16 accumulates in float32.
///
/// A product over `k == 1` (an outer product) is the elementwise product of the operands
/// broadcast to `[b, m, n]`, as XLA's simplifier rewrites such a dot: a `-0.0` product
/// keeps its sign, which a sum started from `0.0` would lose, and under `jit` the
/// multiply fuses into the kernels that use it (the per-example weight gradients of
/// `vmap` of `grad` are never stored).
pub fn batch_matmul(a: &Array, b: &Array) -> Result<Array> {
    if let Some(r) = outer_product(a, b)? {
        return Ok(r);
    }
    bind(Primitive::BatchMatmul, &[a, b], None)
}

/// `[b, m, 1] x [b, 1, n]` as a broadcast multiply (see [`batch_matmul`]); `None` for any
/// other operands, whose errors the product's shape rule reports.
fn outer_product(a: &Array, b: &Array) -> Result<Option<Array>> {
    let (sa, sb) = (a.shape(), b.shape());
    let outer = sa.len() == 3
        && sb.len() == 3
        && sa[0] == sb[0]
        && sa[2] == 1
        && sb[1] == 1
        && a.dtype() == b.dtype();
    if !outer {
        return Ok(None);
    }
    let shape = [sa[0], sa[1], sb[2]];
    let dims = [0, 1, 2];
    mul(
        &broadcast_in_dim(a, &shape, &dims)?,
        &broadcast_in_dim(b, &shape, &dims)?,
    )
    .map(Some)
}

/// Stable ascending sort of `x` along its last dimension, NaN last (`jax.lax.sort`);
/// with `indices`, the int32 positions that sort each row instead (`argsort`).
pub fn sort(x: &Array, indices: bool) -> Result<Array> {
    bind(Primitive::Sort { indices }, &[x], None)
}

/// The `k` largest elements along the last dimension of `operand` and their int32
/// positions (`jax.lax.top_k`): values in descending order, equal values in the order they
/// occur. Floats order by IEEE's total order, as JAX's do: NaN above +inf, -NaN below
/// -inf, -0.0 below 0.0. `k` must be at most the last dimension's length.
///
/// ```
/// use olympus::{lax, numpy as np};
///
/// let x = np::array([3.0f32, 1.0, 4.0, 1.0, 5.0])?;
/// let (values, indices) = lax::top_k(&x, 2)?;
/// assert_eq!(values.to_vec::<f32>()?, [5.0, 4.0]);
/// assert_eq!(indices.to_vec::<i32>()?, [4, 2]);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn top_k(operand: &Array, k: usize) -> Result<(Array, Array)> {
    top_k_axis(operand, k, -1)
}

/// [`top_k`] along `axis` (JAX's `axis=` keyword; negative counts from the end).
pub fn top_k_axis(operand: &Array, k: usize, axis: isize) -> Result<(Array, Array)> {
    let r = operand.ndim() as isize;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return Err(crate::Error::shape(
            "top_k",
            &[operand.shape()],
            format!("axis {axis} is out of bounds for an array of {r} dimensions"),
        ));
    }
    let prim = Primitive::TopK {
        k,
        axis: a as usize,
    };
    let mut outs = bind_all(prim, &[operand], None)?.into_iter();
    match (outs.next(), outs.next()) {
        (Some(values), Some(indices)) => Ok((values, indices)),
        _ => Err(crate::Error::arg("top_k", "gave other than two outputs")),
    }
}

/// Inclusive cumulative sum along `axis` (`jax.lax.cumsum`; `reverse` from the end).
pub fn cumsum(x: &Array, axis: usize, reverse: bool) -> Result<Array> {
    bind(
        Primitive::Cumulative {
            op: CumulativeOp::Sum,
            axis,
            reverse,
        },
        &[x],
        None,
    )
}

/// Inclusive cumulative product along `axis` (`jax.lax.cumprod`; `reverse` from the end).
pub fn cumprod(x: &Array, axis: usize, reverse: bool) -> Result<Array> {
    bind(
        Primitive::Cumulative {
            op: CumulativeOp::Prod,
            axis,
            reverse,
        },
        &[x],
        None,
    )
}

/// `x` with `values[t]` combined (by `mode`) into the element at flat position
/// `positions[t]` (int32, same shape as `values`): duplicates accumulate for combining
/// modes; out-of-range positions are dropped, as JAX does where it cannot check.
pub fn scatter(x: &Array, positions: &Array, values: &Array, mode: ScatterMode) -> Result<Array> {
    bind(Primitive::Scatter { mode }, &[x, positions, values], None)
}

/// The Threefry-2x32 block function elementwise (`jax.random`'s `threefry2x32_p`): key
/// words `k0`, `k1` and counter words `c0`, `c1`, all uint32 of one shape.
pub fn threefry2x32(
    k0: &Array,
    k1: &Array,
    c0: &Array,
    c1: &Array,
    output: ThreefryOutput,
) -> Result<Array> {
    bind(Primitive::Threefry { output }, &[k0, k1, c0, c1], None)
}

/// Reinterprets bits as another dtype (`jax.lax.bitcast_convert_type`): between int32,
/// uint32 and float32; uint32 to float16 takes the low 16 bits.
pub fn bitcast_convert_type(x: &Array, dtype: DType) -> Result<Array> {
    bind(Primitive::BitcastConvertType { dtype }, &[x], None)
}

/// Builds one elementwise kernel from several table primitives: the inputs must all have
/// the output's shape (broadcast views are fine); constants are `Full` nodes and get no
/// buffer. Used where a library function is a fixed chain of elementwise primitives
/// (random samplers), until `jit` fuses user code the same way.
pub(crate) struct Fusion<'a> {
    inputs: Vec<&'a Array>,
    shape: Vec<usize>,
    avals: Vec<crate::shape::Aval>,
    nodes: Vec<crate::codegen::Node>,
}

impl<'a> Fusion<'a> {
    /// A program over arrays of `shape`.
    pub(crate) fn new(shape: &[usize]) -> Fusion<'a> {
        Fusion {
            inputs: Vec::new(),
            shape: shape.to_vec(),
            avals: Vec::new(),
            nodes: Vec::new(),
        }
    }

    /// Adds an input (before any node); returns its value id.
    pub(crate) fn input(&mut self, a: &'a Array) -> usize {
        debug_assert!(self.nodes.is_empty(), "inputs come first");
        self.inputs.push(a);
        self.avals.push(a.aval().clone());
        self.avals.len() - 1
    }

    /// A constant of the program's shape.
    pub(crate) fn constant(&mut self, value: Literal) -> Result<usize> {
        self.push(
            Primitive::Full {
                shape: self.shape.clone(),
                value,
            },
            &[],
        )
    }

    /// Applies an elementwise primitive to earlier values; checks it with its shape rule.
    pub(crate) fn push(&mut self, prim: Primitive, args: &[usize]) -> Result<usize> {
        let avals: Vec<crate::shape::Aval> = args.iter().map(|&i| self.avals[i].clone()).collect();
        let out = prim.abstract_eval(&avals)?;
        if crate::codegen::rules::elementwise(&prim).is_none() || out.shape != self.shape {
            return Err(crate::Error::arg(prim.name(), "cannot be fused here"));
        }
        self.nodes.push(crate::codegen::Node {
            prim,
            args: args.to_vec(),
            dtype: out.dtype,
        });
        self.avals.push(out);
        Ok(self.avals.len() - 1)
    }

    /// Runs the program; the last node is the result.
    pub(crate) fn run(self, device: &Device) -> Result<Array> {
        if crate::trace::is_traced(&self.inputs) {
            // Under a trace the nodes are recorded one by one; jit fuses them again.
            let mut values: Vec<Array> = self.inputs.iter().map(|&a| a.clone()).collect();
            for node in self.nodes {
                let args: Vec<&Array> = node.args.iter().map(|&i| &values[i]).collect();
                let v = bind(node.prim, &args, Some(device))?;
                values.push(v);
            }
            return values
                .pop()
                .ok_or_else(|| crate::Error::arg("fusion", "an empty program"));
        }
        let out = self.avals.last().cloned().expect("a fusion has a node");
        let program = crate::codegen::Program::new(
            self.inputs.iter().map(|a| a.dtype()).collect(),
            self.nodes,
        );
        let dev = eval::common_device("fusion", &self.inputs, Some(device))?;
        eval::run(&dev, &program, &self.inputs, out)
    }
}

//! Each primitive's shape/dtype rule, arity and evaluation kind, over the table of
//! primitives (`table.rs`), their parameters (`ops.rs`) and the typed graph of primitives
//! that traces record (`graph.rs`).

mod graph;
mod ops;
mod table;

pub(crate) use graph::var_name;
pub use graph::Operation;
pub use ops::{
    BinaryOp, CompareOp, CumulativeOp, Literal, ReduceOp, ScatterMode, ThreefryOutput, UnaryOp,
};
pub(crate) use table::Eqn;
pub use table::{CustomCall, Graph, Primitive};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Aval;

fn same_shapes(name: &str, avals: &[&Aval]) -> Result<()> {
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

/// How a primitive is evaluated eagerly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvalKind {
    /// Metadata only: a new layout over the same buffer.
    View,
    /// One elementwise kernel from the generator.
    Elementwise,
    /// Reduction kernels (one pass per level of the tree).
    Reduce,
    /// The tiled matmul kernel.
    Matmul,
    /// Bitonic sort stages.
    Sort,
    /// The chunked cumulative kernels: chunk totals, their running totals, every chunk.
    Cumulative,
    /// A copy, then the atomic scatter kernel.
    Scatter,
    /// A descending argsort of the rows, then gathers of its first `k` columns.
    TopK,
    /// The carried sub-graph, evaluated equation by equation.
    Call,
}

impl Primitive {
    /// One instance of every variant with every parameter value that changes the generated
    /// code (for rule-coverage and kernel-validation tests).
    #[cfg(test)]
    pub(crate) fn examples() -> Vec<Primitive> {
        let mut v = vec![
            Primitive::Select,
            Primitive::Reduce {
                op: ReduceOp::Sum,
                axes: vec![0],
            },
            Primitive::Reshape {
                new_sizes: vec![3, 2],
            },
            Primitive::Rev {
                dimensions: vec![0],
            },
            Primitive::Copy,
            Primitive::Transpose {
                permutation: vec![1, 0],
            },
            Primitive::BroadcastInDim {
                shape: vec![2, 3],
                broadcast_dimensions: vec![1],
            },
            Primitive::Slice {
                start_indices: vec![0, 1],
                limit_indices: vec![2, 3],
                strides: vec![1, 2],
            },
            Primitive::Concatenate { dimension: 1 },
            Primitive::Pad {
                low: vec![0, 1],
                high: vec![1, 0],
                value: None,
            },
            Primitive::Pad {
                low: vec![0, 1],
                high: vec![1, 0],
                value: Some(Literal::F32(0.0)),
            },
            Primitive::Gather { axis: 1 },
            Primitive::ArgReduce { max: true, axis: 1 },
            Primitive::ArgReduce {
                max: false,
                axis: 0,
            },
            Primitive::SearchSorted {
                axis: 1,
                right: false,
            },
            Primitive::SearchSorted {
                axis: 0,
                right: true,
            },
            Primitive::BatchMatmul,
            Primitive::Sort { indices: true },
            Primitive::TopK { k: 2, axis: 1 },
            Primitive::TopK { k: 1, axis: 0 },
            Primitive::CustomJvpCall {
                call: CustomCall::example(),
            },
            Primitive::CustomVjpCall {
                call: CustomCall::example(),
            },
            Primitive::CustomLin {
                call: CustomCall::example(),
            },
            Primitive::Cumulative {
                op: CumulativeOp::Sum,
                axis: 1,
                reverse: false,
            },
            Primitive::Cumulative {
                op: CumulativeOp::Prod,
                axis: 0,
                reverse: true,
            },
            Primitive::Scatter {
                mode: ScatterMode::Add,
            },
            Primitive::Threefry {
                output: ThreefryOutput::First,
            },
            Primitive::Threefry {
                output: ThreefryOutput::Second,
            },
            Primitive::Threefry {
                output: ThreefryOutput::Xor,
            },
            Primitive::Fma,
        ];
        for d in DType::ALL {
            if !d.is_bool() {
                v.push(Primitive::BitcastConvertType { dtype: d });
            }
        }
        v.extend(UnaryOp::ALL.iter().map(|&o| Primitive::Unary(o)));
        v.extend(BinaryOp::ALL.iter().map(|&o| Primitive::Binary(o)));
        v.extend(CompareOp::ALL.iter().map(|&o| Primitive::Compare(o)));
        for d in DType::ALL {
            v.push(Primitive::ConvertElementType {
                dtype: d,
                weak: false,
            });
            v.push(Primitive::Full {
                shape: vec![3],
                value: Literal::F32(1.0).cast(d),
            });
            if !d.is_bool() {
                v.push(Primitive::Iota {
                    dtype: d,
                    shape: vec![2, 3],
                    dimension: 1,
                });
            }
        }
        v
    }

    pub(crate) fn eval_kind(&self) -> EvalKind {
        match self {
            Primitive::BroadcastInDim { .. }
            | Primitive::Transpose { .. }
            | Primitive::Reshape { .. }
            | Primitive::Rev { .. }
            | Primitive::Slice { .. } => EvalKind::View,
            Primitive::Reduce { .. } | Primitive::ArgReduce { .. } => EvalKind::Reduce,
            Primitive::BatchMatmul => EvalKind::Matmul,
            Primitive::Sort { .. } => EvalKind::Sort,
            Primitive::Cumulative { .. } => EvalKind::Cumulative,
            Primitive::Scatter { .. } => EvalKind::Scatter,
            Primitive::TopK { .. } => EvalKind::TopK,
            Primitive::CustomJvpCall { .. }
            | Primitive::CustomVjpCall { .. }
            | Primitive::CustomLin { .. } => EvalKind::Call,
            Primitive::Unary(_)
            | Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::Select
            | Primitive::ConvertElementType { .. }
            | Primitive::Copy
            | Primitive::Full { .. }
            | Primitive::Iota { .. }
            | Primitive::Concatenate { .. }
            | Primitive::Pad { .. }
            | Primitive::Gather { .. }
            | Primitive::SearchSorted { .. }
            | Primitive::Threefry { .. }
            | Primitive::BitcastConvertType { .. }
            | Primitive::Fma => EvalKind::Elementwise,
        }
    }

    /// Number of operands (`usize::MAX` for variadic primitives).
    pub(crate) fn arity(&self) -> usize {
        match self {
            Primitive::CustomJvpCall { call }
            | Primitive::CustomVjpCall { call }
            | Primitive::CustomLin { call } => call.fun.invars.len(),
            Primitive::Concatenate { .. } => usize::MAX,
            Primitive::Threefry { .. } => 4,
            Primitive::Select | Primitive::Scatter { .. } | Primitive::Fma => 3,
            Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::Gather { .. }
            | Primitive::SearchSorted { .. }
            | Primitive::BatchMatmul => 2,
            Primitive::Unary(_)
            | Primitive::ConvertElementType { .. }
            | Primitive::Copy
            | Primitive::BroadcastInDim { .. }
            | Primitive::Reshape { .. }
            | Primitive::Rev { .. }
            | Primitive::Reduce { .. }
            | Primitive::ArgReduce { .. }
            | Primitive::Slice { .. }
            | Primitive::Pad { .. }
            | Primitive::Sort { .. }
            | Primitive::TopK { .. }
            | Primitive::Cumulative { .. }
            | Primitive::BitcastConvertType { .. }
            | Primitive::Transpose { .. } => 1,
            Primitive::Full { .. } | Primitive::Iota { .. } => 0,
        }
    }

    /// The shape/dtype rule of a single-output primitive: the abstract value of its output
    /// (an error for a primitive of several outputs: [`Primitive::abstract_eval_all`]).
    pub fn abstract_eval(&self, inputs: &[Aval]) -> Result<Aval> {
        let mut outs = self.abstract_eval_all(inputs)?;
        match outs.len() {
            1 => Ok(outs.remove(0)),
            n => Err(Error::arg(
                self.name(),
                format!("has {n} outputs, not one (bind it with `bind_all`)"),
            )),
        }
    }

    /// The number of outputs for operands of types `inputs` (one for most primitives).
    pub fn num_outputs(&self) -> usize {
        match self {
            Primitive::TopK { .. } => 2,
            Primitive::CustomJvpCall { call }
            | Primitive::CustomVjpCall { call }
            | Primitive::CustomLin { call } => call.fun.outvars.len(),
            _ => 1,
        }
    }

    /// The shape/dtype rule: the abstract values of the outputs, or an error naming the
    /// primitive, the shapes and the dtypes.
    pub fn abstract_eval_all(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let name = self.name();
        let variadic = self.arity() == usize::MAX;
        if (variadic && inputs.is_empty()) || (!variadic && inputs.len() != self.arity()) {
            return Err(Error::arg(
                name,
                if variadic {
                    "takes at least one operand".to_string()
                } else {
                    format!("takes {} operands, got {}", self.arity(), inputs.len())
                },
            ));
        }
        let weak = inputs.iter().all(|a| a.weak);
        let one = match self {
            Primitive::TopK { k, axis } => return top_k_avals(name, *k, *axis, &inputs[0]),
            Primitive::CustomJvpCall { call }
            | Primitive::CustomVjpCall { call }
            | Primitive::CustomLin { call } => return call.out_avals(inputs),
            Primitive::Unary(op) => {
                let x = &inputs[0];
                if !op.accepts().ok(x.dtype) {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype],
                        format!("accepts {}", op.accepts().describe()),
                    ));
                }
                let dtype = if op.is_predicate() {
                    DType::Bool
                } else {
                    x.dtype
                };
                Ok(Aval::new(
                    x.shape.clone(),
                    dtype,
                    weak && !op.is_predicate(),
                ))
            }
            Primitive::Binary(_) | Primitive::Compare(_) => {
                let (x, y) = (&inputs[0], &inputs[1]);
                same_shapes(name, &[x, y])?;
                if x.dtype != y.dtype {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype, y.dtype],
                        "lax operands must have equal dtypes (numpy functions promote)",
                    ));
                }
                match self {
                    Primitive::Binary(op) => {
                        if !op.accepts().ok(x.dtype) {
                            return Err(Error::dtype(
                                name,
                                &[x.dtype],
                                format!("accepts {}", op.accepts().describe()),
                            ));
                        }
                        Ok(Aval::new(x.shape.clone(), x.dtype, weak))
                    }
                    _ => Ok(Aval::new(x.shape.clone(), DType::Bool, false)),
                }
            }
            Primitive::Select => {
                let (p, x, y) = (&inputs[0], &inputs[1], &inputs[2]);
                same_shapes(name, &[p, x, y])?;
                if p.dtype != DType::Bool || x.dtype != y.dtype {
                    return Err(Error::dtype(
                        name,
                        &[p.dtype, x.dtype, y.dtype],
                        "needs a bool predicate and two cases of one dtype",
                    ));
                }
                Ok(Aval::new(x.shape.clone(), x.dtype, x.weak && y.weak))
            }
            Primitive::ConvertElementType { dtype, weak } => {
                Ok(Aval::new(inputs[0].shape.clone(), *dtype, *weak))
            }
            Primitive::Copy => Ok(inputs[0].clone()),
            Primitive::Full { shape, value } => {
                crate::shape::checked_size(name, shape)?;
                Ok(Aval::new(shape.clone(), value.dtype(), false))
            }
            Primitive::Iota {
                dtype,
                shape,
                dimension,
            } => {
                crate::shape::checked_size(name, shape)?;
                if *dimension >= shape.len() {
                    return Err(Error::shape(
                        name,
                        &[shape],
                        format!("dimension {dimension} is out of range"),
                    ));
                }
                if dtype.is_bool() {
                    return Err(Error::dtype(name, &[*dtype], "iota needs a numeric dtype"));
                }
                Ok(Aval::new(shape.clone(), *dtype, false))
            }
            Primitive::Reshape { new_sizes } => {
                let x = &inputs[0];
                let n = crate::shape::checked_size(name, new_sizes)?;
                if n != x.size() {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, new_sizes],
                        format!("cannot reshape {} elements into {n}", x.size()),
                    ));
                }
                Ok(Aval::new(new_sizes.clone(), x.dtype, x.weak))
            }
            Primitive::Reduce { op, axes } => {
                let x = &inputs[0];
                let mut seen = vec![false; x.shape.len()];
                if !axes
                    .iter()
                    .all(|&a| a < seen.len() && !std::mem::replace(&mut seen[a], true))
                {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("axes {axes:?} are out of range or repeated"),
                    ));
                }
                let logical = matches!(op, ReduceOp::And | ReduceOp::Or);
                if logical != (x.dtype == DType::Bool) || (x.dtype == DType::Bool && !logical) {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype],
                        "and/or reduce bool arrays; sum, prod, max and min reduce numbers",
                    ));
                }
                let shape = (0..x.shape.len())
                    .filter(|i| !axes.contains(i))
                    .map(|i| x.shape[i])
                    .collect();
                Ok(Aval::new(shape, x.dtype, x.weak))
            }
            Primitive::Rev { dimensions } => {
                let x = &inputs[0];
                if dimensions.iter().any(|&d| d >= x.shape.len()) {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("dimensions {dimensions:?} are out of range"),
                    ));
                }
                Ok(x.clone())
            }
            Primitive::Transpose { permutation } => {
                let x = &inputs[0];
                let mut seen = vec![false; x.shape.len()];
                let ok = permutation.len() == x.shape.len()
                    && permutation
                        .iter()
                        .all(|&p| p < seen.len() && !std::mem::replace(&mut seen[p], true));
                if !ok {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("{permutation:?} is not a permutation of the operand's dimensions"),
                    ));
                }
                let shape = permutation.iter().map(|&p| x.shape[p]).collect();
                Ok(Aval::new(shape, x.dtype, x.weak))
            }
            Primitive::Slice {
                start_indices,
                limit_indices,
                strides,
            } => {
                let x = &inputs[0];
                let r = x.shape.len();
                let ok = start_indices.len() == r
                    && limit_indices.len() == r
                    && strides.len() == r
                    && (0..r).all(|d| {
                        start_indices[d] <= limit_indices[d]
                            && limit_indices[d] <= x.shape[d]
                            && strides[d] >= 1
                    });
                if !ok {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("start {start_indices:?}, limit {limit_indices:?}, strides {strides:?} do not describe a window of the operand"),
                    ));
                }
                let shape = (0..r)
                    .map(|d| (limit_indices[d] - start_indices[d]).div_ceil(strides[d]))
                    .collect();
                Ok(Aval::new(shape, x.dtype, x.weak))
            }
            Primitive::Concatenate { dimension } => {
                let x = &inputs[0];
                let r = x.shape.len();
                let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape.as_slice()).collect();
                if *dimension >= r
                    || inputs.iter().any(|a| {
                        a.shape.len() != r
                            || (0..r).any(|d| d != *dimension && a.shape[d] != x.shape[d])
                    })
                {
                    return Err(Error::shape(
                        name,
                        &shapes,
                        format!(
                            "operands must have equal shapes except along dimension {dimension}"
                        ),
                    ));
                }
                if inputs.iter().any(|a| a.dtype != x.dtype) {
                    let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
                    return Err(Error::dtype(
                        name,
                        &dtypes,
                        "lax operands must have equal dtypes (numpy functions promote)",
                    ));
                }
                let mut shape = x.shape.clone();
                shape[*dimension] = crate::shape::dim_sum(
                    name,
                    &shapes,
                    inputs.iter().map(|a| a.shape[*dimension]),
                )?;
                crate::shape::checked_size(name, &shape)?;
                Ok(Aval::new(shape, x.dtype, weak))
            }
            Primitive::Pad { low, high, value } => {
                let x = &inputs[0];
                let r = x.shape.len();
                if low.len() != r || high.len() != r {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("low {low:?} and high {high:?} need one entry per dimension"),
                    ));
                }
                if let Some(v) = value {
                    if v.dtype() != x.dtype {
                        return Err(Error::dtype(
                            name,
                            &[x.dtype, v.dtype()],
                            "the padding value must have the operand's dtype",
                        ));
                    }
                } else if (0..r).any(|d| x.shape[d] == 0 && (low[d] > 0 || high[d] > 0)) {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        "edge padding needs a non-empty operand along padded dimensions",
                    ));
                }
                let shape = (0..r)
                    .map(|d| {
                        crate::shape::dim_sum(name, &[&x.shape], [low[d], x.shape[d], high[d]])
                    })
                    .collect::<Result<Vec<usize>>>()?;
                crate::shape::checked_size(name, &shape)?;
                Ok(Aval::new(shape, x.dtype, x.weak))
            }
            Primitive::Threefry { .. } => {
                let refs: Vec<&Aval> = inputs.iter().collect();
                same_shapes(name, &refs)?;
                if inputs.iter().any(|a| a.dtype != DType::UInt32) {
                    let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
                    return Err(Error::dtype(name, &dtypes, "keys and counters are uint32"));
                }
                Ok(Aval::new(inputs[0].shape.clone(), DType::UInt32, false))
            }
            Primitive::Fma => {
                let refs: Vec<&Aval> = inputs.iter().collect();
                same_shapes(name, &refs)?;
                if inputs.iter().any(|a| a.dtype != inputs[0].dtype)
                    || !inputs[0].dtype.is_floating()
                {
                    let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
                    return Err(Error::dtype(
                        name,
                        &dtypes,
                        "needs three operands of one floating dtype",
                    ));
                }
                Ok(Aval::new(inputs[0].shape.clone(), inputs[0].dtype, weak))
            }
            Primitive::BitcastConvertType { dtype } => {
                let x = &inputs[0];
                // Equal widths, as XLA's bitcast needs; float16 also from and to the low 16
                // bits of uint32 words (how random bits become float16).
                let ok = match (x.dtype, *dtype) {
                    (DType::Bool, _) | (_, DType::Bool) => false,
                    (DType::UInt32, DType::Float16 | DType::BFloat16)
                    | (DType::Float16 | DType::BFloat16, DType::UInt32) => true,
                    (a, b) => a.bits() == b.bits(),
                };
                if !ok {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype, *dtype],
                        "converts bits between dtypes of one width (or between uint32's low 16 bits and a 16-bit float)",
                    ));
                }
                Ok(Aval::new(x.shape.clone(), *dtype, false))
            }
            Primitive::Scatter { .. } => {
                let (x, p, v) = (&inputs[0], &inputs[1], &inputs[2]);
                if p.dtype != DType::Int32 || v.dtype != x.dtype {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype, p.dtype, v.dtype],
                        "needs int32 positions and values of the operand's dtype",
                    ));
                }
                if p.shape != v.shape {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, &p.shape, &v.shape],
                        "positions and values must have one shape",
                    ));
                }
                if x.size() > i32::MAX as usize {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        "scatter addresses at most 2^31 - 1 elements",
                    ));
                }
                Ok(x.clone())
            }
            Primitive::Cumulative { axis, .. } => {
                let x = &inputs[0];
                if *axis >= x.shape.len() {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!(
                            "axis {axis} is out of range for {} dimensions",
                            x.shape.len()
                        ),
                    ));
                }
                if x.dtype == DType::Bool {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype],
                        "sums or multiplies numbers (numpy functions convert bool to int32)",
                    ));
                }
                Ok(x.clone())
            }
            Primitive::Sort { indices } => {
                let x = &inputs[0];
                if x.shape.is_empty() {
                    return Err(Error::shape(name, &[&x.shape], "cannot sort a 0-d array"));
                }
                if *indices {
                    Ok(Aval::new(x.shape.clone(), DType::Int32, false))
                } else {
                    Ok(x.clone())
                }
            }
            Primitive::BatchMatmul => {
                let (a, b) = (&inputs[0], &inputs[1]);
                if a.shape.len() != 3
                    || b.shape.len() != 3
                    || a.shape[0] != b.shape[0]
                    || a.shape[2] != b.shape[1]
                {
                    return Err(Error::shape(
                        name,
                        &[&a.shape, &b.shape],
                        "operands must be [batch, m, k] and [batch, k, n]",
                    ));
                }
                if a.dtype != b.dtype {
                    return Err(Error::dtype(
                        name,
                        &[a.dtype, b.dtype],
                        "lax operands must have equal dtypes (numpy functions promote)",
                    ));
                }
                let shape = vec![a.shape[0], a.shape[1], b.shape[2]];
                crate::shape::checked_size(name, &shape)?;
                Ok(Aval::new(shape, a.dtype, weak))
            }
            Primitive::Gather { axis } => {
                let (x, idx) = (&inputs[0], &inputs[1]);
                let r = x.shape.len();
                if *axis >= r
                    || idx.shape.len() != r
                    || (0..r).any(|d| d != *axis && idx.shape[d] != x.shape[d])
                {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, &idx.shape],
                        format!("indices must have the operand's shape except along axis {axis}"),
                    ));
                }
                if !idx.dtype.is_integer() {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype, idx.dtype],
                        "indices must be int32 or uint32",
                    ));
                }
                if x.shape[*axis] == 0 && idx.size() > 0 {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, &idx.shape],
                        format!("cannot index an empty axis {axis}"),
                    ));
                }
                Ok(Aval::new(idx.shape.clone(), x.dtype, x.weak))
            }
            Primitive::ArgReduce { axis, .. } => {
                let x = &inputs[0];
                if *axis >= x.shape.len() || x.shape[*axis] == 0 {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        format!("axis {axis} must exist and be nonempty"),
                    ));
                }
                if x.shape[*axis] > i32::MAX as usize {
                    return Err(Error::shape(
                        name,
                        &[&x.shape],
                        "int32 positions number at most 2^31 - 1 elements along the axis",
                    ));
                }
                if x.dtype == DType::Bool {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype],
                        "takes numbers (numpy functions convert bool to int32)",
                    ));
                }
                let mut shape = x.shape.clone();
                shape.remove(*axis);
                Ok(Aval::new(shape, DType::Int32, false))
            }
            Primitive::SearchSorted { axis, .. } => {
                let (x, q) = (&inputs[0], &inputs[1]);
                let r = x.shape.len();
                if *axis >= r
                    || q.shape.len() != r
                    || (0..r).any(|d| d != *axis && q.shape[d] != x.shape[d])
                {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, &q.shape],
                        format!(
                            "queries must have the sorted operand's shape except along axis {axis}"
                        ),
                    ));
                }
                if x.dtype != q.dtype {
                    return Err(Error::dtype(
                        name,
                        &[x.dtype, q.dtype],
                        "lax operands must have equal dtypes (numpy functions promote)",
                    ));
                }
                if x.shape[*axis] > i32::MAX as usize {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, &q.shape],
                        "int32 positions number at most 2^31 - 1 elements along the axis",
                    ));
                }
                Ok(Aval::new(q.shape.clone(), DType::Int32, false))
            }
            Primitive::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => {
                let x = &inputs[0];
                let ok = broadcast_dimensions.len() == x.shape.len()
                    && broadcast_dimensions.windows(2).all(|w| w[0] < w[1])
                    && broadcast_dimensions
                        .iter()
                        .zip(&x.shape)
                        .all(|(&d, &s)| d < shape.len() && (s == 1 || s == shape[d]));
                if !ok {
                    return Err(Error::shape(
                        name,
                        &[&x.shape, shape],
                        format!(
                            "broadcast_dimensions {broadcast_dimensions:?} do not map the operand into the output shape"
                        ),
                    ));
                }
                crate::shape::checked_size(name, shape)?;
                Ok(Aval::new(shape.clone(), x.dtype, x.weak))
            }
        };
        one.map(|a| vec![a])
    }

    /// The parameters as the jaxpr listing prints them (`[axes=(0,)]`), empty for plain
    /// elementwise ops.
    fn params_text(&self) -> String {
        if let Primitive::CustomJvpCall { call }
        | Primitive::CustomVjpCall { call }
        | Primitive::CustomLin { call } = self
        {
            return format!("[{call:?}]");
        }
        let dbg = format!("{self:?}");
        match dbg.find(['{', '(']) {
            Some(i)
                if !matches!(
                    self,
                    Primitive::Unary(_) | Primitive::Binary(_) | Primitive::Compare(_)
                ) =>
            {
                format!("[{}]", dbg[i + 1..dbg.len() - 1].trim())
            }
            _ => String::new(),
        }
    }
}

impl Operation for Primitive {
    fn name(&self) -> &'static str {
        Primitive::name(self)
    }

    fn params(&self) -> String {
        self.params_text()
    }

    fn out_avals(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        self.abstract_eval_all(inputs)
    }
}

impl CustomCall {
    /// The outputs' types, after checking the operands against the graph's inputs.
    fn out_avals(&self, inputs: &[Aval]) -> Result<Vec<Aval>> {
        let want = self.fun.in_avals();
        let same = inputs
            .iter()
            .zip(&want)
            .all(|(a, w)| a.shape == w.shape && a.dtype == w.dtype);
        if !same {
            let shapes: Vec<&[usize]> = inputs.iter().map(|a| a.shape.as_slice()).collect();
            let dtypes: Vec<DType> = inputs.iter().map(|a| a.dtype).collect();
            return Err(Error::shape(
                &self.name,
                &shapes,
                format!(
                    "operands of dtypes {dtypes:?} do not match the traced function's inputs {}",
                    want.iter()
                        .map(crate::shape::fmt_aval)
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            ));
        }
        Ok(self.fun.out_avals())
    }

    /// A call of `sin` on float32[2, 3] with no rules, for the table's examples.
    #[cfg(test)]
    pub(crate) fn example() -> CustomCall {
        let mut g = Graph::default();
        let x = g.new_var(Aval::new(vec![2, 3], DType::Float32, false));
        g.invars.push(x);
        let out = g.push_eqn(
            Primitive::Unary(UnaryOp::Sin),
            vec![x],
            &[Aval::new(vec![2, 3], DType::Float32, false)],
        );
        g.outvars = out;
        CustomCall {
            name: std::sync::Arc::from("example"),
            fun: std::sync::Arc::new(g),
            captured: 0,
            rules: std::sync::Arc::new(()),
        }
    }
}

/// `top_k`'s outputs: the values and their int32 positions, `k` along `axis`.
fn top_k_avals(name: &str, k: usize, axis: usize, x: &Aval) -> Result<Vec<Aval>> {
    let Some(&n) = x.shape.get(axis) else {
        return Err(Error::shape(
            name,
            &[&x.shape],
            format!(
                "axis {axis} is out of range for {} dimensions",
                x.shape.len()
            ),
        ));
    };
    if k > n {
        return Err(Error::shape(
            name,
            &[&x.shape],
            format!("k = {k} is larger than the length {n} of axis {axis}"),
        ));
    }
    if n > i32::MAX as usize {
        return Err(Error::shape(
            name,
            &[&x.shape],
            "int32 positions number at most 2^31 - 1 elements along the axis",
        ));
    }
    let mut shape = x.shape.clone();
    shape[axis] = k;
    Ok(vec![
        Aval::new(shape.clone(), x.dtype, x.weak),
        Aval::new(shape, DType::Int32, false),
    ])
}

//! Transposition: each linear primitive's transpose rule, and the interpreter that runs a
//! linear graph backwards (JAX's `backward_pass`).
//!
//! Reverse mode is forward mode plus transposition, as in JAX: linearization
//! (`linearize.rs`) traces the JVP rules' tangent map into a linear graph whose constants are
//! the residuals, and [`transpose_graph`] maps the outputs' cotangents back to the inputs'.
//! So a primitive needs no reverse-mode rule of its own; only the primitives its JVP rules
//! apply to tangents (`mul` by a known factor, `add`, `neg`, `select` with a known
//! predicate, the structural ones, `gather`, `scatter`, ...) need a transpose rule here.

use super::ad::{add, gather_flat, mul, set_winners, sum_axes, unreduce, where_or_zero, zeros};
use super::custom::{check_types, rules_of, Rules};
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::lax;
use crate::primitive::{
    BinaryOp, CumulativeOp, Graph, Literal, Primitive, ReduceOp, ScatterMode, UnaryOp,
};
use crate::shape::Aval;

/// An operand of an equation of a linear graph: linear (a tangent, known only by its type)
/// or known (a residual, with its value).
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    Linear(&'a Aval),
    Known(&'a Array),
}

impl Operand<'_> {
    fn aval(&self) -> &Aval {
        match self {
            Operand::Linear(a) => a,
            Operand::Known(a) => a.aval(),
        }
    }

    fn shape(&self) -> &[usize] {
        &self.aval().shape
    }

    fn is_linear(&self) -> bool {
        matches!(self, Operand::Linear(_))
    }

    fn known(&self) -> Option<&Array> {
        match self {
            Operand::Known(a) => Some(a),
            Operand::Linear(_) => None,
        }
    }
}

/// The error for a primitive applied to a tangent in a way that is not linear (a JVP rule,
/// or a custom rule, that is not linear in the tangents).
fn not_linear(func: &str, prim: &Primitive, k: usize) -> Error {
    Error::arg(
        func,
        format!(
            "reverse mode cannot transpose {}: it is not linear in its operand {k}, which \
             depends on the tangents (a custom_jvp rule must be linear in its tangents)",
            prim.name()
        ),
    )
}

/// `ct` converted to the dtype (and weak flag) of `aval`.
fn convert_to(ct: &Array, aval: &Aval) -> Result<Array> {
    if ct.dtype() == aval.dtype && ct.weak_type() == aval.weak {
        return Ok(ct.clone());
    }
    lax::bind(
        Primitive::ConvertElementType {
            dtype: aval.dtype,
            weak: aval.weak,
        },
        &[ct],
        None,
    )
}

/// The transpose rule: the cotangents of `prim`'s linear operands (`None` for known ones,
/// or for a zero cotangent) given the cotangents `cts` of its outputs (`None`: zero).
/// Errors name `func`, the function being differentiated.
pub(crate) fn transpose_rule(
    func: &str,
    prim: &Primitive,
    x: &[Operand],
    cts: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    use Primitive as P;
    let mut out: Vec<Option<Array>> = vec![None; x.len()];
    let [Some(ct)] = cts else {
        return match prim {
            P::CustomLin { .. } => Err(Error::arg(
                prim.name(),
                "is transposed by transpose_graph, not by a rule",
            )),
            _ if cts.iter().all(Option::is_none) => Ok(out),
            _ => Err(not_linear(func, prim, 0)),
        };
    };
    let lin = |k: usize| x[k].is_linear();
    // The one linear operand of a primitive linear in each operand separately.
    let only_linear = |k: usize| -> Result<()> {
        match (0..x.len()).find(|&j| j != k && lin(j)) {
            Some(j) => Err(not_linear(func, prim, j)),
            None => Ok(()),
        }
    };
    match prim {
        P::Copy => out[0] = Some(ct.clone()),
        P::Unary(UnaryOp::Neg) => out[0] = Some(lax::unary(UnaryOp::Neg, ct)?),
        P::Binary(BinaryOp::Add) => {
            for k in (0..2).filter(|&k| lin(k)) {
                out[k] = Some(ct.clone());
            }
        }
        P::Binary(BinaryOp::Sub) => {
            if lin(0) {
                out[0] = Some(ct.clone());
            }
            if lin(1) {
                out[1] = Some(lax::unary(UnaryOp::Neg, ct)?);
            }
        }
        P::Binary(BinaryOp::Mul) => {
            let k = if lin(0) { 0 } else { 1 };
            only_linear(k)?;
            let other = x[1 - k].known().ok_or_else(|| not_linear(func, prim, k))?;
            out[k] = Some(mul(ct, other)?);
        }
        P::Binary(BinaryOp::Div) => {
            let y = x[1].known().ok_or_else(|| not_linear(func, prim, 1))?;
            out[0] = Some(lax::binary(BinaryOp::Div, ct, y)?);
        }
        P::Fma => {
            // a * b + c: linear in c, and in one of a, b when the other is known.
            if lin(0) && lin(1) {
                return Err(not_linear(func, prim, 1));
            }
            if let (true, Some(b)) = (lin(0), x[1].known()) {
                out[0] = Some(mul(ct, b)?);
            }
            if let (true, Some(a)) = (lin(1), x[0].known()) {
                out[1] = Some(mul(ct, a)?);
            }
            if lin(2) {
                out[2] = Some(ct.clone());
            }
        }
        P::Select => {
            let p = x[0].known().ok_or_else(|| not_linear(func, prim, 0))?;
            let z = lax::full(
                ct.shape(),
                Literal::from_f64(0.0, ct.dtype()),
                Some(ct.device()),
            )?;
            if lin(1) {
                out[1] = Some(lax::select(p, ct, &z)?);
            }
            if lin(2) {
                out[2] = Some(lax::select(p, &z, ct)?);
            }
        }
        P::ConvertElementType { .. } => out[0] = Some(convert_to(ct, x[0].aval())?),
        P::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let xs = x[0].shape();
            let axes: Vec<usize> = (0..shape.len())
                .filter(|d| match broadcast_dimensions.iter().position(|b| b == d) {
                    None => true,
                    Some(i) => xs[i] == 1 && shape[*d] != 1,
                })
                .collect();
            let s = sum_axes(ct, &axes)?;
            out[0] = Some(if s.shape() == xs {
                s
            } else {
                lax::reshape(&s, xs)?
            });
        }
        P::Transpose { permutation } => {
            let mut inv = vec![0; permutation.len()];
            for (i, &p) in permutation.iter().enumerate() {
                inv[p] = i;
            }
            out[0] = Some(lax::transpose(ct, &inv)?);
        }
        P::Reshape { .. } => out[0] = Some(lax::reshape(ct, x[0].shape())?),
        P::Rev { dimensions } => out[0] = Some(lax::rev(ct, dimensions)?),
        P::Reduce {
            op: ReduceOp::Sum,
            axes,
        } => out[0] = Some(unreduce(ct, x[0].shape(), axes)?),
        P::Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            out[0] = Some(slice_transpose(
                ct,
                x[0].shape(),
                start_indices,
                limit_indices,
                strides,
            )?)
        }
        P::Concatenate { dimension } => {
            let mut start = 0;
            for (k, a) in x.iter().enumerate() {
                let mut lo = vec![0; ct.ndim()];
                let mut hi = ct.shape().to_vec();
                lo[*dimension] = start;
                hi[*dimension] = start + a.shape()[*dimension];
                start = hi[*dimension];
                if a.is_linear() {
                    out[k] = Some(lax::slice(ct, &lo, &hi, None)?);
                }
            }
        }
        // The padding value is a constant (zero in the JVP rules): only the operand is
        // linear.
        P::Pad { low, high, value } => {
            out[0] = Some(pad_transpose(ct, x[0].shape(), low, high, value.is_none())?)
        }
        P::Gather { axis } => {
            only_linear(0)?;
            let idx = x[1].known().ok_or_else(|| not_linear(func, prim, 1))?;
            let pos = gather_positions(x[0].shape(), idx, *axis)?;
            let base = zeros(x[0].aval(), ct.device())?;
            out[0] = Some(lax::scatter(&base, &pos, ct, ScatterMode::Add)?);
        }
        P::BatchMatmul => {
            if let (true, Some(b)) = (lin(0), x[1].known()) {
                out[0] = Some(lax::batch_matmul(ct, &lax::transpose(b, &[0, 2, 1])?)?);
            } else if let (true, Some(a)) = (lin(1), x[0].known()) {
                out[1] = Some(lax::batch_matmul(&lax::transpose(a, &[0, 2, 1])?, ct)?);
            } else {
                return Err(not_linear(func, prim, 1));
            }
        }
        P::Cumulative {
            op: CumulativeOp::Sum,
            axis,
            reverse,
        } => out[0] = Some(lax::cumsum(ct, *axis, !*reverse)?),
        P::Scatter {
            mode: mode @ (ScatterMode::Add | ScatterMode::Set),
        } => {
            let pos = x[1].known().ok_or_else(|| not_linear(func, prim, 1))?;
            let vals = x[2].aval();
            if lin(0) {
                out[0] = Some(match mode {
                    ScatterMode::Add => ct.clone(),
                    // The written positions take the updates, not the operand.
                    _ => lax::scatter(ct, pos, &zeros(vals, ct.device())?, *mode)?,
                });
            }
            if lin(2) {
                let g = gather_flat(ct, pos)?;
                out[2] = Some(match mode {
                    ScatterMode::Add => g,
                    _ => where_or_zero(&set_winners(x[0].shape(), pos)?, &g)?,
                });
            }
        }
        _ => {
            let k = (0..x.len()).find(|&k| lin(k)).unwrap_or(0);
            return Err(not_linear(func, prim, k));
        }
    }
    Ok(out)
}

/// Runs the linear `graph` (of the function `func`) backwards: the cotangents of its inputs
/// (`None`: zero) given its outputs' (`cts_out`, `None`: zero). Its constants (`consts`, the residuals) are known,
/// and so is what is computed from them alone; the other values are linear in the inputs.
pub(crate) fn transpose_graph(
    func: &str,
    graph: &Graph,
    consts: &[Array],
    cts_out: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    let n = graph.avals.len();
    let mut known: Vec<Option<Array>> = vec![None; n];
    for (&v, a) in graph.constvars.iter().zip(consts) {
        known[v] = Some(a.clone());
    }
    // Equations on known values only (the constants of a custom function inlined into the
    // graph) are evaluated first, as JAX's backward pass does.
    let mut linear_eqns = Vec::with_capacity(graph.eqns.len());
    for e in &graph.eqns {
        if e.inputs.iter().all(|&i| known[i].is_some()) {
            let ins: Vec<&Array> = e.inputs.iter().filter_map(|&i| known[i].as_ref()).collect();
            let device = ins.first().map(|a| a.device().clone());
            for (&o, a) in e
                .outs
                .iter()
                .zip(lax::bind_all(e.prim.clone(), &ins, device.as_ref())?)
            {
                known[o] = Some(a);
            }
        } else {
            linear_eqns.push(e);
        }
    }
    let mut ct: Vec<Option<Array>> = vec![None; n];
    let accumulate = |slot: &mut Option<Array>, c: Array| -> Result<()> {
        *slot = Some(match slot.take() {
            None => c,
            Some(prev) => add(&prev, &c)?,
        });
        Ok(())
    };
    for (&o, c) in graph.outvars.iter().zip(cts_out) {
        if let (Some(c), None) = (c, &known[o]) {
            accumulate(&mut ct[o], c.clone())?;
        }
    }
    for e in linear_eqns.into_iter().rev() {
        let cts: Vec<Option<Array>> = e.outs.iter().map(|&o| ct[o].take()).collect();
        if cts.iter().all(Option::is_none) {
            continue;
        }
        let x: Vec<Operand> = e
            .inputs
            .iter()
            .map(|&i| match &known[i] {
                Some(a) => Operand::Known(a),
                None => Operand::Linear(&graph.avals[i]),
            })
            .collect();
        let cts_in = match &e.prim {
            Primitive::CustomLin { .. } => custom_lin_transpose(&e.prim, &x, &cts)?,
            _ => transpose_rule(func, &e.prim, &x, &cts)?,
        };
        for ((&i, c), op) in e.inputs.iter().zip(cts_in).zip(&x) {
            if let (Some(c), true) = (c, op.is_linear()) {
                accumulate(&mut ct[i], c)?;
            }
        }
    }
    Ok(graph.invars.iter().map(|&v| ct[v].take()).collect())
}

/// The transpose of a linearized `custom_vjp` call: its backward rule on the residuals and
/// the outputs' cotangents (zeros where `None`).
fn custom_lin_transpose(
    prim: &Primitive,
    x: &[Operand],
    cts: &[Option<Array>],
) -> Result<Vec<Option<Array>>> {
    let Primitive::CustomLin { call } = prim else {
        return Err(Error::arg(prim.name(), "is not a custom_lin"));
    };
    let Rules::Lin { bwd, residuals } = rules_of(call)? else {
        return Err(Error::arg(
            &call.name,
            "a custom_lin without a backward rule",
        ));
    };
    let want = call.fun.out_avals();
    let device = cts.iter().flatten().next().map(|c| c.device().clone());
    let full = cts
        .iter()
        .zip(&want)
        .map(|(c, w)| match (c, &device) {
            (Some(c), _) => Ok(c.clone()),
            (None, Some(d)) => zeros(w, d),
            (None, None) => Err(Error::arg(&call.name, "no cotangent")),
        })
        .collect::<Result<Vec<_>>>()?;
    let cts_in = bwd(residuals, &full)?;
    let got: Vec<Array> = cts_in.iter().flatten().cloned().collect();
    let want: Vec<Aval> = cts_in
        .iter()
        .zip(x)
        .filter(|(c, _)| c.is_some())
        .map(|(_, a)| a.aval().clone())
        .collect();
    check_types(&call.name, "backward rule's cotangents", &got, &want)?;
    Ok(cts_in)
}

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

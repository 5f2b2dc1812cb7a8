//! Every primitive's JVP against central differences of the primitive itself, and its
//! VJP against its JVP (`<ct, J t> = <Jᵀ ct, t>`), on float32 operands.
#![cfg(test)]

use super::ad::{add, mul, scale, un};
use super::custom::{Residuals, Rules};
use super::linearize::{jvp_of, Linearized};
use crate::array::Array;
use crate::dtype::DType;
use crate::lax;
use crate::primitive::CustomCall;
use crate::primitive::{
    BinaryOp, CumulativeOp, Literal, Primitive, ReduceOp, ScatterMode, ThreefryOutput, UnaryOp,
};
use crate::shape::Aval;
use rand::{Rng, SeedableRng};

fn arr(v: &[f32], shape: &[usize]) -> Array {
    Array::from_slice(v, shape).unwrap()
}

fn vals(a: &Array) -> Vec<f64> {
    a.astype(DType::Float32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|&v| f64::from(v))
        .collect()
}

fn dot_all(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Calls of `sin` on float32[2, 3] with real rules (the table's examples carry none):
/// a JVP rule `cos(x) t`, and a VJP from the residual `x`.
fn custom_calls() -> [Primitive; 2] {
    use super::custom::{BwdFn, FwdFn, JvpFn};
    use std::sync::Arc;
    let fun = CustomCall::example().fun;
    let jvp: Arc<JvpFn> = Arc::new(|x: &[Array], t: &[Array]| {
        Ok((
            vec![un(UnaryOp::Sin, &x[0])?],
            vec![mul(&t[0], &un(UnaryOp::Cos, &x[0])?)?],
        ))
    });
    let fwd: Arc<FwdFn> = Arc::new(|x: &[Array]| {
        let def = crate::tree::TreeDef::list(vec![crate::tree::TreeDef::leaf()]);
        let res = Residuals {
            leaves: vec![x[0].clone()],
            def,
        };
        Ok((vec![un(UnaryOp::Sin, &x[0])?], res))
    });
    let bwd: Arc<BwdFn> = Arc::new(|res: &Residuals, g: &[Array]| {
        Ok(vec![Some(mul(&g[0], &un(UnaryOp::Cos, &res.leaves[0])?)?)])
    });
    let call = |rules: Rules| CustomCall {
        name: Arc::from("sin"),
        fun: fun.clone(),
        captured: 0,
        rules: Arc::new(rules),
    };
    [
        Primitive::CustomJvpCall {
            call: call(Rules::Jvp(jvp)),
        },
        Primitive::CustomVjpCall {
            call: call(Rules::Vjp { fwd, bwd }),
        },
    ]
}

/// The primitives the tests run: every table example plus the parameter values that
/// have rules of their own.
pub(crate) fn test_primitives() -> Vec<Primitive> {
    let mut prims: Vec<Primitive> = Primitive::examples()
        .into_iter()
        .filter(|p| {
            !matches!(
                p,
                Primitive::CustomJvpCall { .. }
                    | Primitive::CustomVjpCall { .. }
                    | Primitive::CustomLin { .. }
            )
        })
        .collect();
    prims.extend(custom_calls());
    prims.extend([
        Primitive::Reduce {
            op: ReduceOp::Prod,
            axes: vec![1],
        },
        Primitive::Reduce {
            op: ReduceOp::Max,
            axes: vec![0, 1],
        },
        Primitive::Reduce {
            op: ReduceOp::Min,
            axes: vec![1],
        },
        Primitive::Sort { indices: false },
        Primitive::Cumulative {
            op: CumulativeOp::Sum,
            axis: 1,
            reverse: true,
        },
        Primitive::Cumulative {
            op: CumulativeOp::Prod,
            axis: 0,
            reverse: false,
        },
        Primitive::Cumulative {
            op: CumulativeOp::Prod,
            axis: 1,
            reverse: true,
        },
        Primitive::Scatter {
            mode: ScatterMode::Set,
        },
        Primitive::Scatter {
            mode: ScatterMode::Min,
        },
        Primitive::Scatter {
            mode: ScatterMode::Max,
        },
        Primitive::Pad {
            low: vec![2, 1],
            high: vec![1, 3],
            value: None,
        },
        Primitive::Slice {
            start_indices: vec![1, 0],
            limit_indices: vec![2, 3],
            strides: vec![1, 3],
        },
    ]);
    prims
}

/// The domain of float operands where the primitive is smooth.
fn domain(prim: &Primitive, k: usize) -> (f32, f32) {
    use UnaryOp::*;
    match prim {
        Primitive::Unary(Acosh) => (1.5, 2.5),
        Primitive::Unary(Asin | Acos | Atanh | ErfInv) => (-0.8, 0.8),
        Primitive::Unary(Tan) => (-1.0, 1.0),
        Primitive::Binary(BinaryOp::Rem | BinaryOp::Fmod | BinaryOp::FloorDiv) => {
            if k == 0 {
                (0.2, 0.9)
            } else {
                (1.0, 1.5)
            }
        }
        _ => (0.5, 1.5),
    }
}

/// Float32 operands for `prim`, or `None` when it has no float32 form.
pub(crate) fn operands(prim: &Primitive, r: &mut impl Rng) -> Option<Vec<Array>> {
    operands_of(prim, DType::Float32, r)
}

/// Operands of `dtype` for `prim` (index operands are int32), random in the
/// primitive's smooth domain; `None` when `prim` has no form for `dtype`.
pub(crate) fn operands_of(prim: &Primitive, dtype: DType, r: &mut impl Rng) -> Option<Vec<Array>> {
    let mut f = |shape: &[usize], k: usize| {
        let (lo, hi) = domain(prim, k);
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|_| match dtype {
                DType::Bool => r.random_range(0.0f32..2.0).floor(),
                DType::Int32 | DType::UInt32 => r.random_range(1.0f32..9.0).floor(),
                _ => r.random_range(lo..hi),
            })
            .collect();
        arr(&v, shape).astype(dtype).unwrap()
    };
    let s = [2, 3];
    let ops = match prim {
        Primitive::Full { .. } | Primitive::Iota { .. } => return None,
        Primitive::Select => vec![
            Array::from_slice(&[true, false, true, false, false, true], &s).unwrap(),
            f(&s, 1),
            f(&s, 2),
        ],
        Primitive::Gather { .. } => {
            vec![
                f(&s, 0),
                Array::from_slice(&[2i32, 0, 1, 1, 2, 0], &s).unwrap(),
            ]
        }
        // Base and update values far apart, so no difference step changes which of
        // them is the extreme.
        Primitive::Scatter {
            mode: ScatterMode::Max | ScatterMode::Min,
        } if dtype.is_floating() => {
            let mut v: Vec<f32> = (0..12).map(|i| -0.75 + 0.3 * i as f32).collect();
            for i in (1..v.len()).rev() {
                v.swap(i, r.random_range(0..=i));
            }
            vec![
                arr(&v[..6], &s).astype(dtype).unwrap(),
                Array::from_slice(&[0i32, 5, 2, 2, -1, 7], &s).unwrap(),
                arr(&v[6..], &s).astype(dtype).unwrap(),
            ]
        }
        Primitive::Scatter { .. } => vec![
            f(&s, 0),
            // A duplicate, a negative and an out-of-range position.
            Array::from_slice(&[0i32, 5, 2, 2, -1, 7], &s).unwrap(),
            f(&s, 2),
        ],
        Primitive::BatchMatmul => vec![f(&[1, 2, 3], 0), f(&[1, 3, 2], 1)],
        // The operand below, inside and above the bounds, far from each, so every
        // operand's partial shows and no difference step crosses a kink.
        Primitive::Clamp if dtype.is_floating() => {
            let mut near = |c: f32| -> f32 { c + r.random_range(-0.05f32..0.05) };
            let lo: Vec<f32> = (0..6).map(|_| near(-0.5)).collect();
            let x: Vec<f32> = (0..6).map(|i| near([-1.0, 0.0, 1.0][i % 3])).collect();
            let hi: Vec<f32> = (0..6).map(|_| near(0.5)).collect();
            [lo, x, hi]
                .iter()
                .map(|v| arr(v, &s).astype(dtype).unwrap())
                .collect()
        }
        // Keys far apart in a random order, so no difference step crosses a swap (or a
        // change of which element is the extreme).
        Primitive::Sort { .. }
        | Primitive::TopK { .. }
        | Primitive::Reduce {
            op: ReduceOp::Max | ReduceOp::Min,
            ..
        } if dtype.is_floating() => {
            let mut v: Vec<f32> = (0..6).map(|i| -0.75 + 0.3 * i as f32).collect();
            for i in (1..v.len()).rev() {
                v.swap(i, r.random_range(0..=i));
            }
            vec![arr(&v, &s).astype(dtype).unwrap()]
        }
        Primitive::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let operand: Vec<usize> = broadcast_dimensions.iter().map(|&d| shape[d]).collect();
            vec![f(&operand, 0)]
        }
        Primitive::Concatenate { .. } => vec![f(&s, 0), f(&s, 1), f(&s, 2)],
        p => (0..p.arity()).map(|k| f(&s, k)).collect(),
    };
    let avals: Vec<Aval> = ops.iter().map(|a| a.aval().clone()).collect();
    prim.abstract_eval_all(&avals).ok().map(|_| ops)
}

/// Primitives whose derivative is zero wherever it exists (or whose result is not
/// floating).
fn flat(prim: &Primitive) -> bool {
    use UnaryOp::*;
    matches!(
        prim,
        Primitive::Unary(
            Sign | Floor | Ceil | Round | Trunc | IsNan | IsInf | IsFinite | SignBit | StopGradient
        ) | Primitive::Binary(BinaryOp::FloorDiv)
            | Primitive::Compare(_)
            | Primitive::Sort { indices: true }
            | Primitive::SearchSorted { .. }
            | Primitive::ArgReduce { .. }
            | Primitive::ConvertElementType {
                dtype: DType::Bool
                    | DType::Int8
                    | DType::UInt8
                    | DType::Int16
                    | DType::UInt16
                    | DType::Int32
                    | DType::UInt32,
                ..
            }
            | Primitive::BitcastConvertType { .. }
    )
}

/// Reverse mode of `prim` at `x`: a graph of the one equation, linearized (its JVP rule
/// traced into a linear graph) and transposed, with cotangents for the operands in `needs`.
fn vjp_by_transposing(
    prim: &Primitive,
    x: &[Array],
    cts: &[Option<Array>],
    needs: &[bool],
) -> crate::Result<Vec<Option<Array>>> {
    let mut g = crate::primitive::Graph::default();
    let ins: Vec<usize> = x
        .iter()
        .map(|a| {
            let v = g.new_var(a.aval().clone());
            g.invars.push(v);
            v
        })
        .collect();
    let avals: Vec<Aval> = x.iter().map(|a| a.aval().clone()).collect();
    let outs = g.push_eqn(prim.clone(), ins, &prim.abstract_eval_all(&avals)?);
    g.outvars = outs;
    let name = std::sync::Arc::from(prim.name());
    Linearized::new(&name, g, &[], x, needs, x[0].device())?.backward(cts)
}

#[test]
fn every_primitive_jvp_matches_differences_and_its_vjp_is_the_transpose() {
    let mut r = rand::rngs::StdRng::seed_from_u64(7);
    let prims = test_primitives();
    let mut checked = [false; Primitive::COUNT];
    let mut failures = Vec::new();
    for prim in &prims {
        let Some(x) = operands(prim, &mut r) else {
            // No float form: random bits, iota, constants, bitcasts to floats.
            assert!(
                matches!(
                    prim,
                    Primitive::Full { .. }
                        | Primitive::Iota { .. }
                        | Primitive::Threefry { .. }
                        | Primitive::BitcastConvertType { .. }
                        | Primitive::Binary(_)
                        | Primitive::Unary(UnaryOp::Not | UnaryOp::PopulationCount)
                ),
                "{prim:?} has no float32 test operands"
            );
            continue;
        };
        // A custom_vjp call has reverse mode only (its linearization, custom_lin, is
        // checked by transposing it): its differences stand in for the JVP below.
        let reverse_only = matches!(prim, Primitive::CustomVjpCall { .. });
        let refs: Vec<&Array> = x.iter().collect();
        let outs = lax::bind_all(prim.clone(), &refs, None).unwrap();
        let t: Vec<Option<Array>> = x
            .iter()
            .map(|a| {
                a.dtype().is_floating().then(|| {
                    let v: Vec<f32> = (0..a.size()).map(|_| r.random_range(-1.0..1.0)).collect();
                    arr(&v, a.shape())
                })
            })
            .collect();
        let floating: Vec<bool> = outs.iter().map(|o| o.dtype().is_floating()).collect();
        if !floating.contains(&true) || (flat(prim) && !reverse_only) {
            if floating.contains(&true) {
                let jv = jvp_of(prim, &refs, &outs, &t).unwrap();
                assert!(
                    jv.iter().all(Option::is_none),
                    "{prim:?} should have a zero derivative"
                );
            }
            checked[prim.variant_index()] = true;
            continue;
        }
        let jvs = match reverse_only {
            true => vec![None; outs.len()],
            false => jvp_of(prim, &refs, &outs, &t).unwrap(),
        };
        assert_eq!(jvs.len(), outs.len(), "{prim:?}: a tangent per output");
        // Central differences of the primitive itself, in float32. bfloat16 results
        // are 2^-6 apart near 2-4: a step of 1e-2 would see one rounding or none.
        let dtype = outs[0].dtype();
        let h = if dtype == DType::BFloat16 {
            0.125f32
        } else {
            1e-2
        };
        let moved = |sign: f32| -> Vec<Vec<f64>> {
            let xs: Vec<Array> = x
                .iter()
                .zip(&t)
                .map(|(a, t)| match t {
                    Some(t) => add(a, &scale(t, f64::from(sign * h)).unwrap()).unwrap(),
                    None => a.clone(),
                })
                .collect();
            let refs: Vec<&Array> = xs.iter().collect();
            let outs = lax::bind_all(prim.clone(), &refs, None).unwrap();
            outs.iter().map(vals).collect()
        };
        let (up, down) = (moved(1.0), moved(-1.0));
        // Differences of float16 results are coarse (11-bit significands).
        let (tol, dot_tol) = match dtype {
            DType::Float16 => (0.1, 2e-3),
            // 8-bit significands: differences of rounded values are coarser still.
            DType::BFloat16 => (0.25, 2e-2),
            _ => (2e-2, 1e-4),
        };
        // The tangent of each floating output, checked against the differences.
        let mut got: Vec<Option<Vec<f64>>> = vec![None; outs.len()];
        for (k, out) in outs.iter().enumerate().filter(|&(k, _)| floating[k]) {
            let fd: Vec<f64> = up[k]
                .iter()
                .zip(&down[k])
                .map(|(u, d)| (u - d) / (2.0 * f64::from(h)))
                .collect();
            if reverse_only {
                got[k] = Some(fd);
                continue;
            }
            let jv = jvs[k]
                .as_ref()
                .unwrap_or_else(|| panic!("{prim:?}: no tangent for output {k}"));
            assert_eq!(jv.shape(), out.shape(), "{prim:?}");
            let g = vals(jv);
            let norm = fd.iter().map(|v| v.abs()).fold(1.0, f64::max);
            for (i, (g, w)) in g.iter().zip(&fd).enumerate() {
                if (g - w).abs() > tol * norm {
                    failures.push(format!("{prim:?} jvp[{k}][{i}] = {g}, differences {w}"));
                }
            }
            got[k] = Some(g);
        }
        // Reverse mode (the linearized JVP, transposed) is the JVP's transpose.
        let ct: Vec<Option<Array>> = outs
            .iter()
            .zip(&floating)
            .map(|(out, &f)| {
                f.then(|| {
                    let v: Vec<f32> = (0..out.size()).map(|_| r.random_range(-1.0..1.0)).collect();
                    arr(&v, out.shape())
                })
            })
            .collect();
        let needs: Vec<bool> = t.iter().map(Option::is_some).collect();
        let cts =
            vjp_by_transposing(prim, &x, &ct, &needs).unwrap_or_else(|e| panic!("{prim:?}: {e}"));
        assert_eq!(cts.len(), x.len(), "{prim:?}");
        let lhs: f64 = ct
            .iter()
            .zip(&got)
            .filter_map(|(c, g)| Some(dot_all(&vals(c.as_ref()?), g.as_ref()?)))
            .sum();
        let mut rhs = 0.0;
        for ((c, t), a) in cts.iter().zip(&t).zip(&x) {
            if let (Some(c), Some(t)) = (c, t) {
                assert_eq!(c.shape(), a.shape(), "{prim:?} cotangent shape");
                assert_eq!(c.dtype(), a.dtype(), "{prim:?} cotangent dtype");
                rhs += dot_all(&vals(c), &vals(t));
            }
        }
        // Differences stand in for a custom_vjp's JVP: their error is larger.
        let dot_tol = if reverse_only { 1e-3 } else { dot_tol };
        let close = (lhs - rhs).abs() <= dot_tol * (1.0 + lhs.abs());
        if !close {
            failures.push(format!(
                "{prim:?}: <ct, J t> = {lhs} but <Jᵀ ct, t> = {rhs}"
            ));
        }
        checked[prim.variant_index()] = true;
        if reverse_only {
            let lin = Primitive::CustomLin {
                call: CustomCall::example(),
            };
            checked[lin.variant_index()] = true;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every variant was checked, or has no float form at all.
    let no_float = [
        Primitive::Full {
            shape: vec![],
            value: Literal::F32(0.0),
        }
        .variant_index(),
        Primitive::Iota {
            dtype: DType::Int32,
            shape: vec![1],
            dimension: 0,
        }
        .variant_index(),
        Primitive::Threefry {
            output: ThreefryOutput::Xor,
        }
        .variant_index(),
    ];
    for (i, c) in checked.iter().enumerate() {
        assert!(
            *c || no_float.contains(&i),
            "variant {i} has no checked rule"
        );
    }
}

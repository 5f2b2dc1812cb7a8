//! jit: tracing to a graph, fusion, the signature cache, pytrees at the boundary.

use std::cell::Cell;

use olympus::{jit, lax, numpy as np, random, tree, Array, DType, Error, Result};

use crate::common::{assert_error, random_array, rng};

fn chain(x: &Array, y: &Array, z: &Array) -> Result<Array> {
    np::divide(
        np::exp(np::add(np::multiply(x, y)?, z)?)?,
        np::add(np::abs(x)?, 1.0)?,
    )
}

fn bits(a: &Array) -> Vec<u32> {
    let f = a.astype(DType::Float32).unwrap();
    f.to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn a_chain_fuses_into_one_kernel_and_matches_eager() {
    let mut r = rng();
    let shape = [37, 11];
    let (x, y, z) = (
        random_array(&mut r, &shape, DType::Float32, false).0,
        random_array(&mut r, &shape, DType::Float32, false).0,
        random_array(&mut r, &shape, DType::Float32, false).0,
    );
    let f = jit(|(x, y, z): (Array, Array, Array)| chain(&x, &y, &z)).named("chain");
    let got = f.call((x.clone(), y.clone(), z.clone())).unwrap();
    let want = chain(&x, &y, &z).unwrap();
    assert_eq!(got.shape(), want.shape());
    assert_eq!(got.dtype(), want.dtype());
    assert_eq!(bits(&got), bits(&want));
    let low = f.lower(&(x.clone(), y.clone(), z.clone())).unwrap();
    assert_eq!(low.fused_kernels(), 1, "{low}");
    let text = low.to_string();
    for op in ["lambda", "mul", "exp", "abs", "div", "in ("] {
        assert!(text.contains(op), "{op} missing from\n{text}");
    }
    assert_eq!(f.trace_count(), 1);
}

#[test]
fn the_cache_retraces_only_for_a_new_signature() {
    let f = jit(|(x, n): (Array, usize)| np::multiply(&x, n as f64));
    let a = np::arange(4.0f32).unwrap();
    let b = np::ones(&[4], DType::Float32).unwrap();
    f.call((a.clone(), 2)).unwrap();
    assert_eq!(
        f.call((b.clone(), 2)).unwrap().to_vec::<f32>().unwrap(),
        [2.0; 4]
    );
    assert_eq!(f.trace_count(), 1, "new values reuse the trace");
    f.call((np::ones(&[5], DType::Float32).unwrap(), 2))
        .unwrap();
    assert_eq!(f.trace_count(), 2, "a new shape retraces");
    f.call((np::ones(&[5], DType::Int32).unwrap(), 2)).unwrap();
    assert_eq!(f.trace_count(), 3, "a new dtype retraces");
    let y = f.call((a.clone(), 3)).unwrap();
    assert_eq!(f.trace_count(), 4, "a new static value retraces");
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 6.0, 9.0]);
    let weak = np::add(2.5, 0.0).unwrap();
    assert!(weak.weak_type());
    f.call((weak, 3)).unwrap();
    f.call((Array::scalar(2.5f32).unwrap(), 3)).unwrap();
    assert_eq!(
        f.trace_count(),
        6,
        "weak and strong scalars are different signatures"
    );
    // A new structure retraces too.
    let g =
        jit(|xs: Vec<Array>| np::sum(np::stack(xs.iter().collect::<Vec<_>>(), 0)?, None, false));
    g.call(vec![a.clone(), b.clone()]).unwrap();
    g.call(vec![b.clone(), a.clone()]).unwrap();
    assert_eq!(g.trace_count(), 1);
    let s = g.call(vec![a.clone(), b.clone(), b.clone()]).unwrap();
    assert_eq!(g.trace_count(), 2);
    assert_eq!(s.item::<f32>().unwrap(), 14.0);
    assert_eq!(g.cache_size(), 2);
}

struct Layer {
    w: Array,
    b: Array,
    activation: String,
}
olympus::register_pytree!(Layer { w, b, #[static] activation });

#[test]
fn a_registered_pytree_arrives_as_itself_with_traced_fields() {
    let seen_traced = Cell::new(false);
    let forward = |(layer, x): (Layer, Array)| -> Result<Layer> {
        seen_traced.set(layer.w.is_traced() && layer.b.is_traced() && x.is_traced());
        let h = np::add(np::matmul(&x, &layer.w)?, &layer.b)?;
        let h = match layer.activation.as_str() {
            "relu" => np::maximum(&h, 0.0)?,
            _ => np::tanh(&h)?,
        };
        Ok(Layer {
            w: h,
            b: layer.b,
            activation: layer.activation,
        })
    };
    let mut r = rng();
    let make = |act: &str, r: &mut _| Layer {
        w: random_array(r, &[3, 4], DType::Float32, false).0,
        b: random_array(r, &[4], DType::Float32, false).0,
        activation: act.into(),
    };
    let x = random_array(&mut r, &[2, 3], DType::Float32, false).0;
    let f = jit(forward);
    for act in ["relu", "tanh"] {
        let l = make(act, &mut r);
        let eager = forward((
            Layer {
                w: l.w.clone(),
                b: l.b.clone(),
                activation: act.into(),
            },
            x.clone(),
        ))
        .unwrap();
        assert!(!seen_traced.get());
        let out = f.call((l, x.clone())).unwrap();
        assert!(seen_traced.get(), "jit passes traced fields");
        assert_eq!(out.activation, act);
        assert_eq!(bits(&out.w), bits(&eager.w));
        seen_traced.set(false);
    }
    assert_eq!(
        f.trace_count(),
        2,
        "the static field is part of the signature"
    );
}

#[test]
fn reading_values_while_tracing_is_a_clear_error() {
    let f = jit(|x: Array| -> Result<Array> {
        let v = x.to_vec::<f32>()?;
        np::multiply(&x, v[0] as f64)
    })
    .named("scale_by_first");
    let e = f.call(np::ones(&[3], DType::Float32).unwrap()).unwrap_err();
    assert!(matches!(e, Error::Tracing { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("to_vec") && msg.contains("scale_by_first"),
        "{msg}"
    );
    // item names itself, not the to_vec it reads with.
    let h = jit(|x: Array| -> Result<Array> {
        let first = np::sum(&x, None, false)?.item::<f32>()?;
        np::multiply(&x, f64::from(first))
    })
    .named("scale_by_sum");
    let e = h
        .call(np::ones(&[3], DType::Float32).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("item:") && e.contains("scale_by_sum"), "{e}");
    let g = jit(|x: Array| np::nonzero(&x, None, None)).named("nz");
    let e = g
        .call(np::ones(&[3], DType::Float32).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("nz"), "{e}");
    // Printing a traced array shows its type, not values.
    let h = jit(|x: Array| -> Result<Array> {
        assert_eq!(format!("{x:?}"), "Traced<f32[2,3]>with<jit(show)>");
        Ok(x)
    })
    .named("show");
    h.call(np::zeros(&[2, 3], DType::Float32).unwrap()).unwrap();
}

#[test]
fn an_escaped_tracer_is_an_error_not_a_panic() {
    let leak = std::cell::RefCell::new(None);
    let f = jit(|x: Array| -> Result<Array> {
        *leak.borrow_mut() = Some(x.clone());
        np::add(&x, 1.0)
    });
    f.call(np::zeros(&[2], DType::Float32).unwrap()).unwrap();
    let leaked = leak.borrow().clone().unwrap();
    let e = np::add(&leaked, 1.0).unwrap_err();
    assert!(matches!(e, Error::Tracing { .. }), "{e:?}");
    assert_error(leaked.to_vec::<f32>(), "to_vec", "Tracing");
}

#[test]
fn captured_arrays_views_reductions_and_matmul() {
    let mut r = rng();
    let w = random_array(&mut r, &[5, 3], DType::Float32, false).0;
    let body = |x: &Array| -> Result<Array> {
        // A captured constant, a transpose view, a broadcast, a matmul, a reduction.
        let h = np::matmul(x, &w)?;
        let t = np::transpose(&h, None)?;
        let s = np::sum(np::exp(np::multiply(&t, 0.5)?)?, Some(&[1]), false)?;
        np::subtract(np::log(&s)?, np::mean(&s, None, true)?)
    };
    let f = jit(|x: Array| body(&x));
    for n in [1usize, 4, 9] {
        let x = random_array(&mut r, &[n, 5], DType::Float32, false).0;
        let got = f.call(x.clone()).unwrap();
        let want = body(&x).unwrap();
        assert_eq!(got.shape(), want.shape());
        assert_eq!(bits(&got), bits(&want), "n = {n}");
    }
    assert_eq!(f.trace_count(), 3);
}

#[test]
fn random_numbers_under_jit_are_the_eager_numbers() {
    let f = jit(|key: Array| random::normal(&key, &[1000], DType::Float32));
    let key = random::key(7).unwrap();
    assert_eq!(
        bits(&f.call(key.clone()).unwrap()),
        bits(&random::normal(&key, &[1000], DType::Float32).unwrap())
    );
    let k2 = random::fold_in(&key, 3).unwrap();
    assert_eq!(
        bits(&f.call(k2.clone()).unwrap()),
        bits(&random::normal(&k2, &[1000], DType::Float32).unwrap())
    );
    assert_eq!(f.trace_count(), 1);
    // Bits, the uniform transform, an affine map and a cast: one kernel.
    let g = jit(|key: Array| {
        let u = random::uniform(&key, &[1000], -1.0, 3.0, DType::Float32)?;
        np::astype(((u * 2.0f32)? + 1.0f32)?, DType::Float16)
    });
    let low = g.lower(&key).unwrap();
    assert_eq!(low.fused_kernels(), 1, "{low}");
    let u = random::uniform(&key, &[1000], -1.0, 3.0, DType::Float32).unwrap();
    let eager = np::astype(((u * 2.0f32).unwrap() + 1.0f32).unwrap(), DType::Float16).unwrap();
    assert_eq!(bits(&g.call(key.clone()).unwrap()), bits(&eager));
}

#[test]
fn nested_jit_inlines_and_outputs_may_be_inputs_or_constants() {
    let inner = jit(|x: Array| np::sin(&x));
    let outer = jit(|(x, y): (Array, Array)| -> Result<(Array, Array, Array)> {
        let s = inner.call(x.clone())?;
        Ok((np::add(&s, &y)?, y, np::ones(&[2], DType::Int32)?))
    });
    let x = np::linspace(0.0, 1.0, 2, true).unwrap();
    let y = np::array([10.0f32, 20.0]).unwrap();
    let (a, b, c) = outer.call((x.clone(), y.clone())).unwrap();
    assert_eq!(bits(&a), bits(&np::add(np::sin(&x).unwrap(), &y).unwrap()));
    assert_eq!(b.to_vec::<f32>().unwrap(), vec![10.0, 20.0]);
    assert_eq!(c.to_vec::<i32>().unwrap(), vec![1, 1]);
    assert_eq!(inner.trace_count(), 0, "traced inline into the outer graph");
}

#[test]
fn take_gives_the_same_out_of_range_answer_eagerly_and_under_jit() {
    let x = np::array([1.0f32, 2.0, 3.0]).unwrap();
    let f = jit(|(x, i): (Array, Array)| np::take(&x, &i, None));
    let i = np::array([0i32, 5, -1]).unwrap();
    let eager = np::take(&x, &i, None).unwrap().to_vec::<f32>().unwrap();
    let jitted = f
        .call((x.clone(), i.clone()))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(eager[0], 1.0);
    assert!(eager[1].is_nan() && jitted[1].is_nan(), "JAX's fill: NaN");
    assert_eq!((eager[2], jitted[0], jitted[2]), (3.0, 1.0, 3.0));
    // The checked mode needs values a trace does not have.
    let g = jit(|(x, i): (Array, Array)| np::take_with(&x, &i, None, np::IndexMode::Raise, None));
    let e = g.call((x, i)).unwrap_err();
    assert!(matches!(e, olympus::Error::Tracing { .. }), "{e}");
}

#[test]
fn empty_and_zero_d_inputs() {
    let f = jit(|(x, y): (Array, Array)| np::add(np::multiply(&x, &y)?, 1));
    let e = f
        .call((
            np::zeros(&[0, 3], DType::Float32).unwrap(),
            np::zeros(&[0, 3], DType::Float32).unwrap(),
        ))
        .unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    let s = f
        .call((np::asarray(2.0f32).unwrap(), np::asarray(3.0f32).unwrap()))
        .unwrap();
    assert_eq!(s.item::<f32>().unwrap(), 7.0);
    let g = jit(|x: Array| lax::reduce(lax::ReduceOp::Sum, &x, &[0]));
    assert_eq!(
        g.call(np::arange(5).unwrap())
            .unwrap()
            .item::<i32>()
            .unwrap(),
        10
    );
    let _ = tree::tree_structure(&());
}

/// A fused chain reading more buffers than a kernel may bind is cut into several kernels.
#[test]
fn a_chain_over_many_inputs_is_split_to_fit_the_binding_limit() {
    let xs: Vec<Array> = (0..40)
        .map(|i| np::full(&[3], i as f32, None).unwrap())
        .collect();
    let total = |xs: Vec<Array>| -> Result<Array> {
        let mut acc = np::multiply(&xs[0], 1.0)?;
        for x in &xs[1..] {
            acc = np::add(&acc, np::multiply(x, 2.0)?)?;
        }
        Ok(acc)
    };
    // A device that binds at most 16 storage buffers per kernel (GPUs allow thousands).
    let dev = olympus::Device::new(olympus::DeviceOptions {
        max_storage_buffers: Some(16),
        ..olympus::DeviceOptions::from_env().unwrap()
    })
    .unwrap();
    let xs: Vec<Array> = xs.iter().map(|x| x.to_device(&dev).unwrap()).collect();
    let want = total(xs.clone()).unwrap();
    let f = jit(total);
    let got = f.call(xs.clone()).unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
    assert_eq!(got.to_vec::<f32>().unwrap(), [1560.0; 3]); // 2 * (1 + ... + 39)
    assert!(f.lower(&xs).unwrap().fused_kernels() > 1);
}

/// Every element's raw bits (float16 through its exact float32 value).
fn raw(a: &Array) -> Vec<u64> {
    match a.dtype() {
        DType::Float32 | DType::Float16 => bits(a).into_iter().map(u64::from).collect(),
        DType::Int32 => a
            .to_vec::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v as u32 as u64)
            .collect(),
        DType::UInt32 => a
            .to_vec::<u32>()
            .unwrap()
            .iter()
            .map(|&v| v as u64)
            .collect(),
        DType::Bool => a
            .to_vec::<bool>()
            .unwrap()
            .iter()
            .map(|&v| v as u64)
            .collect(),
        _ => crate::common::words(a).into_iter().map(u64::from).collect(),
    }
}

/// An elementwise mix of `x` and `y` with an iota along the last axis (whose place moves
/// when the reduced axes are moved).
fn mix(x: &Array, y: &Array) -> Result<Array> {
    let d = x.dtype();
    if d == DType::Bool {
        return np::logical_xor(x, &np::logical_not(y)?);
    }
    let rank = x.ndim();
    let i = lax::iota(d, x.shape(), rank.saturating_sub(1), None)?;
    let i = if rank == 0 {
        lax::convert_element_type(&i, d)?
    } else {
        i
    };
    lax::select(
        &np::greater(x, y)?,
        &np::multiply(x, y)?,
        &np::add(&np::subtract(x, y)?, &i)?,
    )
}

/// A chain with a trailing reduction runs as one kernel per pass (the chain's values get
/// no buffer) and gives the bits of eager code: every reduction and dtype, reduced axes
/// leading, trailing, in the middle, all and none, `vec4` and scalar reads, several
/// passes, a transposed operand and an iota inside the chain.
#[test]
fn a_chain_with_a_trailing_reduction_fuses_and_matches_eager() {
    let mut r = rng();
    let mut cases = 0;
    for shape in [vec![6, 5, 8], vec![3, 1001], vec![130, 4]] {
        let rank = shape.len();
        let axes_sets: Vec<Vec<usize>> = if rank == 3 {
            vec![
                vec![],
                vec![0],
                vec![1],
                vec![2],
                vec![0, 1],
                vec![1, 2],
                vec![0, 2],
                vec![0, 1, 2],
            ]
        } else {
            vec![vec![0], vec![1], vec![0, 1]]
        };
        for dtype in DType::ALL {
            let (x, _) = random_array(&mut r, &shape, dtype, false);
            let (y, _) = random_array(&mut r, &shape, dtype, true);
            for op in lax::ReduceOp::ALL {
                let logical = matches!(op, lax::ReduceOp::And | lax::ReduceOp::Or);
                if logical != (dtype == DType::Bool) {
                    continue;
                }
                for axes in &axes_sets {
                    let want = lax::reduce(op, &mix(&x, &y).unwrap(), axes).unwrap();
                    let axes2 = axes.clone();
                    let f =
                        jit(move |(x, y): (Array, Array)| lax::reduce(op, &mix(&x, &y)?, &axes2));
                    let got = f.call((x.clone(), y.clone())).unwrap();
                    let what = format!("{op:?} over {axes:?} of {dtype} {shape:?}");
                    assert_eq!(got.shape(), want.shape(), "{what}");
                    assert_eq!(got.dtype(), want.dtype(), "{what}");
                    assert_eq!(raw(&got), raw(&want), "{what}");
                    let low = f.lower(&(x.clone(), y.clone())).unwrap();
                    assert_eq!((low.fused_kernels(), low.steps()), (1, 1), "{what}\n{low}");
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 100, "{cases}");
    // A value that is also returned is stored once and reduced from its buffer.
    let (x, _) = random_array(&mut r, &[6, 8], DType::Float32, false);
    let f = jit(|x: Array| {
        let v = np::exp(&x)?;
        let s = lax::reduce(lax::ReduceOp::Sum, &v, &[1])?;
        Ok((v, s))
    });
    let (v, s) = f.call(x.clone()).unwrap();
    let want = lax::reduce(lax::ReduceOp::Sum, &np::exp(&x).unwrap(), &[1]).unwrap();
    assert_eq!(bits(&s), bits(&want));
    assert_eq!(bits(&v), bits(&np::exp(&x).unwrap()));
    let low = f.lower(&x).unwrap();
    assert_eq!((low.fused_kernels(), low.steps()), (1, 2), "{low}");
}

/// Values of one shape that share operands or fused ancestry are stored by one kernel
/// (each operand read once, the shared part computed once), bit-identical to eager; a
/// value that needs a result computed after the group (here a reduction of a member)
/// gets a kernel of its own.
#[test]
fn outputs_sharing_operands_are_stored_by_one_kernel() {
    let mut r = rng();
    let shape = [37, 129];
    let arrays: Vec<Array> = (0..4)
        .map(|_| random_array(&mut r, &shape, DType::Float32, false).0)
        .collect();
    // One step of Adam: the moments and the parameter all come out of one kernel.
    let adam = |(p, g, m, v): (Array, Array, Array, Array)| -> Result<(Array, Array, Array)> {
        let m2 = (np::multiply(&m, 0.9)? + np::multiply(&g, 0.1)?)?;
        let v2 = (np::multiply(np::abs(&v)?, 0.999)? + np::multiply(np::square(&g)?, 0.001)?)?;
        let p2 = (&p - np::divide(np::multiply(&m2, 0.01)?, (np::sqrt(&v2)? + 1e-8)?)?)?;
        Ok((p2, m2, v2))
    };
    let args = (
        arrays[0].clone(),
        arrays[1].clone(),
        arrays[2].clone(),
        arrays[3].clone(),
    );
    let want = adam(args.clone()).unwrap();
    let f = jit(adam);
    let got = f.call(args.clone()).unwrap();
    for (g, w) in [(&got.0, &want.0), (&got.1, &want.1), (&got.2, &want.2)] {
        assert_eq!(bits(g), bits(w));
    }
    // (Its other steps are views: the captured scalars broadcast.)
    let low = f.lower(&args).unwrap();
    assert_eq!(low.fused_kernels(), 1, "{low}");

    // Outputs of different dtypes (float16 rounding, int32, bool) from shared operands.
    for d in [DType::Float16, DType::Int32, DType::Float32] {
        let (a, b) = (
            random_array(&mut r, &shape, d, false).0,
            random_array(&mut r, &shape, d, true).0,
        );
        let g = |(a, b): (Array, Array)| -> Result<(Array, Array, Array)> {
            let s = (&a + &b)?;
            Ok(((&s * &a)?, np::greater(&s, &b)?, np::negative(&s)?))
        };
        let want = g((a.clone(), b.clone())).unwrap();
        let f = jit(g);
        let got = f.call((a.clone(), b.clone())).unwrap();
        for (x, y) in [(&got.0, &want.0), (&got.1, &want.1), (&got.2, &want.2)] {
            assert_eq!((x.dtype(), x.shape()), (y.dtype(), y.shape()));
            assert_eq!(bits(x), bits(y), "{d}");
        }
        let low = f.lower(&(a, b)).unwrap();
        assert_eq!((low.fused_kernels(), low.steps()), (1, 1), "{d}\n{low}");
    }

    // Softmax with its numerator returned: the quotient needs the sum of the numerator,
    // so it cannot join the numerator's kernel.
    let x = arrays[0].clone();
    let softmax = |x: Array| -> Result<(Array, Array)> {
        let e = np::exp(&x)?;
        let s = np::sum(&e, Some(&[1]), true)?;
        Ok((np::divide(&e, &s)?, e))
    };
    let want = softmax(x.clone()).unwrap();
    let f = jit(softmax);
    let got = f.call(x.clone()).unwrap();
    assert_eq!(bits(&got.0), bits(&want.0));
    assert_eq!(bits(&got.1), bits(&want.1));
    assert_eq!(f.lower(&x).unwrap().fused_kernels(), 2);
}

/// A reduction whose operand is made inside the jitted function (a fused program of
/// constants, with no inputs) runs: it used to index the program's missing first input.
#[test]
fn reductions_of_values_made_inside_jit() {
    let f = jit(|x: Array| -> Result<(Array, Array, Array)> {
        let ones = np::ones(&[200], DType::Int32)?;
        let s = np::sum(&ones, None, false)?;
        let m = np::max(np::arange(7)?, None, false)?;
        let w = np::sum_with(
            np::ones(&[200], DType::Int8)?,
            None,
            false,
            Some(DType::Int8),
        )?;
        Ok((np::add(&s, &x)?, m, w))
    });
    let (s, m, w) = f.call(Array::scalar(1i32).unwrap()).unwrap();
    assert_eq!(s.item::<i32>().unwrap(), 201);
    assert_eq!(m.item::<i32>().unwrap(), 6);
    // 200 wraps to -56 in int8, as in JAX.
    assert_eq!(w.item::<i8>().unwrap(), -56);
}

/// Reshapes that only add or remove dimensions of length 1 move above the pointwise
/// values they view, so a chain through them is one kernel: a `[5, 1, 7]` product
/// reshaped to `[5, 7]` and used by a sum and a max is computed where they read it (no
/// kernel of its own), with the eager bits. Identity transposes and reshapes vanish, and
/// outputs that are such views of inputs, of constants, of a product kept for another
/// use or of each other come out right.
#[test]
fn unit_reshapes_move_above_pointwise_chains() {
    let mut r = rng();
    let x = random_array(&mut r, &[5, 1, 7], DType::Float32, false).0;
    let y = random_array(&mut r, &[5, 7], DType::Float32, false).0;
    let f = |(x, y): (Array, Array)| -> Result<Vec<Array>> {
        let p = np::exp(np::multiply(&x, 0.5f32)?)?;
        let q = np::reshape(&p, &[5, 7])?;
        let s = np::sum(np::add(&q, &y)?, Some(&[1]), false)?;
        let m = np::max(np::multiply(&q, &y)?, Some(&[0]), false)?;
        let v = np::reshape(np::ones(&[7], DType::Float32)?, &[1, 7, 1])?;
        let back = np::reshape(np::tanh(&q)?, &[1, 5, 1, 7])?;
        Ok(vec![
            s,
            m,
            np::transpose(&x, Some(&[0, 1, 2]))?,
            np::reshape(&x, &[5, 1, 7])?,
            np::reshape(&x, &[5, 7, 1])?,
            v,
            p,
            back,
        ])
    };
    let want = f((x.clone(), y.clone())).unwrap();
    let jitted = jit(f);
    let got = jitted.call((x.clone(), y.clone())).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "output {k}");
        assert_eq!(bits(g), bits(w), "output {k}");
    }
    // The sum and the max read the product themselves: two fused reductions, and no
    // third kernel storing `q`.
    let reductions = jit(|(x, y): (Array, Array)| -> Result<(Array, Array)> {
        let q = np::reshape(np::exp(np::multiply(&x, 0.5f32)?)?, &[5, 7])?;
        Ok((
            np::sum(np::add(&q, &y)?, Some(&[1]), false)?,
            np::max(np::multiply(&q, &y)?, Some(&[0]), false)?,
        ))
    });
    let low = reductions.lower(&(x.clone(), y.clone())).unwrap();
    assert_eq!(low.fused_kernels(), 2, "{low}");
    let (s, m) = reductions.call((x.clone(), y.clone())).unwrap();
    assert_eq!(bits(&s), bits(&want[0]));
    assert_eq!(bits(&m), bits(&want[1]));
    // Positions along a kept dimension (an iota) move with the chain; along a unit one
    // they are zeros read from a buffer. The chain is also an output and a matmul's
    // operand, so it is stored once and its reshape reads it.
    let positions = |(x, y): (Array, Array)| -> Result<Vec<Array>> {
        let along = lax::iota(DType::Float32, &[5, 1, 7], 2, None)?;
        let unit = lax::iota(DType::Float32, &[5, 1, 7], 1, None)?;
        let p = np::add(np::multiply(&x, &along)?, &unit)?;
        let q = np::reshape(&p, &[5, 7])?;
        Ok(vec![
            np::sum(np::add(&q, &y)?, Some(&[1]), false)?,
            np::matmul(&q, np::transpose(&y, None)?)?,
            np::exp(&p)?,
        ])
    };
    let want = positions((x.clone(), y.clone())).unwrap();
    let jitted = jit(positions);
    let got = jitted.call((x, y)).unwrap();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "positions output {k}");
        assert_eq!(bits(g), bits(w), "positions output {k}");
    }
}

/// A scalar computed in a few pointwise steps (an optimiser's bias correction) and
/// broadcast to the elementwise ops that use it is computed in their kernel, not in a
/// kernel of its own; a longer chain keeps its own kernel, as does a scalar a matmul
/// reads. Every form gives the eager bits.
#[test]
fn scalars_broadcast_into_fused_uses_are_computed_there() {
    let mut r = rng();
    let x = random_array(&mut r, &[6, 5], DType::Float32, false).0;
    let w = random_array(&mut r, &[5, 3], DType::Float32, false).0;
    let t = np::full(&[], 7.0, Some(DType::Float32)).unwrap();
    let short = |(x, t): (Array, Array)| {
        let c = np::subtract(1.0f32, np::power(0.9f32, &t)?)?;
        np::divide(&x, &c)
    };
    let long = |(x, t): (Array, Array)| {
        let mut c = t.clone();
        for _ in 0..20 {
            c = np::sin(&c)?;
        }
        np::divide(&x, &c)
    };
    let args = (x.clone(), t.clone());
    for (name, f, kernels) in [
        (
            "short",
            &short as &dyn Fn((Array, Array)) -> Result<Array>,
            1,
        ),
        ("long", &long, 2),
    ] {
        let j = jit(f);
        assert_eq!(j.lower(&args).unwrap().fused_kernels(), kernels, "{name}");
        assert_eq!(
            bits(&j.call(args.clone()).unwrap()),
            bits(&f(args.clone()).unwrap()),
            "{name}"
        );
    }
    let product = |(x, w, t): (Array, Array, Array)| {
        let c = np::exp(&t)?;
        let cw = np::multiply(&w, &c)?;
        np::add(
            np::matmul(&x, np::multiply(&cw, &c)?)?,
            np::matmul(&x, np::broadcast_to(&c, &[5, 3])?)?,
        )
    };
    let j = jit(product);
    let args = (x, w, t);
    assert_eq!(
        bits(&j.call(args.clone()).unwrap()),
        bits(&product(args).unwrap())
    );
}

/// A pad (here the gradient of a slice, as unpacking an array makes) is read by the
/// kernel that uses it, through a clamped load and a select, instead of being stored by a
/// kernel of its own: constant and edge padding, of transposed and empty operands, and
/// under a reduction along a leading axis, each with the eager bits.
#[test]
fn pads_are_read_by_the_kernels_that_use_them() {
    let mut r = rng();
    let x = random_array(&mut r, &[2, 37], DType::Float32, false).0;
    let unpack = |x: Array| -> Result<Array> {
        let (a, b) = (x.slice(olympus::s![0])?, x.slice(olympus::s![1])?);
        np::sum(
            np::add(np::multiply(&a, np::exp(&b)?)?, np::sin(&a)?)?,
            None,
            false,
        )
    };
    let g = olympus::grad(unpack);
    let j = jit(&g);
    let lowered = j.lower(&x).unwrap();
    // The two rows' gradients in one kernel, their pads and sum in the next; the other
    // six steps are views (pads of their own would be two more steps).
    assert_eq!((lowered.steps(), lowered.fused_kernels()), (8, 2));
    assert_eq!(
        bits(&j.call(x.clone()).unwrap()),
        bits(&g(x.clone()).unwrap())
    );

    let y = random_array(&mut r, &[6, 9], DType::Float32, false).0;
    for (name, shape, transpose) in [
        ("plain", vec![4, 5], false),
        ("transposed", vec![5, 4], true),
        ("empty", vec![0, 5], false),
    ] {
        let x = random_array(&mut r, &shape, DType::Float32, false).0;
        let x = if transpose {
            np::transpose(&x, None).unwrap()
        } else {
            x
        };
        let rows = 6 - x.shape()[0];
        for mode in [np::PadMode::Constant(-2.5), np::PadMode::Edge] {
            if x.size() == 0 && mode == np::PadMode::Edge {
                continue;
            }
            let chain = move |(x, y): (Array, Array)| {
                np::multiply(
                    np::add(np::pad(&x, &[(1, rows - 1), (3, 1)], mode)?, 1.0)?,
                    &y,
                )
            };
            let total = move |x: Array| {
                np::sum(
                    np::pad(&x, &[(1, rows - 1), (3, 1)], mode)?,
                    Some(&[0]),
                    false,
                )
            };
            let (jc, jt) = (jit(chain), jit(total));
            let args = (x.clone(), y.clone());
            let (lc, lt) = (jc.lower(&args).unwrap(), jt.lower(&x).unwrap());
            // (The chain's other step broadcasts the scalar 1. An empty operand's pad,
            // all fill, is a step of its own.)
            let empty = x.size() == 0;
            let chain_steps = if empty { (3, 1) } else { (2, 1) };
            let total_steps = if empty { (2, 0) } else { (1, 1) };
            assert_eq!((lc.steps(), lc.fused_kernels()), chain_steps, "{name}");
            assert_eq!((lt.steps(), lt.fused_kernels()), total_steps, "{name}");
            let (a, ea) = (jc.call(args.clone()).unwrap(), chain(args).unwrap());
            let (b, eb) = (jt.call(x.clone()).unwrap(), total(x.clone()).unwrap());
            assert_eq!(bits(&a), bits(&ea), "{name} {mode:?}");
            assert_eq!(bits(&b), bits(&eb), "{name} {mode:?} sum");
        }
    }
    // A reduction that moves its axes (here the middle one to the front) moves the pad's
    // widths with them.
    let x = random_array(&mut r, &[3, 4, 5], DType::Float32, false).0;
    for mode in [np::PadMode::Constant(0.75), np::PadMode::Edge] {
        let total = move |x: Array| {
            let p = np::pad(&x, &[(1, 0), (2, 1), (0, 3)], mode)?;
            np::sum(np::exp(p)?, Some(&[1]), false)
        };
        let j = jit(total);
        assert_eq!(j.lower(&x).unwrap().fused_kernels(), 1, "{mode:?}");
        let (got, want) = (j.call(x.clone()).unwrap(), total(x.clone()).unwrap());
        assert_eq!(got.shape(), &[4, 8]);
        assert_eq!(bits(&got), bits(&want), "{mode:?}");
    }
}

/// A broadcast of a short pointwise chain (a per-column value `vmap` or a bias spreads
/// across rows) or of an iota is computed where the broadcast is read, not stored by a
/// kernel of its own first: one kernel, with the eager bits.
#[test]
fn broadcast_chains_and_iotas_are_computed_where_they_are_read() {
    let mut r = rng();
    let x = random_array(&mut r, &[40, 3], DType::Float32, false).0;
    let v = random_array(&mut r, &[3], DType::Float32, false).0;
    let f = |(x, v): (Array, Array)| {
        let scale = np::multiply(np::exp(&v)?, 2.0)?;
        let column = lax::iota(DType::Float32, &[3], 0, None)?;
        let rows = lax::broadcast_in_dim(&scale, &[40, 3], &[1])?;
        let cols = lax::broadcast_in_dim(&column, &[40, 3], &[1])?;
        np::add(np::multiply(&x, rows)?, cols)
    };
    let j = jit(f);
    let args = (x, v);
    assert_eq!(j.lower(&args).unwrap().fused_kernels(), 1);
    assert_eq!(
        bits(&j.call(args.clone()).unwrap()),
        bits(&f(args).unwrap())
    );
}

/// Sibling reductions (one op over the same axes of values of one shape that share
/// operands) are one kernel that reads the operands once, each value on its own
/// accumulator into its own result, with the eager bits: down columns and along rows,
/// in one pass and in a tree of passes (past a CPU adapter's one-pass limit), float16
/// (accumulated in float32), counts of bools, and maxima; different ops stay apart.
#[test]
fn sibling_reductions_are_one_kernel() {
    let mut r = rng();
    type Reductions = fn((Array, Array)) -> Result<Vec<Array>>;
    let x_size = |x: &Array| x.size();
    let sums: Reductions = |(x, y)| {
        let a = [0];
        Ok(vec![
            np::sum(np::multiply(&x, &y)?, Some(&a), false)?,
            np::sum(np::multiply(&x, &x)?, Some(&a), false)?,
            np::sum(np::exp(&y)?, Some(&a), false)?,
        ])
    };
    let rows: Reductions = |(x, y)| {
        let a = [1];
        Ok(vec![
            np::sum(np::multiply(&x, &y)?, Some(&a), false)?,
            np::sum(np::subtract(&x, &y)?, Some(&a), false)?,
        ])
    };
    let counts: Reductions = |(x, y)| {
        Ok(vec![
            np::sum(np::greater(&x, &y)?, Some(&[0]), false)?,
            np::sum(np::less(&x, 0.0)?, Some(&[0]), false)?,
        ])
    };
    let maxima: Reductions = |(x, y)| {
        Ok(vec![
            np::max(np::multiply(&x, &y)?, Some(&[0]), false)?,
            np::max(np::subtract(&x, &y)?, Some(&[0]), false)?,
        ])
    };
    // A small value that only reductions use is computed in their kernel, not stored.
    let shared: Reductions = |(x, y)| {
        let v = np::multiply(np::exp(&x)?, &y)?;
        Ok(vec![
            np::sum(&v, Some(&[0]), false)?,
            np::sum(np::multiply(&v, &x)?, Some(&[0]), false)?,
        ])
    };
    // The second reads the first's result: no join.
    let dependent: Reductions = |(x, y)| {
        let first = np::sum(np::multiply(&x, &y)?, Some(&[0]), false)?;
        let second = np::sum(np::multiply(&x, &first)?, Some(&[0]), false)?;
        Ok(vec![first, second])
    };
    let mixed: Reductions = |(x, y)| {
        Ok(vec![
            np::sum(np::multiply(&x, &y)?, Some(&[0]), false)?,
            np::max(np::subtract(&x, &y)?, Some(&[0]), false)?,
        ])
    };
    for (name, f, kernels) in [
        ("sums", sums, 1),
        ("rows", rows, 1),
        ("counts", counts, 1),
        ("maxima", maxima, 1),
        ("mixed", mixed, 2),
        ("dependent", dependent, 2),
        ("shared", shared, 0),
    ] {
        for (shape, d) in [
            ([300, 7], DType::Float32),
            ([5000, 12], DType::Float32),
            ([12, 5000], DType::Float32),
            ([300, 8], DType::Float16),
        ] {
            let x = random_array(&mut r, &shape, d, false).0;
            let y = random_array(&mut r, &shape, d, false).0;
            let j = jit(f);
            let args = (x, y);
            let lowered = j.lower(&args).unwrap();
            // (Past 16K elements the shared value is stored, and the plain sum of it is no
            // fused kernel.)
            let kernels = match (name, x_size(&args.0)) {
                ("shared", n) if n <= 1 << 14 => 1,
                ("shared", _) => 2,
                _ => kernels,
            };
            assert_eq!(lowered.fused_kernels(), kernels, "{name} {shape:?} {d}");
            let (got, want) = (j.call(args.clone()).unwrap(), f(args).unwrap());
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((g.shape(), g.dtype()), (w.shape(), w.dtype()), "{name}");
                assert_eq!(bits(g), bits(w), "{name} {shape:?} {d}");
            }
        }
    }
}

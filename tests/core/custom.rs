//! Functions with their own derivative rules (`custom_jvp`, `custom_vjp`), primitives that
//! carry a sub-graph: the rule is what `jvp` and `grad` use, under `jit` and `vmap` in
//! either order; everything else evaluates the function; bad rules are clear errors.

use olympus::{
    custom_jvp, custom_vjp, grad, jit, jvp, lax, numpy as np, value_and_grad, vjp, vmap, Array,
    Axes, DType, Result,
};

fn arr(v: &[f32]) -> Array {
    Array::from_slice(v, &[v.len()]).unwrap()
}

fn vals(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "{what}: got {got:?}, want {want:?}"
        );
    }
}

/// `sin`, whose rule claims the derivative is 2 (not `cos`): a result through the rule
/// differs from one through `sin`'s own derivative, so each test sees which was used.
fn sin_with_rule_two() -> impl Fn(Array) -> Result<Array> {
    let f = custom_jvp(
        |x: Array| np::sin(&x),
        |x: Array, t: Array| -> Result<(Array, Array)> {
            Ok((np::sin(&x)?, np::multiply(&t, 2.0)?))
        },
    )
    .named("sin_with_rule_two");
    move |x| f.call(x)
}

fn summed(f: impl Fn(Array) -> Result<Array>) -> impl Fn(Array) -> Result<Array> {
    move |x| np::sum(f(x)?, None, false)
}

#[test]
fn custom_jvp_rules_drive_every_derivative_and_only_derivatives() {
    let xs = [0.5f32, -1.0, 2.0];
    let x = arr(&xs);
    let f = sin_with_rule_two();
    let sines: Vec<f32> = xs.iter().map(|v| v.sin()).collect();
    // Evaluation is the function, eagerly and under jit.
    close(&vals(&f(x.clone()).unwrap()), &sines, "eager");
    close(&vals(&jit(&f).call(x.clone()).unwrap()), &sines, "jit");
    // Forward and reverse mode use the rule: 2, not cos.
    let t = arr(&[1.0, 10.0, 100.0]);
    let (y, ty) = jvp(&f, x.clone(), t).unwrap();
    close(&vals(&y), &sines, "jvp primal");
    close(&vals(&ty), &[2.0, 20.0, 200.0], "jvp tangent");
    let twos = [2.0f32; 3];
    close(&vals(&grad(summed(&f))(x.clone()).unwrap()), &twos, "grad");
    close(
        &vals(&jit(grad(summed(&f))).call(x.clone()).unwrap()),
        &twos,
        "jit(grad)",
    );
    let (_, back) = vjp(&f, x.clone()).unwrap();
    close(
        &vals(&back.call(arr(&[1.0, -1.0, 3.0])).unwrap()),
        &[2.0, -2.0, 6.0],
        "vjp",
    );
    // Under vmap in both orders: the batched call keeps the rule.
    let m = Array::from_slice(&[0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6], &[2, 3]).unwrap();
    let per = vmap(grad(summed(&f)), 0, 0)(m.clone()).unwrap();
    close(&vals(&per), &[2.0; 6], "vmap(grad)");
    let through = grad(summed(vmap(&f, 0, 0)))(m.clone()).unwrap();
    close(&vals(&through), &[2.0; 6], "grad(vmap)");
    let jitted = jit(grad(summed(vmap(&f, 1, 0)))).call(m.clone()).unwrap();
    close(&vals(&jitted), &[2.0; 6], "jit(grad(vmap over axis 1))");
    // A batched and an unbatched operand.
    let g = custom_jvp(
        |(a, b): (Array, Array)| np::multiply(&a, &b),
        |(a, b): (Array, Array), (ta, tb): (Array, Array)| -> Result<(Array, Array)> {
            // d(ab) = b da + a db, scaled by 3 so the rule shows.
            let d = np::add(np::multiply(&b, &ta)?, np::multiply(&a, &tb)?)?;
            Ok((np::multiply(&a, &b)?, np::multiply(&d, 3.0)?))
        },
    );
    let b = arr(&[1.0, 2.0, 3.0]);
    let loss = |(a, b): (Array, Array)| np::sum(g.call((a, b))?, None, false);
    let batched = vmap(&loss, (0, Axes::Unmapped), 0);
    let (ga, gb) = grad(|(a, b): (Array, Array)| np::sum(batched((a, b))?, None, false))((
        m.clone(),
        b.clone(),
    ))
    .unwrap();
    close(
        &vals(&ga),
        &[3.0, 6.0, 9.0, 3.0, 6.0, 9.0],
        "grad a through vmap",
    );
    // The unbatched operand's cotangent sums over the examples: 3 (a0 + a1).
    close(&vals(&gb), &[1.5, 2.1, 2.7], "grad b through vmap");
}

#[test]
fn custom_jvp_primal_outputs_come_from_the_rule_under_jvp() {
    // JAX: under jvp the rule's primal output is the output.
    let f = custom_jvp(
        |x: Array| np::sin(&x),
        |x: Array, t: Array| -> Result<(Array, Array)> {
            Ok((np::add(np::multiply(&x, 0.0)?, 42.0)?, t))
        },
    );
    let (y, _) = jvp(|x: Array| f.call(x), arr(&[1.0]), arr(&[1.0])).unwrap();
    assert_eq!(vals(&y), [42.0]);
    assert_eq!(vals(&f.call(arr(&[0.0])).unwrap()), [0.0]);
}

/// JAX 0.10.2: `f = jax.custom_jvp(jnp.sin)` with `f.defjvp(lambda p, t: (jnp.sin(p[0]) +
/// 100.0, jnp.cos(p[0]) * t[0]))`: `jax.vjp(f, 0.5)[0]`, `jax.value_and_grad(f)(0.5)` and
/// its jit give 100.47942 (the rule's primal) and the derivative 0.87758255.
#[test]
fn custom_jvp_primal_outputs_come_from_the_rule_under_reverse_mode() {
    let f = custom_jvp(
        |x: Array| np::sin(&x),
        |x: Array, t: Array| -> Result<(Array, Array)> {
            Ok((
                np::add(np::sin(&x)?, 100.0)?,
                np::multiply(&t, np::cos(&x)?)?,
            ))
        },
    );
    let x = arr(&[0.5]);
    let (y, back) = vjp(|x: Array| f.call(x), x.clone()).unwrap();
    close(&vals(&y), &[100.47942], "vjp primal");
    close(
        &vals(&back.call(arr(&[1.0])).unwrap()),
        &[0.87758255],
        "vjp cotangent",
    );
    let summed = |x: Array| np::sum(f.call(x)?, None, false);
    for (what, (v, g)) in [
        ("value_and_grad", value_and_grad(summed)(x.clone()).unwrap()),
        (
            "jit(value_and_grad)",
            jit(value_and_grad(summed)).call(x.clone()).unwrap(),
        ),
    ] {
        close(&[v.item::<f32>().unwrap()], &[100.47942], what);
        close(&vals(&g), &[0.87758255], what);
    }
    // Without derivatives the function itself runs.
    close(&vals(&f.call(x).unwrap()), &[0.47942555], "f(x)");
}

/// JAX raises `UnexpectedTracerError` when a custom_jvp or custom_vjp function closes over
/// a value being differentiated (the rules cannot see it): an error here too, never a
/// silent zero. Capturing a constant stays fine.
#[test]
fn differentiating_through_a_captured_value_is_an_error() {
    let through_jvp = |y: Array| -> Result<Array> {
        let yr = y.clone();
        let h = custom_jvp(
            |x: Array| np::multiply(&x, &y),
            move |x: Array, t: Array| -> Result<(Array, Array)> {
                Ok((np::multiply(&x, &yr)?, np::multiply(&t, &yr)?))
            },
        )
        .named("h_jvp");
        np::sum(h.call(arr(&[2.0]))?, None, false)
    };
    let through_vjp = |y: Array| -> Result<Array> {
        let (yf, yb) = (y.clone(), y.clone());
        let h = custom_vjp(
            |x: Array| np::multiply(&x, &y),
            move |x: Array| -> Result<(Array, Array)> { Ok((np::multiply(&x, &yf)?, x)) },
            move |_: Array, g: Array| np::multiply(&g, &yb),
        )
        .named("h_vjp");
        np::sum(h.call(arr(&[2.0]))?, None, false)
    };
    for (name, err) in [
        ("h_jvp", grad(through_jvp)(arr(&[3.0])).map(|_| ())),
        (
            "h_jvp",
            jvp(through_jvp, arr(&[3.0]), arr(&[1.0])).map(|_| ()),
        ),
        ("h_vjp", grad(through_vjp)(arr(&[3.0])).map(|_| ())),
    ] {
        let err = err
            .expect_err("a captured differentiated value")
            .to_string();
        assert!(
            err.starts_with(name) && err.contains("captured") && err.contains("argument"),
            "{err}"
        );
    }
    // A captured constant: the derivative with respect to the argument only.
    let y = arr(&[3.0]);
    let g = grad(|x: Array| {
        let yr = y.clone();
        let h = custom_jvp(
            |x: Array| np::multiply(&x, &y),
            move |x: Array, t: Array| -> Result<(Array, Array)> {
                Ok((np::multiply(&x, &yr)?, np::multiply(&t, &yr)?))
            },
        );
        np::sum(h.call(x)?, None, false)
    })(arr(&[2.0]))
    .unwrap();
    assert_eq!(vals(&g), [3.0]);
}

#[test]
fn custom_jvp_with_several_outputs_integer_operands_and_captured_arrays() {
    let scale = arr(&[10.0, 20.0]);
    let f = custom_jvp(
        |(x, k): (Array, Array)| -> Result<(Array, Array)> {
            let kf = k.astype(DType::Float32)?;
            Ok((np::multiply(&np::multiply(&x, &kf)?, &scale)?, np::exp(&x)?))
        },
        |(x, k): (Array, Array),
         (t, tk): (Array, Array)|
         -> Result<((Array, Array), (Array, Array))> {
            // An integer operand's tangent is zeros of its dtype.
            assert_eq!(tk.dtype(), DType::Int32);
            let kf = k.astype(DType::Float32)?;
            let y0 = np::multiply(&x, &kf)?;
            Ok((
                (y0, np::exp(&x)?),
                (np::multiply(&t, &kf)?, np::multiply(&t, -1.0)?),
            ))
        },
    );
    let k = Array::from_slice(&[2i32, 3], &[2]).unwrap();
    let x = arr(&[0.0, 1.0]);
    let loss = |x: Array| -> Result<Array> {
        let (a, b) = f.call((x, k.clone()))?;
        np::add(np::sum(a, None, false)?, np::sum(b, None, false)?)
    };
    // The rule's derivative of a + b: k - 1 (the captured scale gets no part).
    close(&vals(&grad(&loss)(x.clone()).unwrap()), &[1.0, 2.0], "grad");
    close(
        &vals(&jit(grad(&loss)).call(x).unwrap()),
        &[1.0, 2.0],
        "jit(grad)",
    );
}

#[test]
fn custom_jvp_errors_name_the_function() {
    let bad = custom_jvp(
        |x: Array| np::sin(&x),
        |x: Array, _t: Array| -> Result<(Array, Array)> {
            Ok((np::sin(&x)?, np::zeros(&[5], DType::Float32)?))
        },
    )
    .named("bad_rule");
    let err = grad(|x: Array| np::sum(bad.call(x)?, None, false))(arr(&[1.0, 2.0]))
        .expect_err("a tangent of the wrong shape is an error")
        .to_string();
    assert!(
        err.starts_with("bad_rule:") && err.contains("f32[5]"),
        "{err}"
    );
}

#[test]
fn custom_vjp_rules_drive_reverse_mode() {
    // sin with a backward rule from the residual x: cos(x) * g * 10.
    let f = custom_vjp(
        |x: Array| np::sin(&x),
        |x: Array| -> Result<(Array, Array)> { Ok((np::sin(&x)?, x)) },
        |x: Array, g: Array| np::multiply(np::multiply(np::cos(&x)?, &g)?, 10.0),
    )
    .named("sin_vjp");
    let xs = [0.5f32, -1.0, 2.0];
    let x = arr(&xs);
    let want: Vec<f32> = xs.iter().map(|v| 10.0 * v.cos()).collect();
    let loss = |x: Array| np::sum(f.call(x)?, None, false);
    close(
        &vals(&f.call(x.clone()).unwrap()),
        &xs.map(f32::sin),
        "eager",
    );
    close(
        &vals(&jit(|x: Array| f.call(x)).call(x.clone()).unwrap()),
        &xs.map(f32::sin),
        "jit",
    );
    close(&vals(&grad(&loss)(x.clone()).unwrap()), &want, "grad");
    close(
        &vals(&jit(grad(&loss)).call(x.clone()).unwrap()),
        &want,
        "jit(grad)",
    );
    let m = Array::from_slice(&[0.5f32, -1.0, 2.0, 1.5, 0.0, -0.25], &[2, 3]).unwrap();
    let mv: Vec<f32> = vals(&m).iter().map(|v| 10.0 * v.cos()).collect();
    close(
        &vals(&vmap(grad(&loss), 0, 0)(m.clone()).unwrap()),
        &mv,
        "vmap(grad)",
    );
    close(
        &vals(
            &grad(|m: Array| np::sum(vmap(|x: Array| f.call(x), 0, 0)(m)?, None, false))(m)
                .unwrap(),
        ),
        &mv,
        "grad(vmap)",
    );
    // Forward mode is an error naming the function, as in JAX.
    let err = jvp(|x: Array| f.call(x), x.clone(), x.clone())
        .expect_err("jvp of a custom_vjp function")
        .to_string();
    assert!(
        err.starts_with("sin_vjp:") && err.contains("forward mode"),
        "{err}"
    );
    // A backward rule of the wrong structure is an error.
    let wrong = custom_vjp(
        |x: Array| Ok(x),
        |x: Array| -> Result<(Array, ())> { Ok((x, ())) },
        |_: (), _g: Array| np::zeros(&[7], DType::Float32),
    )
    .named("wrong_bwd");
    let err = grad(|x: Array| np::sum(wrong.call(x)?, None, false))(x)
        .expect_err("a cotangent of the wrong shape")
        .to_string();
    assert!(
        err.starts_with("wrong_bwd:") && err.contains("f32[7]"),
        "{err}"
    );
}

#[test]
fn custom_calls_show_their_graphs_in_listings() {
    let f = sin_with_rule_two();
    let text = jit(&f).lower(&arr(&[1.0, 2.0])).unwrap().to_string();
    assert!(
        text.contains(
            "custom_jvp_call[name: sin_with_rule_two, call_jaxpr: { lambda a:f32[2]. let"
        ),
        "{text}"
    );
    assert!(text.contains("b:f32[2] = sin a"), "{text}");
    // A call records its own operands: two captured arrays and the argument.
    let c = arr(&[3.0, 4.0]);
    let d = arr(&[5.0, 6.0]);
    let g = custom_jvp(
        |x: Array| np::add(np::multiply(&x, &c)?, &d),
        |x: Array, t: Array| -> Result<(Array, Array)> { Ok((x, t)) },
    );
    let h = jit(|x: Array| g.call(x));
    let graph = h.lower(&arr(&[1.0, 2.0])).unwrap();
    assert_eq!(graph.graph().num_eqns(), 1, "{graph}");
    assert_eq!(vals(&h.call(arr(&[1.0, 2.0])).unwrap()), [8.0, 14.0]);
    // top_k and a custom call in one differentiated function.
    let k = jit(grad(|x: Array| {
        np::sum(f(lax::top_k(&x, 2)?.0)?, None, false)
    }));
    close(
        &vals(&k.call(arr(&[1.0, 3.0, 2.0])).unwrap()),
        &[0.0, 2.0, 2.0],
        "top_k",
    );
}

/// `sinc` has JAX's derivatives of every order at 0 (its series term is a custom_jvp
/// function whose rule is the next term), values from JAX 0.10.2:
/// `jax.vmap(jax.grad(...jax.grad(jnp.sinc)))(jnp.array([0., 0.25, -1.5, 0., 3.]))`.
#[test]
fn sinc_derivatives_of_every_order_match_jax() {
    let want: [[f32; 5]; 4] = [
        [0.0, -0.772_837_9, -0.141_471_07, 0.0, -0.333_333_34],
        [
            -3.289_868_4,
            -2.703_059_7,
            1.905_767_1,
            -3.289_868_4,
            0.222_222_25,
        ],
        [0.0, 4.521_311_8, 3.811_534_2, 0.0, 3.067_646],
        [19.481_821, 15.357_767, -10.506_761, 19.481_821, -4.090_195],
    ];
    let x = arr(&[0.0, 0.25, -1.5, 0.0, 3.0]);
    let d1 = |x: Array| np::sinc(&x);
    let d2 = grad(d1);
    let d3 = grad(&d2);
    let d4 = grad(&d3);
    let d5 = grad(&d4);
    let got = [
        vmap(&d2, 0, 0)(x.clone()).unwrap(),
        vmap(&d3, 0, 0)(x.clone()).unwrap(),
        vmap(&d4, 0, 0)(x.clone()).unwrap(),
        vmap(&d5, 0, 0)(x.clone()).unwrap(),
    ];
    for (order, (g, w)) in got.iter().zip(&want).enumerate() {
        for (v, (a, b)) in vals(g).iter().zip(w).enumerate() {
            // At 0 each order is the series' term, a few float32 operations from JAX's.
            // Elsewhere the third and fourth derivatives of sin(πx)/(πx) cancel terms:
            // at 0.25 the exact fourth is 15.358637, JAX gives 15.357767 and Olympus
            // 15.358983, both rounding in float32, in different orders.
            let tol = if order >= 2 && v % 3 != 0 { 1e-4 } else { 4e-6 };
            assert!(
                (a - b).abs() <= tol * b.abs().max(1.0),
                "derivative {} at {}: got {a}, JAX {b}",
                order + 1,
                [0.0, 0.25, -1.5, 0.0, 3.0][v]
            );
        }
    }
    // And the values themselves are unchanged: 1 at 0.
    assert_eq!(vals(&np::sinc(arr(&[0.0])).unwrap()), [1.0]);
    let j = jit(grad(grad(|x: Array| np::sinc(&x))));
    let at0 = Array::from_slice(&[0.0f32], &[]).unwrap();
    close(
        &vals(&j.call(at0).unwrap()),
        &[-3.289_868_4],
        "jit(grad(grad))",
    );
}

/// `stop_gradient` is a constant to `grad`, `jvp` and `vmap`, and is listed as JAX lists it;
/// `logsumexp` stops the gradient at its shift as JAX does, so its gradient is the softmax
/// (JAX 0.10.2: `jax.grad(jax.scipy.special.logsumexp)(x)`).
#[test]
fn stop_gradient_and_logsumexp_gradients_match_jax() {
    let x = arr(&[1.0, -2.0, 3.0]);
    let f = |x: Array| np::sum(np::multiply(&x, lax::stop_gradient(&x)?)?, None, false);
    assert_eq!(vals(&grad(f)(x.clone()).unwrap()), [1.0, -2.0, 3.0]);
    assert_eq!(
        vals(&jit(grad(f)).call(x.clone()).unwrap()),
        [1.0, -2.0, 3.0]
    );
    assert_eq!(
        vals(&vmap(grad(f), 0, 0)(x.reshape(&[3, 1]).unwrap()).unwrap()),
        [1.0, -2.0, 3.0]
    );
    let (_, t) = jvp(|x: Array| lax::stop_gradient(&x), x.clone(), x.clone()).unwrap();
    assert_eq!(vals(&t), [0.0; 3]);
    let text = jit(|x: Array| np::multiply(&x, lax::stop_gradient(&x)?))
        .lower(&x)
        .unwrap()
        .to_string();
    assert!(text.contains("b:f32[3] = stop_gradient a"), "{text}");
    // Integers and concrete arrays pass through.
    let i = Array::from_slice(&[1i32, 2], &[2]).unwrap();
    assert_eq!(
        lax::stop_gradient(&i).unwrap().to_vec::<i32>().unwrap(),
        [1, 2]
    );
    let cases: [(&[f32], [u32; 4]); 4] = [
        (
            &[1.0, 2.0, 3.0, 3.0],
            [0x3d5d72d4, 0x3e167d6a, 0x3ecc8977, 0x3ecc8977],
        ),
        (
            &[f32::NEG_INFINITY, 0.0, 1.0],
            [0x0, 0x3e89b2b1, 0x3f3b26a8, 0],
        ),
        (&[1000.0, 1000.5, -3.0], [0x3ec14d03, 0x3f1f597f, 0x0, 0]),
        (&[0.1, 0.2], [0x3ef335ed, 0x3f066509, 0, 0]),
    ];
    for (x, want) in cases {
        let g = grad(|x: Array| np::logsumexp(&x, None, false))(arr(x)).unwrap();
        let got: Vec<u32> = vals(&g).iter().map(|v| v.to_bits()).collect();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            // Within one ulp of JAX's bits (the division may round in another order).
            assert!(
                g.abs_diff(*w) == 0,
                "grad logsumexp {x:?} [{k}]: {:e} vs JAX {:e}",
                f32::from_bits(*g),
                f32::from_bits(*w)
            );
        }
    }
}

/// A custom_vjp function that captures an array, under grad(vmap): the batched backward
/// rule hands each cotangent to its own operand (the captured array gets none).
#[test]
fn custom_vjp_capturing_an_array_under_grad_of_vmap() {
    let scale = arr(&[2.0, 3.0, 4.0]);
    let s2 = scale.clone();
    let f = custom_vjp(
        |x: Array| np::multiply(&x, &scale),
        move |x: Array| -> Result<(Array, Array)> { Ok((np::multiply(&x, &s2)?, x)) },
        // The rule's cotangent: g * 10 (not the function's g * scale), so the test sees it.
        |_x: Array, g: Array| np::multiply(&g, 10.0),
    )
    .named("scaled");
    let m = Array::from_slice(&[0.5f32, -1.0, 2.0, 1.5, 0.0, -0.25], &[2, 3]).unwrap();
    let loss = |m: Array| np::sum(vmap(|x: Array| f.call(x), 0, 0)(m)?, None, false);
    close(
        &vals(&grad(loss)(m.clone()).unwrap()),
        &[10.0; 6],
        "grad(vmap)",
    );
    let per = vmap(grad(|x: Array| np::sum(f.call(x)?, None, false)), 0, 0)(m).unwrap();
    close(&vals(&per), &[10.0; 6], "vmap(grad)");
}

/// `linearize` evaluates the function once: its map, called many times, gives `jvp`'s
/// tangents without running the function (or a custom rule's primal part) again, and a
/// `vjp` pullback called many times reuses its residuals the same way.
#[test]
fn linearize_and_vjp_reuse_their_residuals() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    // sin, whose rule counts how often its primal part runs.
    let f = custom_jvp(
        |x: Array| np::sin(&x),
        move |x: Array, t: Array| -> Result<(Array, Array)> {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok((np::sin(&x)?, np::multiply(&t, np::cos(&x)?)?))
        },
    )
    .named("counted_sin");
    let g = |x: Array| -> Result<Array> { np::multiply(&f.call(x.clone())?, np::exp(&x)?) };
    let xs = [0.5f32, -1.0, 2.0, 0.0];
    let x = arr(&xs);
    let (y, f_jvp) = olympus::linearize(g, x.clone()).unwrap();
    close(
        &vals(&y),
        &xs.map(|v| v.sin() * v.exp()),
        "linearize's output",
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    for (k, tv) in [[1.0f32, 0.0, -2.0, 3.0], [0.25, 4.0, 1.0, -1.0]]
        .iter()
        .enumerate()
    {
        let got = vals(&f_jvp.call(arr(tv)).unwrap());
        let (_, want) = jvp(g, x.clone(), arr(tv)).unwrap();
        close(&got, &vals(&want), &format!("tangent {k}"));
        let formula: Vec<f32> = xs
            .iter()
            .zip(tv)
            .map(|(v, t)| t * (v.cos() + v.sin()) * v.exp())
            .collect();
        close(&got, &formula, &format!("tangent {k} by the formula"));
    }
    // Only the jvp calls above ran the rule again, once each.
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    let (_, pullback) = vjp(g, x.clone()).unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    for c in [1.0f32, -3.0] {
        let ct = vals(&pullback.call(arr(&[c; 4])).unwrap());
        let want: Vec<f32> = xs
            .iter()
            .map(|v| c * (v.cos() + v.sin()) * v.exp())
            .collect();
        close(&ct, &want, "pullback");
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        4,
        "the pullback reran the rule"
    );
    // A tangent of the wrong shape is an error naming linearize.
    let err = f_jvp.call(arr(&[1.0; 3])).unwrap_err().to_string();
    assert!(
        err.starts_with("linearize") && err.contains("(3,)"),
        "{err}"
    );
    // Under jit, the same map is traced and compiled with the function.
    let jitted = jit(|(x, t): (Array, Array)| {
        let (_, f_jvp) = olympus::linearize(g, x)?;
        f_jvp.call(t)
    });
    let t = arr(&[1.0, 2.0, 3.0, 4.0]);
    let (_, want) = jvp(g, x.clone(), t.clone()).unwrap();
    close(
        &vals(&jitted.call((x.clone(), t)).unwrap()),
        &vals(&want),
        "jit(linearize)",
    );
    // A custom_vjp function has no forward mode, through linearize either (as in JAX);
    // its reverse mode is the transposed linearization.
    let h = custom_vjp(
        |x: Array| np::sin(&x),
        |x: Array| -> Result<(Array, Array)> { Ok((np::sin(&x)?, x)) },
        |x: Array, g: Array| np::multiply(np::cos(&x)?, &g),
    )
    .named("sin_vjp");
    let (_, h_jvp) = olympus::linearize(|x: Array| h.call(x), x.clone()).unwrap();
    let err = h_jvp.call(arr(&[1.0; 4])).unwrap_err().to_string();
    assert!(
        err.starts_with("sin_vjp") && err.contains("transposed"),
        "{err}"
    );
}

/// A rule may apply other custom or jitted functions to its tangents: in reverse mode the
/// tangents are traced for transposition, and those functions run inline on them (as JAX
/// inlines them into the linear graph), so grad, vjp and jit(grad) give the rule's answer.
#[test]
fn rules_may_call_custom_and_jitted_functions_on_tangents() {
    let double = custom_jvp(
        |x: Array| np::multiply(&x, 2.0),
        |x: Array, t: Array| -> Result<(Array, Array)> {
            Ok((np::multiply(&x, 2.0)?, np::multiply(&t, 2.0)?))
        },
    )
    .named("double");
    let triple = jit(|t: Array| np::multiply(&t, 3.0));
    // d/dx = 6 cos(x): the rule doubles and triples cos(x) t.
    let f = custom_jvp(
        |x: Array| np::sin(&x),
        move |x: Array, t: Array| -> Result<(Array, Array)> {
            let dt = triple.call(double.call(t)?)?;
            Ok((np::sin(&x)?, np::multiply(&dt, np::cos(&x)?)?))
        },
    )
    .named("sin_times_six");
    let xs = [0.5f32, -1.0, 2.0];
    let want: Vec<f32> = xs.iter().map(|v| 6.0 * v.cos()).collect();
    let loss = |x: Array| np::sum(f.call(x)?, None, false);
    close(&vals(&grad(loss)(arr(&xs)).unwrap()), &want, "grad");
    close(
        &vals(&jit(grad(loss)).call(arr(&xs)).unwrap()),
        &want,
        "jit(grad)",
    );
    let (_, t) = jvp(|x: Array| f.call(x), arr(&xs), arr(&[1.0; 3])).unwrap();
    close(&vals(&t), &want, "jvp");
    let (_, pullback) = vjp(|x: Array| f.call(x), arr(&xs)).unwrap();
    close(&vals(&pullback.call(arr(&[1.0; 3])).unwrap()), &want, "vjp");
}

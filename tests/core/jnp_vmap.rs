//! `vmap` of the jax.numpy-style functions of tests/data/jnp_cases.txt against a loop: for
//! every case with input arrays, a batch of examples per input ([`BATCHES`]: the case's own
//! input and variants of it, see [`Vary`]), mapped over an axis that varies from case to
//! case (first, last, negative), some inputs left unmapped, the batch put first or last in
//! the outputs, must give what calling the function on each example gives: bit for bit where
//! the function is exact, within the value test's tolerance otherwise ([`compare`]). Cases
//! marked `jit` also run as `jit(vmap(f))`. The same sweep runs `vmap` of `jvp` (primals and
//! tangents batched) and of `grad` for the cases with JAX derivatives (compared with the
//! gradient test's tolerance), and `vmap` of `vmap` (each input mapped by both, one or
//! neither), against loops over the examples.
//!
//! Cases that JAX could not jit (data-dependent output shapes: unique, nonzero without
//! `size`, ...) cannot be vmapped in JAX either: there an Olympus error is fine (counted and
//! printed), a panic is not.

use std::panic::{catch_unwind, AssertUnwindSafe};

use half::{bf16, f16};
use olympus::{grad, jit, jvp, vmap, Array, Axes, DType, Error, Result};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::jnp_cases::{
    call, case_line, compare, compare_derivatives, exact, grad_loss, grad_weights, parse_cases,
    read_back, report, with_inputs, Case, Fail, Words,
};

/// Examples per batch, by turns from case to case (a batch of one, and sizes that match no
/// dimension of most inputs, so that a batch axis taken for another gives a wrong shape).
const BATCHES: [usize; 4] = [3, 2, 5, 1];

/// How the variants of an input are made.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Vary {
    /// Shuffled, then a quarter of the elements replaced: floats by fresh random values,
    /// integers and bools by another element of the same row (indices stay in range).
    Free,
    /// As `Free`, then each row sorted ascending (searchsorted's array, interp's `xp`, bins).
    Sorted,
    /// Shuffled only (quantile levels, weights: the values stay valid).
    Shuffled,
    /// The case's own input in every example (still mapped).
    Same,
}

fn vary(c: &Case, input: &str) -> Vary {
    let has_sorter = c.inputs.iter().any(|(n, _)| n == "sorter");
    match (c.name.as_str(), input) {
        ("interp", "_1") if !c.params.has("period") => Vary::Sorted,
        ("searchsorted", "_0" | "sorter") if has_sorter => Vary::Same,
        ("searchsorted", "_0") => Vary::Sorted,
        ("digitize" | "histogram" | "histogram_bin_edges", "_1") => Vary::Sorted,
        ("quantile" | "percentile" | "nanquantile" | "nanpercentile", "_1") => Vary::Shuffled,
        (_, "weights" | "fweights" | "aweights") => Vary::Shuffled,
        _ => Vary::Free,
    }
}

/// A random finite value of a float dtype, as its word.
fn fresh(dtype: DType, r: &mut StdRng) -> u32 {
    let x: f64 = r.random_range(-4.0..4.0);
    match dtype {
        DType::Float32 => (x as f32).to_bits(),
        DType::Float16 => u32::from(f16::from_f64(x).to_bits()),
        DType::BFloat16 => u32::from(bf16::from_f64(x).to_bits()),
        d => panic!("no fresh values of {d:?}"),
    }
}

/// A variant of input `w` (see [`Vary`]).
fn variant(w: &Words, how: Vary, r: &mut StdRng) -> Words {
    let mut v = w.clone();
    let n = v.words.len();
    if n == 0 || how == Vary::Same {
        return v;
    }
    let float = v.dtype.is_floating();
    // Floats shuffle over the whole array, integers and bools within rows.
    let row = if float {
        n
    } else {
        v.shape.last().copied().unwrap_or(1).max(1)
    };
    for chunk in v.words.chunks_mut(row) {
        chunk.shuffle(r);
    }
    if how != Vary::Shuffled {
        for _ in 0..n.div_ceil(4) {
            let i = r.random_range(0..n);
            v.words[i] = if float {
                fresh(v.dtype, r)
            } else {
                w.words[i / row * row + r.random_range(0..row)]
            };
        }
    }
    if how == Vary::Sorted {
        let row = v.shape.last().copied().unwrap_or(1).max(1);
        let vals: Vec<f64> = (0..n).map(|k| v.value(k)).collect();
        let words = v.words.clone();
        for start in (0..n).step_by(row) {
            let mut idx: Vec<usize> = (start..start + row).collect();
            idx.sort_by(|&a, &b| vals[a].total_cmp(&vals[b]));
            for (k, &i) in idx.iter().enumerate() {
                v.words[start + k] = words[i];
            }
        }
    }
    v
}

/// The examples stacked along `axis` of the result.
fn stack_at(ex: &[Words], axis: usize) -> Words {
    let inner_shape = &ex[0].shape;
    let mut shape = inner_shape.clone();
    shape.insert(axis, ex.len());
    let outer: usize = inner_shape[..axis].iter().product();
    let inner: usize = inner_shape[axis..].iter().product();
    let mut words = Vec::with_capacity(outer * inner * ex.len());
    for o in 0..outer {
        for e in ex {
            words.extend_from_slice(&e.words[o * inner..(o + 1) * inner]);
        }
    }
    Words {
        dtype: ex[0].dtype,
        shape,
        words,
    }
}

/// Example `b` along `axis` of `w`.
fn take_at(w: &Words, axis: usize, b: usize) -> Words {
    let n = w.shape[axis];
    let outer: usize = w.shape[..axis].iter().product();
    let inner: usize = w.shape[axis + 1..].iter().product();
    let mut words = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        let at = (o * n + b) * inner;
        words.extend_from_slice(&w.words[at..at + inner]);
    }
    let mut shape = w.shape.clone();
    shape.remove(axis);
    Words {
        dtype: w.dtype,
        shape,
        words,
    }
}

/// The batch axis of an input of rank `nd` (the batched array has rank `nd + 1`), chosen by
/// `sel`: the first, the last, or one counted from the end.
fn pick_axis(nd: usize, sel: usize) -> isize {
    let nd = nd as isize;
    match sel % 5 {
        0 => 0,
        1 => -1,
        2 => nd,
        3 => -(nd + 1),
        _ => -nd.min(1) - 1,
    }
}

fn normalize(axis: isize, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as isize) as usize
    } else {
        axis as usize
    }
}

/// `call` as a function of the inputs, for the transformations.
fn traced(c: &Case, names: &[String], xs: Vec<Array>) -> Result<Vec<Array>> {
    call(&c.name, &c.params, names, &xs).map_err(|f| match f {
        Fail::Err(e) => e,
        Fail::Unsupported(why) => Error::InvalidArgument {
            func: c.name.clone(),
            reason: why,
        },
    })
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "?".to_string())
}

/// How a sweep's outputs compare.
#[derive(Clone, Copy)]
enum Tol {
    /// As the value test's: bit for bit where the flag says the function is exact, else
    /// within its ulps.
    Values(bool),
    /// As the gradient test's (`compare_derivatives`): derivatives sum terms that can cancel,
    /// in an order the batched graph may change.
    Derivatives,
}

/// The batched outputs (batch along `out_axis`) against the loop's, example by example
/// (see [`Tol`]): `None` when they agree, else why and the lines of the report.
fn check_batched(
    got: &[Words],
    out_axis: isize,
    want: &[Vec<Words>],
    examples: &[Vec<Words>],
    names: &[String],
    tol: Tol,
) -> Option<(String, Vec<String>)> {
    if got.len() != want[0].len() {
        return Some((
            format!("{} outputs, the loop has {}", got.len(), want[0].len()),
            vec![],
        ));
    }
    for (k, g) in got.iter().enumerate() {
        let w0 = &want[0][k];
        let ax = normalize(out_axis, g.shape.len());
        let mut expect = w0.shape.clone();
        expect.insert(ax.min(expect.len()), want.len());
        if g.dtype != w0.dtype || g.shape != expect {
            return Some((
                format!(
                    "output {k}: {} {:?}, the loop's stacked along {out_axis}: {} {:?}",
                    g.dtype.name(),
                    g.shape,
                    w0.dtype.name(),
                    expect
                ),
                vec![],
            ));
        }
    }
    for b in 0..want.len() {
        let mine: Vec<Words> = got
            .iter()
            .map(|g| take_at(g, normalize(out_axis, g.shape.len()), b))
            .collect();
        let differs = match tol {
            Tol::Values(ex) => compare(&mine, &want[b], ex),
            Tol::Derivatives => {
                let named: Vec<(String, Words)> = want[b]
                    .iter()
                    .enumerate()
                    .map(|(k, w)| (format!("output {k}"), w.clone()))
                    .collect();
                compare_derivatives("value", &mine, &named)
            }
        };
        if let Some(why) = differs {
            let mut lines: Vec<String> = names
                .iter()
                .zip(&examples[b])
                .map(|(n, w)| format!("example {b} in  {n} = {}", w.show()))
                .collect();
            lines.extend(mine.iter().map(|m| format!("vmap    {}", m.show())));
            lines.extend(want[b].iter().map(|w| format!("loop    {}", w.show())));
            return Some((format!("example {b}: {why}"), lines));
        }
    }
    None
}

/// What a sweep found.
#[derive(Default)]
struct Tally {
    failures: Vec<String>,
    value_dependent: Vec<String>,
    loop_errors: Vec<String>,
    ran: usize,
    jitted: usize,
    unmapped: usize,
    names: std::collections::BTreeSet<String>,
}

/// `f` of case `c` (`what`: how it wraps the case's function) on `inputs` (named, with how
/// their variants are made), under `vmap` (and `jit(vmap)` where the case is jitted) against
/// a loop of `f` over the examples, compared as `tol` says.
fn sweep(
    c: &Case,
    what: &str,
    inputs: &[(String, Words, Vary)],
    f: &dyn Fn(Vec<Array>) -> Result<Vec<Array>>,
    tol: Tol,
    t: &mut Tally,
) {
    let names: Vec<String> = inputs.iter().map(|(n, _, _)| n.clone()).collect();
    // The case's choices (mapped inputs, axes, batch size) and variants, drawn from a
    // generator seeded by its line.
    let mut r = StdRng::seed_from_u64(c.line as u64);
    // Which inputs are mapped: all (half the cases), all but one, or only one.
    let n_in = inputs.len();
    let (mode, pick): (usize, usize) = (r.random_range(0..4), r.random_range(0..n_in));
    let mapped: Vec<bool> = (0..n_in)
        .map(|k| match mode {
            _ if n_in == 1 => true,
            1 => k != pick,
            3 => k == pick,
            _ => true,
        })
        .collect();
    let in_axes: Vec<Option<isize>> = inputs
        .iter()
        .zip(&mapped)
        .map(|((_, w, _), &m)| {
            let sel = r.random_range(0..5);
            m.then(|| pick_axis(w.shape.len(), sel))
        })
        .collect();
    let out_axis: isize = if r.random() { 0 } else { -1 };
    let nb = BATCHES[r.random_range(0..BATCHES.len())];
    // Example 0 is the case's own input; the others vary the mapped inputs.
    let examples: Vec<Vec<Words>> = (0..nb)
        .map(|b| {
            inputs
                .iter()
                .zip(&mapped)
                .map(|((_, w, how), &m)| {
                    if b == 0 || !m {
                        w.clone()
                    } else {
                        variant(w, *how, &mut r)
                    }
                })
                .collect()
        })
        .collect();
    let batched: Vec<Array> = (0..n_in)
        .map(|k| match in_axes[k] {
            Some(a) => {
                let ex: Vec<Words> = examples.iter().map(|e| e[k].clone()).collect();
                stack_at(&ex, normalize(a, ex[0].shape.len() + 1)).array()
            }
            None => inputs[k].1.array(),
        })
        .collect();
    let spec = Axes::Tree(
        in_axes
            .iter()
            .map(|a| a.map_or(Axes::Unmapped, Axes::At))
            .collect(),
    );
    // The loop.
    let mut want = vec![];
    for (b, e) in examples.iter().enumerate() {
        let xs: Vec<Array> = e.iter().map(Words::array).collect();
        let why = match catch_unwind(AssertUnwindSafe(|| f(xs))) {
            Ok(Ok(outs)) => {
                want.push(read_back(&outs));
                continue;
            }
            Ok(Err(e)) => format!("example {b}: {e}"),
            Err(p) => format!("example {b} panicked: {}", panic_text(&*p)),
        };
        t.loop_errors
            .push(case_line(c, &format!("{what}: the loop failed: {why}")));
        return;
    }
    t.ran += 1;
    t.names.insert(c.name.clone());
    if mapped.iter().any(|m| !m) {
        t.unmapped += 1;
    }
    let axes_text = format!("in_axes {in_axes:?} out_axes {out_axis}");
    let mut runs: Vec<(String, Box<dyn Fn(Vec<Array>) -> Result<Vec<Array>> + '_>)> = vec![(
        format!("vmap({what})"),
        Box::new(vmap(f, spec.clone(), out_axis)),
    )];
    if c.jit {
        t.jitted += 1;
        let j = jit(vmap(f, spec.clone(), out_axis));
        runs.push((format!("jit(vmap({what}))"), Box::new(move |xs| j.call(xs))));
    }
    for (how, run) in &runs {
        match catch_unwind(AssertUnwindSafe(|| run(batched.clone()))) {
            Err(p) => t.failures.push(report(
                c,
                &format!("{how} panicked ({axes_text}): {}", panic_text(&*p)),
                [],
            )),
            Ok(Err(e)) if !c.jit => {
                t.value_dependent.push(case_line(c, &format!("{how}: {e}")));
                break;
            }
            Ok(Err(e)) => {
                t.failures
                    .push(report(c, &format!("{how} error ({axes_text}): {e}"), []))
            }
            Ok(Ok(outs)) => {
                let got = read_back(&outs);
                if let Some((why, lines)) =
                    check_batched(&got, out_axis, &want, &examples, &names, tol)
                {
                    t.failures
                        .push(report(c, &format!("{how} ({axes_text}): {why}"), lines));
                }
            }
        }
    }
}

/// Prints the tally of sweep `what` and fails on its failures.
fn conclude(what: &str, t: Tally, min_ran: usize) {
    eprintln!(
        "{} cases of {} functions ran under {what} ({} also under jit, {} with unmapped \
         inputs); {} value-dependent cases gave errors, {} loops failed:",
        t.ran,
        t.names.len(),
        t.jitted,
        t.unmapped,
        t.value_dependent.len(),
        t.loop_errors.len()
    );
    for s in &t.value_dependent {
        eprintln!("  value-dependent {s}");
    }
    for s in &t.loop_errors {
        eprintln!("  loop failed {s}");
    }
    assert!(t.ran >= min_ran, "{} cases ran", t.ran);
    assert!(
        t.failures.is_empty(),
        "{} of {} cases batch unlike a loop under {what}:\n{}",
        t.failures.len(),
        t.ran,
        t.failures.join("")
    );
}

#[test]
fn numpy_functions_batch_like_a_loop() {
    let mut t = Tally::default();
    let mut skipped = 0;
    for c in &parse_cases() {
        if c.inputs.is_empty() {
            continue;
        }
        let names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let own: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        if let Err(Fail::Unsupported(_)) = call(&c.name, &c.params, &names, &own) {
            skipped += 1;
            continue;
        }
        let inputs: Vec<(String, Words, Vary)> = c
            .inputs
            .iter()
            .map(|(n, w)| (n.clone(), w.clone(), vary(c, n)))
            .collect();
        let f = |xs: Vec<Array>| traced(c, &names, xs);
        let tol = Tol::Values(exact(&c.name, &c.params));
        sweep(c, "f", &inputs, &f, tol, &mut t);
    }
    eprintln!("{skipped} cases skipped (not in Olympus)");
    conclude("vmap", t, 500);
}

/// The case's float32 inputs (those its `jvp` line gives tangents for), by position.
fn float_inputs(c: &Case) -> Vec<usize> {
    let Some((tin, _)) = &c.tangents else {
        return vec![];
    };
    tin.iter()
        .map(|(n, _)| c.inputs.iter().position(|(m, _)| m == n).expect("input"))
        .collect()
}

#[test]
fn numpy_functions_batch_tangents_like_a_loop() {
    let mut t = Tally::default();
    for c in &parse_cases() {
        let Some((tin, _)) = &c.tangents else {
            continue;
        };
        let names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let own: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        if let Err(Fail::Unsupported(_)) = call(&c.name, &c.params, &names, &own) {
            continue;
        }
        let wrt = float_inputs(c);
        let mut inputs: Vec<(String, Words, Vary)> = wrt
            .iter()
            .map(|&k| {
                let (n, w) = &c.inputs[k];
                (n.clone(), w.clone(), vary(c, n))
            })
            .collect();
        inputs.extend(
            tin.iter()
                .map(|(n, w)| (format!("{n}'"), w.clone(), Vary::Free)),
        );
        let (own, names, wrt) = (&own, &names, &wrt);
        let f = |xs: Vec<Array>| -> Result<Vec<Array>> {
            let mut p = xs;
            let t = p.split_off(wrt.len());
            let (mut outs, touts) = jvp(
                |v: Vec<Array>| with_inputs(&c.name, &c.params, names, own, wrt, v),
                p,
                t,
            )?;
            outs.extend(touts);
            Ok(outs)
        };
        sweep(c, "jvp", &inputs, &f, Tol::Derivatives, &mut t);
    }
    conclude("vmap of jvp", t, 300);
}

#[test]
fn numpy_functions_batch_gradients_like_a_loop() {
    let mut t = Tally::default();
    for c in &parse_cases() {
        if c.grads.is_none() {
            continue;
        }
        let names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let own: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        if let Err(Fail::Unsupported(_)) = call(&c.name, &c.params, &names, &own) {
            continue;
        }
        let wrt: Vec<usize> = c
            .grads
            .iter()
            .flatten()
            .map(|(n, _)| names.iter().position(|m| m == n).expect("input"))
            .collect();
        let fouts: Vec<(usize, Array)> = c
            .want
            .iter()
            .enumerate()
            .filter(|(_, w)| w.dtype == DType::Float32)
            .map(|(k, w)| (k, grad_weights(&w.shape, k)))
            .collect();
        let inputs: Vec<(String, Words, Vary)> = wrt
            .iter()
            .map(|&k| {
                let (n, w) = &c.inputs[k];
                (n.clone(), w.clone(), vary(c, n))
            })
            .collect();
        let (own, names, wrt, fouts) = (&own, &names, &wrt, &fouts);
        let f = |xs: Vec<Array>| -> Result<Vec<Array>> {
            grad(|v: Vec<Array>| grad_loss(&c.name, &c.params, names, own, wrt, fouts, v))(xs)
        };
        sweep(c, "grad", &inputs, &f, Tol::Derivatives, &mut t);
    }
    conclude("vmap of grad", t, 300);
}

/// Case `c` under two nested `vmap`s (and `jit` of them where the case is jitted), each
/// input mapped by both, by one or by neither, against a loop over the grid of examples.
fn sweep_nested(c: &Case, names: &[String], t: &mut Tally) {
    let mut r = StdRng::seed_from_u64(c.line as u64 + 7919);
    let n_in = c.inputs.len();
    // (inner mapped, outer mapped) per input; each level maps at least one.
    let mut maps: Vec<(bool, bool)> = (0..n_in)
        .map(|_| (r.random_range(0..3) > 0, r.random_range(0..3) > 0))
        .collect();
    let (i0, o0) = (r.random_range(0..n_in), r.random_range(0..n_in));
    maps[i0].0 = true;
    maps[o0].1 = true;
    let (nb_out, nb_in) = (2, BATCHES[r.random_range(0..BATCHES.len())]);
    // The variant of each input at each grid point, by which levels map it.
    let mut grid: Vec<Vec<Vec<Words>>> = vec![vec![vec![]; nb_in]; nb_out];
    for (k, (_, w)) in c.inputs.iter().enumerate() {
        let how = vary(c, &c.inputs[k].0);
        let per: Vec<Vec<Words>> = (0..nb_out)
            .map(|i| {
                (0..nb_in)
                    .map(|j| {
                        if i + j == 0 {
                            w.clone()
                        } else {
                            variant(w, how, &mut r)
                        }
                    })
                    .collect()
            })
            .collect();
        for (i, row) in grid.iter_mut().enumerate() {
            for (j, point) in row.iter_mut().enumerate() {
                let (ii, jj) = match maps[k] {
                    (true, true) => (i, j),
                    (true, false) => (0, j),
                    (false, true) => (i, 0),
                    (false, false) => (0, 0),
                };
                point.push(per[ii][jj].clone());
            }
        }
    }
    let mut inner_spec = vec![];
    let mut outer_spec = vec![];
    let mut batched = vec![];
    for (k, (_, w)) in c.inputs.iter().enumerate() {
        let nd = w.shape.len();
        let (mi, mo) = maps[k];
        let ai = mi.then(|| pick_axis(nd, r.random_range(0..5)));
        let nd_mid = nd + usize::from(mi);
        let ao = mo.then(|| pick_axis(nd_mid, r.random_range(0..5)));
        let inner_of = |i: usize| -> Words {
            match ai {
                Some(a) => {
                    let ex: Vec<Words> = (0..nb_in).map(|j| grid[i][j][k].clone()).collect();
                    stack_at(&ex, normalize(a, nd + 1))
                }
                None => grid[i][0][k].clone(),
            }
        };
        let x = match ao {
            Some(a) => {
                let ex: Vec<Words> = (0..nb_out).map(inner_of).collect();
                stack_at(&ex, normalize(a, nd_mid + 1))
            }
            None => inner_of(0),
        };
        batched.push(x.array());
        inner_spec.push(ai.map_or(Axes::Unmapped, Axes::At));
        outer_spec.push(ao.map_or(Axes::Unmapped, Axes::At));
    }
    let examples: Vec<Vec<Words>> = grid.into_iter().flatten().collect();
    let mut want = vec![];
    for (b, e) in examples.iter().enumerate() {
        let xs: Vec<Array> = e.iter().map(Words::array).collect();
        match catch_unwind(AssertUnwindSafe(|| traced(c, names, xs))) {
            Ok(Ok(outs)) => want.push(read_back(&outs)),
            Ok(Err(e)) => {
                t.loop_errors
                    .push(case_line(c, &format!("the loop failed: example {b}: {e}")));
                return;
            }
            Err(p) => {
                t.loop_errors.push(case_line(
                    c,
                    &format!("the loop panicked: example {b}: {}", panic_text(&*p)),
                ));
                return;
            }
        }
    }
    t.ran += 1;
    t.names.insert(c.name.clone());
    if maps.iter().any(|&(i, o)| !(i && o)) {
        t.unmapped += 1;
    }
    let axes_text = format!("inner in_axes {inner_spec:?}, outer in_axes {outer_spec:?}");
    let f = |xs: Vec<Array>| traced(c, names, xs);
    let (inner, outer) = (Axes::Tree(inner_spec), Axes::Tree(outer_spec));
    let mut runs: Vec<(&str, Box<dyn Fn(Vec<Array>) -> Result<Vec<Array>> + '_>)> = vec![(
        "vmap(vmap)",
        Box::new(vmap(vmap(f, inner.clone(), 0), outer.clone(), 0)),
    )];
    if c.jit {
        t.jitted += 1;
        let j = jit(vmap(vmap(f, inner, 0), outer, 0));
        runs.push(("jit(vmap(vmap))", Box::new(move |xs| j.call(xs))));
    }
    let ex = Tol::Values(exact(&c.name, &c.params));
    for (how, run) in &runs {
        match catch_unwind(AssertUnwindSafe(|| run(batched.clone()))) {
            Err(p) => t.failures.push(report(
                c,
                &format!("{how} panicked ({axes_text}): {}", panic_text(&*p)),
                [],
            )),
            Ok(Err(e)) if !c.jit => {
                t.value_dependent.push(case_line(c, &format!("{how}: {e}")));
                break;
            }
            Ok(Err(e)) => {
                t.failures
                    .push(report(c, &format!("{how} error ({axes_text}): {e}"), []))
            }
            Ok(Ok(outs)) => {
                // The two leading batch axes merge into one of the grid's row-major order.
                let got: Vec<Words> = read_back(&outs)
                    .into_iter()
                    .map(|mut g| {
                        if g.shape.len() >= 2 && g.shape[0] == nb_out && g.shape[1] == nb_in {
                            let n = g.shape.remove(0);
                            g.shape[0] *= n;
                        }
                        g
                    })
                    .collect();
                if let Some((why, lines)) = check_batched(&got, 0, &want, &examples, names, ex) {
                    t.failures
                        .push(report(c, &format!("{how} ({axes_text}): {why}"), lines));
                }
            }
        }
    }
}

#[test]
fn numpy_functions_batch_twice_like_a_loop() {
    let mut t = Tally::default();
    for c in &parse_cases() {
        if c.inputs.is_empty() {
            continue;
        }
        let names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let own: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        if let Err(Fail::Unsupported(_)) = call(&c.name, &c.params, &names, &own) {
            continue;
        }
        sweep_nested(c, &names, &mut t);
    }
    conclude("vmap of vmap", t, 500);
}

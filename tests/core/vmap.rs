//! vmap: every batching-rule family against a loop over the examples (`f(x_i)` for each
//! `i`, stacked with `np::stack`), pytrees at the boundary, nesting and composition with
//! `jit` and `grad`, and the errors JAX gives.
//!
//! Exact operations (integers, bools, and float operations that do the same arithmetic per
//! element) must agree bit for bit; float reductions and matrix products may accumulate in
//! another order in the batched kernel and agree within 4 ulp or 1e-6 of the largest
//! expected magnitude.

use std::collections::BTreeMap;

use olympus::lax::{self, ScatterMode};
use olympus::{grad, jit, numpy as np, random, s, vmap, Array, Axes, DType, Error, Result};
use rand::rngs::StdRng;
use rand::Rng;

use crate::common::{random_array, rng};

type Outs = Result<Vec<Array>>;

#[derive(Clone, Copy, Debug)]
enum Tol {
    /// Bit-identical.
    Exact,
    /// Floats within 4 ulp or 1e-6 of the largest expected magnitude; other dtypes exact.
    Close,
}

fn rand_f32(r: &mut StdRng, shape: &[usize]) -> Array {
    random_array(r, shape, DType::Float32, false).0
}

/// Random int32 values in `lo..hi`.
fn rand_i32(r: &mut StdRng, shape: &[usize], lo: i32, hi: i32) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<i32> = (0..n).map(|_| r.random_range(lo..hi)).collect();
    Array::from_slice(&v, shape).unwrap()
}

fn i32s(v: &[i32], shape: &[usize]) -> Array {
    Array::from_slice(v, shape).unwrap()
}

fn f32s(v: &[f32], shape: &[usize]) -> Array {
    Array::from_slice(v, shape).unwrap()
}

/// Asserts `got` equals `want` in dtype, shape and values (see [`Tol`]).
fn assert_matches(what: &str, got: &Array, want: &Array, tol: Tol) {
    assert_eq!(got.dtype(), want.dtype(), "{what}: dtype");
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let g = got.to_f64_vec().unwrap();
    let w = want.to_f64_vec().unwrap();
    let scale = w
        .iter()
        .filter(|v| v.is_finite())
        .fold(0f64, |m, v| m.max(v.abs()));
    let close = matches!(tol, Tol::Close) && want.dtype().is_floating();
    for (k, (&a, &b)) in g.iter().zip(&w).enumerate() {
        let ok = if a.is_nan() || b.is_nan() {
            a.is_nan() && b.is_nan()
        } else if close {
            a == b
                || (a - b).abs() <= 4.0 * f64::from(f32::EPSILON) * b.abs()
                || (a - b).abs() <= 1e-6 * scale
        } else {
            a.to_bits() == b.to_bits()
        };
        assert!(ok, "{what}: element {k}: got {a}, want {b} ({tol:?})");
    }
}

fn assert_all(what: &str, got: &[Array], want: &[Array], tol: Tol) {
    assert_eq!(got.len(), want.len(), "{what}: number of outputs");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_matches(&format!("{what}: output {k}"), g, w, tol);
    }
}

/// Example `i` of `x` along `axis`.
fn example(x: &Array, axis: usize, i: usize) -> Array {
    np::take(x, i as i32, Some(axis as isize)).unwrap()
}

fn norm(axis: isize, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as isize) as usize
    } else {
        axis as usize
    }
}

/// The loop reference: `f` on each example (mapped arguments sliced along their axis,
/// unmapped ones passed whole), each output stacked along `out_axis`.
fn looped<F>(f: &F, args: &[Array], in_axes: &[Option<isize>], out_axis: isize) -> Vec<Array>
where
    F: Fn(Vec<Array>) -> Outs,
{
    let (a, ax) = args
        .iter()
        .zip(in_axes)
        .find_map(|(a, ax)| ax.map(|ax| (a, ax)))
        .expect("a mapped argument");
    let b = a.shape()[norm(ax, a.ndim())];
    let per: Vec<Vec<Array>> = (0..b)
        .map(|i| {
            let xs: Vec<Array> = args
                .iter()
                .zip(in_axes)
                .map(|(a, ax)| match ax {
                    Some(ax) => example(a, norm(*ax, a.ndim()), i),
                    None => a.clone(),
                })
                .collect();
            f(xs).unwrap()
        })
        .collect();
    (0..per[0].len())
        .map(|k| np::stack(per.iter().map(|o| &o[k]), out_axis).unwrap())
        .collect()
}

fn spec(in_axes: &[Option<isize>]) -> Axes {
    Axes::Tree(
        in_axes
            .iter()
            .map(|a| a.map_or(Axes::Unmapped, Axes::At))
            .collect(),
    )
}

/// `vmap(f, in_axes, out_axis)(args)` equals the loop reference.
fn check_out<F>(
    what: &str,
    f: &F,
    args: Vec<Array>,
    in_axes: &[Option<isize>],
    out_axis: isize,
    tol: Tol,
) where
    F: Fn(Vec<Array>) -> Outs,
{
    let want = looped(f, &args, in_axes, out_axis);
    let got = match vmap(f, spec(in_axes), out_axis)(args) {
        Ok(v) => v,
        Err(e) => panic!("{what}: vmap failed: {e}"),
    };
    assert_all(what, &got, &want, tol);
}

fn check<F>(what: &str, f: &F, args: Vec<Array>, in_axes: &[Option<isize>], tol: Tol)
where
    F: Fn(Vec<Array>) -> Outs,
{
    check_out(what, f, args, in_axes, 0, tol)
}

#[test]
fn elementwise_mapped_unmapped_other_axes_and_0d_examples() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        Ok(vec![
            np::add(np::multiply(&v[0], &v[1])?, np::sin(&v[0])?)?,
            np::greater(&v[0], &v[1])?,
            np::multiply(&v[1], 2)?, // a weak scalar
        ])
    };
    let (x, y) = (rand_f32(&mut r, &[3, 4]), rand_f32(&mut r, &[3, 4]));
    let y1 = rand_f32(&mut r, &[4]);
    check(
        "both mapped",
        &f,
        vec![x.clone(), y],
        &[Some(0), Some(0)],
        Tol::Exact,
    );
    check(
        "rhs unmapped",
        &f,
        vec![x.clone(), y1.clone()],
        &[Some(0), None],
        Tol::Exact,
    );
    check(
        "lhs unmapped",
        &f,
        vec![y1, x.clone()],
        &[None, Some(0)],
        Tol::Exact,
    );
    // Mapped over axis 1 and -1 (the same axis of a matrix), batch put at axis 1.
    let (xt, yt) = (rand_f32(&mut r, &[4, 3]), rand_f32(&mut r, &[4, 3]));
    check_out(
        "in_axes 1 and -1, out_axes 1",
        &f,
        vec![xt.clone(), yt.clone()],
        &[Some(1), Some(-1)],
        1,
        Tol::Exact,
    );
    check_out(
        "in_axes 1 and 0, out_axes -1",
        &f,
        vec![xt, x],
        &[Some(1), Some(0)],
        -1,
        Tol::Exact,
    );
    // Each example is a 0-d value.
    let (a, b) = (rand_f32(&mut r, &[5]), rand_f32(&mut r, &[5]));
    check(
        "0-d examples",
        &f,
        vec![a.clone(), b],
        &[Some(0), Some(0)],
        Tol::Exact,
    );
    check(
        "0-d examples, unmapped 0-d",
        &f,
        vec![a, np::asarray(1.5f32).unwrap()],
        &[Some(0), None],
        Tol::Exact,
    );
    // Integers and bools.
    let g = |v: Vec<Array>| -> Outs {
        Ok(vec![
            np::bitwise_xor(&v[0], &v[1])?,
            np::floor_divide(&v[0], np::add(np::abs(&v[1])?, 1)?)?,
            np::logical_and(np::greater(&v[0], 0)?, np::less(&v[1], 3)?)?,
            np::astype(&v[0], DType::Float32)?,
            np::astype(&v[0], DType::Float16)?,
            np::multiply(np::astype(&v[1], DType::Float16)?, 0.5)?,
        ])
    };
    let (i, j) = (
        rand_i32(&mut r, &[3, 2, 4], -50, 50),
        rand_i32(&mut r, &[2, 4], -50, 50),
    );
    check(
        "int32",
        &g,
        vec![i.clone(), j],
        &[Some(0), None],
        Tol::Exact,
    );
    let j3 = rand_i32(&mut r, &[4, 3, 2], -50, 50);
    check(
        "int32 axis 2",
        &g,
        vec![i, j3],
        &[Some(2), Some(0)],
        Tol::Exact,
    );
}

#[test]
fn reductions_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let (x, k) = (&v[0], &v[1]);
        Ok(vec![
            np::sum(x, Some(&[0]), false)?,
            np::sum(x, None, false)?,
            np::max(x, Some(&[1]), false)?,
            np::argmax(x, None, false)?,
            np::argmax(x, Some(0), false)?,
            np::mean(x, None, true)?,
            np::mean(x, Some(&[-1]), false)?,
            np::min(k, Some(&[-1]), false)?,
            np::sum(k, None, false)?,
            np::argmin(k, Some(1), true)?,
            np::all(np::greater(x, -6.0)?, Some(&[0]), false)?,
            np::any(np::greater(k, 90)?, None, false)?,
            np::logsumexp(x, Some(&[1]), false)?,
            np::var(x, None, 0, false)?,
        ])
    };
    let x = rand_f32(&mut r, &[3, 4, 5]);
    let k = rand_i32(&mut r, &[3, 4, 5], -100, 100);
    check(
        "axis 0",
        &f,
        vec![x.clone(), k.clone()],
        &[Some(0), Some(0)],
        Tol::Close,
    );
    let xt = rand_f32(&mut r, &[4, 5, 3]);
    check(
        "x over axis 2, k unmapped",
        &f,
        vec![xt, example(&k, 0, 1)],
        &[Some(2), None],
        Tol::Close,
    );
    // Exact reductions (max, argmax, ints) must be bit-identical.
    let exact = |v: Vec<Array>| -> Outs {
        Ok(vec![
            np::max(&v[0], Some(&[1]), false)?,
            np::argmax(&v[0], None, false)?,
            np::argmin(&v[0], Some(0), false)?,
            np::sum(&v[1], Some(&[0, 1]), false)?,
        ])
    };
    check(
        "exact reductions",
        &exact,
        vec![x, k],
        &[Some(0), Some(0)],
        Tol::Exact,
    );
}

#[test]
fn shape_operations_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let x = &v[0];
        Ok(vec![
            np::reshape(x, &[-1])?,
            np::reshape(x, &[5, 2, 2])?,
            np::ravel(np::transpose(x, None)?)?,
            np::transpose(x, None)?,
            np::transpose(x, Some(&[1, 0]))?,
            np::flip(x, None)?,
            np::flip(x, Some(&[1]))?,
            np::moveaxis(np::expand_dims(x, &[0])?, &[0], &[-1])?,
            np::swapaxes(x, 0, 1)?,
            np::squeeze(np::expand_dims(x, &[1])?, None)?,
            np::broadcast_to(x, &[2, 4, 5])?,
            np::roll(x, &[2], Some(&[1]))?,
            np::roll(x, &[-3], None)?,
            np::tile(x, &[2, 1])?,
            np::repeat(x, 2, Some(0))?,
            np::tril(x, 0)?,
            np::triu(x, 1)?,
            np::diagonal(x, 1, 0, 1)?,
            np::atleast_3d(x)?,
        ])
    };
    let x = rand_f32(&mut r, &[3, 4, 5]);
    check("axis 0", &f, vec![x], &[Some(0)], Tol::Exact);
    let xm = rand_f32(&mut r, &[4, 3, 5]);
    check("axis 1", &f, vec![xm], &[Some(1)], Tol::Exact);
    let k = rand_i32(&mut r, &[4, 5, 2], -9, 9);
    check("int32 over axis -1", &f, vec![k], &[Some(-1)], Tol::Exact);
}

#[test]
fn slicing_with_steps_matches_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let x = &v[0];
        let mut out = vec![
            x.slice(s![1..;2, ..;-1])?,
            x.slice(s![.., 3])?,
            x.slice(s![-1])?,
            x.slice(s![np::NewAxis, 1..3, ..])?,
            // `4..0;-2` (clippy rejects the reversed range literal).
            x.slice(s![..;-2, np::SliceElem::Range { start: Some(4), end: Some(0), step: -2 }])?,
            x.slice(s![2, 1..;3])?,
        ];
        out.extend(np::split(x, 2, 0)?);
        out.extend(np::array_split(x, 3, 1)?);
        Ok(out)
    };
    let x = rand_f32(&mut r, &[3, 4, 5]);
    check("axis 0", &f, vec![x], &[Some(0)], Tol::Exact);
    let xt = rand_i32(&mut r, &[4, 5, 3], -100, 100);
    check("int32 over axis 2", &f, vec![xt], &[Some(2)], Tol::Exact);
}

#[test]
fn joins_of_mapped_and_unmapped_inputs_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let (x, y, z) = (&v[0], &v[1], &v[2]);
        Ok(vec![
            np::concatenate([x, y], 0)?,
            np::concatenate([y, x, y], 0)?,
            np::concatenate([x, z], -1)?,
            np::concatenate([z, x], 1)?,
            np::stack([x, &y.slice(s![..2])?], 1)?,
            np::stack([x, x], -1)?,
            np::hstack([x, z])?,
            np::vstack([y, x])?,
            np::dstack([x, x])?,
        ])
    };
    let x = rand_f32(&mut r, &[3, 2, 3]);
    let (y, z) = (rand_f32(&mut r, &[4, 3]), rand_f32(&mut r, &[2, 1]));
    check(
        "x mapped",
        &f,
        vec![x.clone(), y.clone(), z.clone()],
        &[Some(0), None, None],
        Tol::Exact,
    );
    let ys = rand_f32(&mut r, &[3, 4, 3]);
    check(
        "x and y mapped",
        &f,
        vec![x, ys, z],
        &[Some(0), Some(0), None],
        Tol::Exact,
    );
}

#[test]
fn pad_constant_and_edge_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        Ok(vec![
            np::pad(&v[0], &[(1, 2)], np::PadMode::Constant(9.0))?,
            np::pad(&v[0], &[(0, 1), (2, 0)], np::PadMode::Edge)?,
            np::pad(&v[0], &[(2, 2)], np::PadMode::Edge)?,
            np::pad(&v[1], &[(1, 1), (0, 3)], np::PadMode::Constant(-4.0))?,
        ])
    };
    let x = rand_f32(&mut r, &[3, 2, 3]);
    let k = rand_i32(&mut r, &[2, 3, 3], -9, 9);
    check(
        "both mapped",
        &f,
        vec![x.clone(), k.clone()],
        &[Some(0), Some(2)],
        Tol::Exact,
    );
    check(
        "int unmapped",
        &f,
        vec![x, example(&k, 2, 0)],
        &[Some(0), None],
        Tol::Exact,
    );
}

#[test]
fn take_and_take_along_axis_with_mapped_and_unmapped_indices() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let (x, idx, along, i0) = (&v[0], &v[1], &v[2], &v[3]);
        Ok(vec![
            np::take(x, idx, Some(0))?,
            np::take(x, idx, Some(1))?,
            np::take(x, idx, Some(-1))?,
            np::take(x, idx, None)?,
            np::take(x, i0, Some(1))?,
            np::take_along_axis(x, np::argsort(x, Some(1))?, 1)?,
            np::take_along_axis(x, along, 0)?,
            x.at(idx).get()?,
        ])
    };
    // Indices in -4..4 are valid for every axis of a [4, 5] example (negative from the end).
    let x = rand_f32(&mut r, &[3, 4, 5]);
    let idx = rand_i32(&mut r, &[3, 2, 3], -4, 4);
    let along = rand_i32(&mut r, &[3, 2, 5], 0, 4);
    let i0 = rand_i32(&mut r, &[3], -5, 5);
    let all = [Some(0), Some(0), Some(0), Some(0)];
    check(
        "everything mapped",
        &f,
        vec![x.clone(), idx.clone(), along.clone(), i0.clone()],
        &all,
        Tol::Exact,
    );
    let (idx1, along1, i01) = (
        example(&idx, 0, 1),
        example(&along, 0, 2),
        example(&i0, 0, 0),
    );
    check(
        "indices unmapped",
        &f,
        vec![x.clone(), idx1, along1, i01],
        &[Some(0), None, None, None],
        Tol::Exact,
    );
    let x1 = example(&x, 0, 1);
    check(
        "array unmapped, indices mapped",
        &f,
        vec![x1, idx, along, i0],
        &[None, Some(0), Some(0), Some(0)],
        Tol::Exact,
    );
}

#[test]
fn sort_and_argsort_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let (x, k) = (&v[0], &v[1]);
        Ok(vec![
            np::sort(x, Some(0))?,
            np::sort(x, Some(-1))?,
            np::sort(x, None)?,
            np::argsort(x, Some(0))?,
            np::argsort(x, Some(1))?,
            np::median(x, None, false)?,
            np::median(x, Some(&[0]), false)?,
            // Few distinct values: ties, so stability shows.
            np::sort(k, Some(1))?,
            np::argsort(k, Some(1))?,
            np::argsort(k, None)?,
        ])
    };
    let x = rand_f32(&mut r, &[3, 4, 5]);
    let k = rand_i32(&mut r, &[3, 4, 5], 0, 3);
    check(
        "axis 0",
        &f,
        vec![x, k.clone()],
        &[Some(0), Some(0)],
        Tol::Exact,
    );
    let xt = rand_f32(&mut r, &[4, 5, 3]);
    check(
        "x over axis 2, k unmapped",
        &f,
        vec![xt, example(&k, 0, 0)],
        &[Some(2), None],
        Tol::Exact,
    );
}

#[test]
fn matmul_with_either_or_both_operands_mapped() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs { Ok(vec![np::matmul(&v[0], &v[1])?]) };
    let a = rand_f32(&mut r, &[3, 3, 4]);
    let w = rand_f32(&mut r, &[4, 2]);
    let ws = rand_f32(&mut r, &[3, 4, 2]);
    check(
        "lhs mapped",
        &f,
        vec![a.clone(), w.clone()],
        &[Some(0), None],
        Tol::Close,
    );
    check(
        "rhs mapped",
        &f,
        vec![example(&a, 0, 0), ws.clone()],
        &[None, Some(0)],
        Tol::Close,
    );
    check(
        "both mapped",
        &f,
        vec![a.clone(), ws.clone()],
        &[Some(0), Some(0)],
        Tol::Close,
    );
    check(
        "both mapped, rhs over axis 2",
        &f,
        vec![a.clone(), np::moveaxis(&ws, &[0], &[2]).unwrap()],
        &[Some(0), Some(2)],
        Tol::Close,
    );
    // Per-example batched 3-d products.
    let a3 = rand_f32(&mut r, &[3, 2, 3, 4]);
    let b3 = rand_f32(&mut r, &[3, 2, 4, 5]);
    check(
        "batched 3-d, both mapped",
        &f,
        vec![a3.clone(), b3.clone()],
        &[Some(0), Some(0)],
        Tol::Close,
    );
    check(
        "batched 3-d, lhs mapped",
        &f,
        vec![a3.clone(), example(&b3, 0, 1)],
        &[Some(0), None],
        Tol::Close,
    );
    check(
        "batched 3-d, rhs mapped",
        &f,
        vec![example(&a3, 0, 2), b3.clone()],
        &[None, Some(0)],
        Tol::Close,
    );
    check(
        "batched 3-d broadcast against 2-d",
        &f,
        vec![b3.clone(), rand_f32(&mut r, &[5, 2])],
        &[Some(0), None],
        Tol::Close,
    );
    // Vectors, and the other products built on the same primitive.
    let g = |v: Vec<Array>| -> Outs {
        let (m, x) = (&v[0], &v[1]);
        Ok(vec![
            np::matmul(m, x)?,
            np::matmul(x, np::transpose(m, None)?)?,
            np::dot(m, x)?,
            np::inner(x, x)?,
            np::outer(x, x)?,
            np::vdot(x, x)?,
            np::einsum("ij,j->i", [m, x])?,
            np::tensordot(m, m, &[1], &[1])?,
        ])
    };
    let m = rand_f32(&mut r, &[3, 4]);
    let xs = rand_f32(&mut r, &[3, 4]);
    check(
        "matrix-vector, vector mapped",
        &g,
        vec![m.clone(), xs.clone()],
        &[None, Some(0)],
        Tol::Close,
    );
    check(
        "matrix-vector, matrix mapped",
        &g,
        vec![rand_f32(&mut r, &[2, 3, 4]), example(&xs, 0, 0)],
        &[Some(0), None],
        Tol::Close,
    );
    // int32 products are exact.
    let ia = rand_i32(&mut r, &[3, 2, 3], -20, 20);
    let ib = rand_i32(&mut r, &[3, 3, 4], -20, 20);
    check("int32", &f, vec![ia, ib], &[Some(0), Some(0)], Tol::Exact);
}

#[test]
fn where_clip_and_cumulative_sums_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let (c, x, y) = (&v[0], &v[1], &v[2]);
        Ok(vec![
            np::r#where(c, x, y)?,
            np::r#where(c, x, 0.0)?,
            np::r#where(np::greater(x, y)?, 1, -1)?,
            np::clip(x, y, 2.0)?,
            np::cumsum(x, Some(0))?,
            np::cumsum(x, Some(1))?,
            np::cumsum(c, None)?,
            np::cumprod(np::divide(y, 4.0)?, Some(-1))?,
        ])
    };
    let c = random_array(&mut r, &[3, 4, 5], DType::Bool, false).0;
    let (x, y) = (rand_f32(&mut r, &[3, 4, 5]), rand_f32(&mut r, &[4, 5]));
    check(
        "y unmapped",
        &f,
        vec![c.clone(), x.clone(), y],
        &[Some(0), Some(0), None],
        Tol::Exact,
    );
    let ys = rand_f32(&mut r, &[4, 5, 3]);
    check(
        "c unmapped, y over axis 2",
        &f,
        vec![example(&c, 0, 0), x, ys],
        &[None, Some(0), Some(2)],
        Tol::Exact,
    );
    let ints = |v: Vec<Array>| -> Outs {
        Ok(vec![np::cumsum(&v[0], None)?, np::cumprod(&v[0], Some(0))?])
    };
    check(
        "int32 cumsum",
        &ints,
        vec![rand_i32(&mut r, &[3, 4, 2], -5, 5)],
        &[Some(0)],
        Tol::Exact,
    );
}

#[test]
fn functional_updates_match_a_loop() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        let (x, idx, vals, k) = (&v[0], &v[1], &v[2], &v[3]);
        Ok(vec![
            // Positions from an array, negative from the end.
            x.at(idx).set(vals)?,
            x.at(idx).max(vals)?,
            x.at(idx).min(0.0)?,
            x.at(s![1..;2])
                .set(np::reshape(vals, &[-1])?.slice(s![..2])?)?,
            x.at(s![2]).multiply(vals.slice(s![0])?)?,
            // Repeated host positions accumulate (int32, so the sum is exact).
            k.at([0, 2, 0, -1]).add(np::arange(4)?)?,
            k.at([1, 1]).multiply(3)?,
        ])
    };
    // Each example's positions are distinct after wrapping (set of a repeat is order-bound).
    let x = rand_f32(&mut r, &[3, 5]);
    let idx = i32s(&[-1, 0, 2, 1, -2, 4, 3, -5, 2], &[3, 3]);
    let vals = rand_f32(&mut r, &[3, 3]);
    let k = rand_i32(&mut r, &[3, 5], -9, 9);
    let all = [Some(0), Some(0), Some(0), Some(0)];
    check(
        "everything mapped",
        &f,
        vec![x.clone(), idx.clone(), vals.clone(), k.clone()],
        &all,
        Tol::Exact,
    );
    let mixed = [None, Some(0), Some(0), None];
    check(
        "base unmapped",
        &f,
        vec![
            example(&x, 0, 0),
            idx.clone(),
            vals.clone(),
            example(&k, 0, 1),
        ],
        &mixed,
        Tol::Exact,
    );
    let mixed = [Some(0), None, Some(1), Some(0)];
    check(
        "positions unmapped, values over axis 1",
        &f,
        vec![
            x,
            example(&idx, 0, 1),
            np::transpose(&vals, None).unwrap(),
            k,
        ],
        &mixed,
        Tol::Exact,
    );
}

#[test]
fn scatter_drops_out_of_range_positions_per_example() {
    // `lax::scatter` drops positions outside one example: under vmap a position past the
    // end must not land in the next example's block, nor a negative one in the previous.
    let f = |v: Vec<Array>| -> Outs {
        Ok(vec![
            lax::scatter(&v[0], &v[1], &v[2], ScatterMode::Add)?,
            lax::scatter(&v[0], &v[1], &v[2], ScatterMode::Set)?,
        ])
    };
    let x = i32s(&(0..12).collect::<Vec<_>>(), &[3, 4]);
    let pos = i32s(&[4, -1, 1, 7, 0, 3, 5, 2, -4], &[3, 3]);
    let vals = i32s(&[100, 200, 300, 400, 500, 600, 700, 800, 900], &[3, 3]);
    // The loop reference itself follows the documented rule.
    let one = f(vec![
        example(&x, 0, 0),
        example(&pos, 0, 0),
        example(&vals, 0, 0),
    ])
    .unwrap();
    assert_eq!(one[0].to_vec::<i32>().unwrap(), [0, 301, 2, 3]);
    let all = [Some(0), Some(0), Some(0)];
    check(
        "everything mapped",
        &f,
        vec![x.clone(), pos.clone(), vals.clone()],
        &all,
        Tol::Exact,
    );
    check(
        "positions unmapped",
        &f,
        vec![x.clone(), example(&pos, 0, 2), vals],
        &[Some(0), None, Some(0)],
        Tol::Exact,
    );
    let ones = i32s(&[1, 1, 1], &[3]);
    check(
        "values unmapped",
        &f,
        vec![x.clone(), pos.clone(), ones.clone()],
        &[Some(0), Some(0), None],
        Tol::Exact,
    );
    let got = vmap(&f, (0, 0, Axes::Unmapped), 0)(vec![x, pos, ones]).unwrap();
    assert_eq!(
        got[0].to_vec::<i32>().unwrap(),
        [0, 2, 2, 3, 5, 5, 6, 8, 8, 9, 11, 11]
    );
}

#[test]
fn random_samplers_with_mapped_keys_match_a_loop() {
    let keys = random::split(&random::key(7).unwrap(), 3).unwrap();
    let f = |v: Vec<Array>| -> Outs {
        let (k, logits) = (&v[0], &v[1]);
        Ok(vec![
            random::split(k, 3)?,
            random::fold_in(k, 5)?,
            random::bits(k, &[4])?,
            random::uniform(k, &[2, 3], -1.0, 2.0, DType::Float32)?,
            random::normal(k, &[4], DType::Float32)?,
            random::randint(k, &[5], -3, 9, DType::Int32)?,
            random::bernoulli(k, 0.3, &[6])?,
            random::exponential(k, &[3], DType::Float32)?,
            random::permutation(k, 6)?,
            random::categorical(k, logits, -1)?,
            random::truncated_normal(k, -1.0, 2.0, &[3], DType::Float32)?,
        ])
    };
    let logits = f32s(&[0.1, 2.0, -1.0, 0.5], &[4]);
    check(
        "keys mapped",
        &f,
        vec![keys.clone(), logits.clone()],
        &[Some(0), None],
        Tol::Exact,
    );
    let many = f32s(
        &[
            0.1, 2.0, -1.0, 0.5, 3.0, 0.0, 0.0, 0.0, -2.0, -2.0, 1.0, 1.0,
        ],
        &[3, 4],
    );
    check(
        "keys and logits mapped",
        &f,
        vec![keys.clone(), many],
        &[Some(0), Some(0)],
        Tol::Exact,
    );
    // Keys over axis 1 (a [2, n] key batch), and split keys of split keys.
    check(
        "keys over axis 1",
        &f,
        vec![np::transpose(&keys, None).unwrap(), logits],
        &[Some(1), None],
        Tol::Exact,
    );
    let split = vmap(|k: Array| random::split(&k, 2), 0, 0);
    let twice = split(random::split(&keys, 2).unwrap()).unwrap();
    let want = np::stack(
        (0..3)
            .map(|i| random::split(&random::split(&example(&keys, 0, i), 2).unwrap(), 2).unwrap())
            .collect::<Vec<_>>(),
        0,
    )
    .unwrap();
    assert_eq!(twice.shape(), [3, 2, 2, 2]);
    assert_matches("split under vmap", &twice, &want, Tol::Exact);
}

struct Layer {
    w: Array,
    b: Array,
    act: String,
}
olympus::register_pytree!(Layer { w, b, #[static] act });

#[test]
fn a_registered_struct_with_a_static_field_and_a_per_field_prefix() {
    let mut r = rng();
    let forward = |(l, x): (Layer, Array)| -> Result<Layer> {
        let h = np::add(np::matmul(&x, &l.w)?, &l.b)?;
        let h = match l.act.as_str() {
            "relu" => np::maximum(&h, 0.0)?,
            _ => np::tanh(&h)?,
        };
        Ok(Layer {
            w: h,
            b: l.b,
            act: format!("{}!", l.act),
        })
    };
    // w mapped over its axis 1, b shared, x over axis 0; the output's b is not batched.
    let w = rand_f32(&mut r, &[4, 3, 2]);
    let b = rand_f32(&mut r, &[2]);
    let x = rand_f32(&mut r, &[3, 4]);
    for act in ["relu", "tanh"] {
        let layer = Layer {
            w: w.clone(),
            b: b.clone(),
            act: act.into(),
        };
        let batched = vmap(forward, ((1, Axes::Unmapped), 0), (0, Axes::Unmapped));
        let got = batched((layer, x.clone())).unwrap();
        assert_eq!(
            got.act,
            format!("{act}!"),
            "the static field passes through"
        );
        assert_matches("unmapped field stays unbatched", &got.b, &b, Tol::Exact);
        let want: Vec<Array> = (0..3)
            .map(|i| {
                let l = Layer {
                    w: example(&w, 1, i),
                    b: b.clone(),
                    act: act.into(),
                };
                forward((l, example(&x, 0, i))).unwrap().w
            })
            .collect();
        let want = np::stack(&want, 0).unwrap();
        assert_matches(
            &format!("{act}: per-example outputs"),
            &got.w,
            &want,
            Tol::Close,
        );
        // With out_axes 0 for the whole result, the unbatched field is broadcast.
        let layer = Layer {
            w: w.clone(),
            b: b.clone(),
            act: act.into(),
        };
        let got = vmap(forward, ((1, Axes::Unmapped), 0), 0)((layer, x.clone())).unwrap();
        let tiled = np::stack([&b, &b, &b], 0).unwrap();
        assert_matches("broadcast field", &got.b, &tiled, Tol::Exact);
    }
}

#[test]
fn tuple_outputs_with_different_out_axes_and_broadcast_outputs() {
    let mut r = rng();
    let f = |(x, y): (Array, Array)| -> Result<(Array, Array, Array, Array)> {
        Ok((
            np::multiply(&x, 2.0)?,          // [4, 3] per example
            np::sum(&x, Some(&[0]), false)?, // [3]
            np::multiply(&y, 3.0)?,          // depends only on the unmapped y
            np::ones(&[2], DType::Int32)?,   // depends on nothing
        ))
    };
    let x = rand_f32(&mut r, &[2, 4, 3]);
    let y = rand_f32(&mut r, &[5]);
    let per: Vec<_> = (0..2)
        .map(|i| f((example(&x, 0, i), y.clone())).unwrap())
        .collect();
    let stack = |k: usize, axis: isize| -> Array {
        let xs: Vec<&Array> = per
            .iter()
            .map(|o| match k {
                0 => &o.0,
                1 => &o.1,
                2 => &o.2,
                _ => &o.3,
            })
            .collect();
        np::stack(xs, axis).unwrap()
    };
    let got = vmap(f, (0, Axes::Unmapped), (1, -1, 0, 1))((x.clone(), y.clone())).unwrap();
    assert_matches("out_axes 1", &got.0, &stack(0, 1), Tol::Exact);
    assert_matches("out_axes -1", &got.1, &stack(1, -1), Tol::Close);
    assert_matches(
        "unmapped-dependent output broadcast",
        &got.2,
        &stack(2, 0),
        Tol::Exact,
    );
    assert_matches(
        "constant output broadcast at axis 1",
        &got.3,
        &stack(3, 1),
        Tol::Exact,
    );
    // Unmapped outputs stay as one example's value.
    let un = Axes::Unmapped;
    let got = vmap(f, (0, Axes::Unmapped), (2, 0, un.clone(), un))((x, y)).unwrap();
    assert_matches("out_axes 2", &got.0, &stack(0, 2), Tol::Exact);
    assert_matches("unbatched output", &got.2, &per[0].2, Tol::Exact);
    assert_matches("unbatched constant", &got.3, &per[0].3, Tol::Exact);
}

#[test]
fn vec_option_and_map_inputs() {
    let mut r = rng();
    let f = |v: Vec<Array>| -> Outs {
        Ok(vec![np::add(
            np::multiply(&v[0], &v[1])?,
            np::sum(&v[2], None, false)?,
        )?])
    };
    let a = rand_f32(&mut r, &[3, 4]);
    let b = rand_f32(&mut r, &[4]);
    let c = rand_f32(&mut r, &[2, 3]);
    check(
        "Vec with per-item axes",
        &f,
        vec![a.clone(), b.clone(), c.clone()],
        &[Some(0), None, Some(1)],
        Tol::Close,
    );
    // The same spec as a Vec<Axes>.
    let spec: Axes = vec![Axes::At(0), Axes::Unmapped, Axes::At(-1)].into();
    let got = vmap(f, spec, 0)(vec![a.clone(), b.clone(), c.clone()]).unwrap();
    let want = looped(
        &f,
        &[a.clone(), b.clone(), c.clone()],
        &[Some(0), None, Some(1)],
        0,
    );
    assert_all("Vec<Axes> spec", &got, &want, Tol::Close);

    // Option: `Some` is a node with one child.
    let g = |(x, o): (Array, Option<Array>)| -> Result<Array> {
        match o {
            Some(o) => np::subtract(&x, &o),
            None => Ok(x),
        }
    };
    let got =
        vmap(g, (0, Axes::Tree(vec![Axes::Unmapped])), 0)((a.clone(), Some(b.clone()))).unwrap();
    assert_matches("Option", &got, &np::subtract(&a, &b).unwrap(), Tol::Exact);
    let got = vmap(g, 0, 0)((a.clone(), None)).unwrap();
    assert_matches("None", &got, &a, Tol::Exact);

    // Maps: entries in key order.
    let h = |m: BTreeMap<String, Array>| -> Result<BTreeMap<String, Array>> {
        let mut out = BTreeMap::new();
        out.insert("prod".to_string(), np::multiply(&m["x"], &m["y"])?);
        out.insert("x".to_string(), m["x"].clone());
        Ok(out)
    };
    let m = BTreeMap::from([("x".to_string(), a.clone()), ("y".to_string(), b.clone())]);
    let got = vmap(h, (0, Axes::Unmapped), (1, 0))(m).unwrap();
    assert_matches(
        "map prod",
        &got["prod"],
        &np::transpose(np::multiply(&a, &b).unwrap(), None).unwrap(),
        Tol::Exact,
    );
    assert_matches("map x", &got["x"], &a, Tol::Exact);
}

/// A product with one operand mapped folds the batch into that operand's free dimension,
/// as JAX's `dot_general` rule does: the nested `vmap` of a dot product (a Gram matrix,
/// as in JAX's kernel least-squares example) is one `[1, n, k] x [1, k, n]` product, not
/// `n * n` products of a row and a column.
#[test]
fn nested_vmap_of_a_dot_product_is_one_matrix_product() {
    let mut r = rng();
    let xs = rand_f32(&mut r, &[37, 5]);
    let kernel = |(x, y): (Array, Array)| np::dot(&x, &y);
    let row = vmap(kernel, (Axes::Unmapped, 0), 0);
    let gram = vmap(
        move |(x, y): (Array, Array)| row((x, y)),
        (0, Axes::Unmapped),
        0,
    );
    let want = np::matmul(&xs, np::transpose(&xs, None).unwrap()).unwrap();
    let eager = gram((xs.clone(), xs.clone())).unwrap();
    assert_matches("eager gram", &eager, &want, Tol::Close);
    let jitted = jit(move |x: Array| gram((x.clone(), x)));
    assert_matches(
        "jitted gram",
        &jitted.call(xs.clone()).unwrap(),
        &want,
        Tol::Close,
    );
    let text = jitted.lower(&xs).unwrap().to_string();
    assert_eq!(text.matches("batch_matmul").count(), 1, "{text}");
    assert!(text.contains("f32[1,37,37] = batch_matmul"), "{text}");
}

#[test]
fn nested_vmap_equals_a_double_loop() {
    let mut r = rng();
    let f = |x: Array| -> Result<(Array, Array, Array)> {
        Ok((
            np::sum(np::multiply(&x, &x)?, None, false)?,
            np::cumsum(&x, None)?,
            np::sort(&x, None)?,
        ))
    };
    let x = rand_f32(&mut r, &[2, 3, 4]);
    let both = vmap(vmap(f, 0, 0), 0, 0);
    let got = both(x.clone()).unwrap();
    let inner = |i: usize, ax: usize, xs: &Array| -> Vec<(Array, Array, Array)> {
        let xi = example(xs, 0, i);
        (0..3).map(|j| f(example(&xi, ax, j)).unwrap()).collect()
    };
    let double = |xs: &Array, ax: usize| -> (Array, Array, Array) {
        let rows: Vec<_> = (0..2).map(|i| inner(i, ax, xs)).collect();
        let st = |k: usize| -> Array {
            let outer: Vec<Array> = rows
                .iter()
                .map(|row| {
                    let v: Vec<&Array> = row
                        .iter()
                        .map(|o| match k {
                            0 => &o.0,
                            1 => &o.1,
                            _ => &o.2,
                        })
                        .collect();
                    np::stack(v, 0).unwrap()
                })
                .collect();
            np::stack(&outer, 0).unwrap()
        };
        (st(0), st(1), st(2))
    };
    let want = double(&x, 0);
    assert_matches("sum", &got.0, &want.0, Tol::Close);
    assert_matches("cumsum", &got.1, &want.1, Tol::Exact);
    assert_matches("sort", &got.2, &want.2, Tol::Exact);
    // The inner vmap over axis 1 of each outer example.
    let xt = np::swapaxes(&x, 1, 2).unwrap();
    let got = vmap(vmap(f, 1, 0), 0, 0)(xt.clone()).unwrap();
    let want = double(&xt, 1);
    assert_matches("inner axis 1: sum", &got.0, &want.0, Tol::Close);
    assert_matches("inner axis 1: cumsum", &got.1, &want.1, Tol::Exact);
    assert_matches("inner axis 1: sort", &got.2, &want.2, Tol::Exact);
}

#[test]
fn jit_of_vmap_traces_once_and_equals_eager_vmap() {
    let mut r = rng();
    let f = |(x, m): (Array, Array)| -> Result<Array> {
        let h = np::tanh(np::matmul(&m, &x)?)?;
        np::add(np::cumsum(&h, None)?, np::max(&h, None, false)?)
    };
    let m = rand_f32(&mut r, &[3, 4]);
    let eager = vmap(f, (0, Axes::Unmapped), 0);
    let compiled = jit(vmap(f, (0, Axes::Unmapped), 0));
    for _ in 0..2 {
        let x = rand_f32(&mut r, &[5, 4]);
        let want = eager((x.clone(), m.clone())).unwrap();
        let got = compiled.call((x, m.clone())).unwrap();
        // Fusion may change the last bit of tanh and friends.
        assert_matches("jit(vmap)", &got, &want, Tol::Close);
    }
    assert_eq!(compiled.trace_count(), 1, "new values reuse the trace");
    // vmap of a jitted function: the inner jit is traced under vmap.
    let g = jit(f);
    let inner = vmap(|a: (Array, Array)| g.call(a), (0, Axes::Unmapped), 0);
    let x = rand_f32(&mut r, &[5, 4]);
    let want = eager((x.clone(), m.clone())).unwrap();
    let got = inner((x, m)).unwrap();
    assert_matches("vmap(jit)", &got, &want, Tol::Close);
}

#[test]
fn per_example_gradients_equal_a_loop_of_grad() {
    let mut r = rng();
    let loss = |(x, w): (Array, Array)| -> Result<Array> {
        let pred = np::tanh(np::matmul(&x, &w)?)?;
        np::sum(np::square(np::subtract(&pred, 0.5)?)?, None, false)
    };
    let xs = rand_f32(&mut r, &[4, 3]);
    let w = np::multiply(rand_f32(&mut r, &[3, 2]), 0.1).unwrap();
    let per_example = vmap(grad(loss), (0, Axes::Unmapped), 0);
    let (gx, gw) = per_example((xs.clone(), w.clone())).unwrap();
    let g = grad(loss);
    let each: Vec<(Array, Array)> = (0..4)
        .map(|i| g((example(&xs, 0, i), w.clone())).unwrap())
        .collect();
    let want_x = np::stack(each.iter().map(|e| &e.0), 0).unwrap();
    let want_w = np::stack(each.iter().map(|e| &e.1), 0).unwrap();
    assert_eq!(
        gw.shape(),
        [4, 3, 2],
        "the shared weight gets one gradient per example"
    );
    assert_matches("d/dx", &gx, &want_x, Tol::Close);
    assert_matches("d/dw", &gw, &want_w, Tol::Close);
    // grad of a vmapped loss is the sum of the per-example gradients.
    let total = |w: Array| -> Result<Array> {
        let per = vmap(|x: Array| loss((x, w.clone())), 0, 0)(xs.clone())?;
        np::sum(per, None, false)
    };
    let gsum = grad(total)(w.clone()).unwrap();
    assert_matches(
        "grad(sum(vmap))",
        &gsum,
        &np::sum(&want_w, Some(&[0]), false).unwrap(),
        Tol::Close,
    );
}

fn err_text<T>(r: Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

fn pair_sum((x, y): (Array, Array)) -> Result<Array> {
    np::add(&x, &y)
}

#[test]
fn inconsistent_batch_sizes_name_both_key_paths() {
    let (a, b) = (
        np::zeros(&[3, 4], DType::Float32).unwrap(),
        np::zeros(&[5, 4], DType::Float32).unwrap(),
    );
    let msg = err_text(vmap(pair_sum, 0, 0)((a.clone(), b.clone())));
    assert!(
        msg.contains("inconsistent") && msg.contains("[0]") && msg.contains("[1]"),
        "{msg}"
    );
    assert!(msg.contains('3') && msg.contains('5'), "{msg}");
    // In a struct: the field names appear.
    let layer = Layer {
        w: a,
        b: np::zeros(&[4, 2], DType::Float32).unwrap(),
        act: "relu".into(),
    };
    let f = |l: Layer| -> Result<Array> { np::add(&l.w, 1.0) };
    let msg = err_text(vmap(f, (0, 1), 0)(layer));
    assert!(msg.contains(".w") && msg.contains(".b"), "{msg}");
}

#[test]
fn nothing_mapped_is_an_error() {
    let (a, b) = (
        np::ones(&[3], DType::Float32).unwrap(),
        np::ones(&[3], DType::Float32).unwrap(),
    );
    let msg = err_text(vmap(pair_sum, Axes::Unmapped, 0)((a.clone(), b.clone())));
    assert!(msg.contains("at least one mapped"), "{msg}");
    let msg = err_text(vmap(pair_sum, (Axes::Unmapped, Axes::Unmapped), 0)((a, b)));
    assert!(msg.contains("at least one mapped"), "{msg}");
    let msg = err_text(vmap(|v: Vec<Array>| -> Outs { Ok(v) }, 0, 0)(Vec::new()));
    assert!(msg.contains("at least one mapped"), "{msg}");
}

#[test]
fn axes_out_of_range_are_errors() {
    let (a, b) = (
        np::ones(&[3, 4], DType::Float32).unwrap(),
        np::ones(&[3, 4], DType::Float32).unwrap(),
    );
    for ax in [2, -3] {
        let msg = err_text(vmap(pair_sum, (0, ax), 0)((a.clone(), b.clone())));
        assert!(
            msg.contains("out of range") && msg.contains("[1]") && msg.contains("rank 2"),
            "{ax}: {msg}"
        );
    }
    let msg = err_text(vmap(|x: Array| np::add(&x, 1.0), 0, 0)(
        np::asarray(1.0f32).unwrap(),
    ));
    assert!(
        msg.contains("out of range") && msg.contains("rank 0"),
        "{msg}"
    );
    // out_axes count the batch axis: an example output of rank 1 has out_axes in -2..2.
    let msg = err_text(vmap(pair_sum, 0, 2)((a.clone(), b.clone())));
    assert!(
        msg.contains("out_axes") && msg.contains("out of range"),
        "{msg}"
    );
    let msg = err_text(vmap(pair_sum, 0, -3)((a.clone(), b.clone())));
    assert!(msg.contains("out of range"), "{msg}");
    let ok = vmap(pair_sum, 0, -2)((a, b)).unwrap();
    assert_eq!(ok.shape(), [3, 4]);
}

#[test]
fn unmapped_out_axes_for_a_batched_output_is_an_error() {
    let (a, b) = (
        np::ones(&[3, 2], DType::Float32).unwrap(),
        np::ones(&[2], DType::Float32).unwrap(),
    );
    let f = |(x, y): (Array, Array)| -> Result<(Array, Array)> {
        Ok((np::add(&x, &y)?, np::negative(&y)?))
    };
    let msg = err_text(vmap(f, (0, Axes::Unmapped), Axes::Unmapped)((
        a.clone(),
        b.clone(),
    )));
    assert!(
        msg.contains("depends on the mapped") && msg.contains("[0]"),
        "{msg}"
    );
    let msg = err_text(vmap(f, (0, 0), (0, Axes::Unmapped))((
        a.clone(),
        np::ones(&[3, 2], DType::Float32).unwrap(),
    )));
    assert!(
        msg.contains("depends on the mapped") && msg.contains("[1]"),
        "{msg}"
    );
    // The same spec is fine when that output does not depend on a mapped input.
    let (_, y) = vmap(f, (0, Axes::Unmapped), (0, Axes::Unmapped))((a, b.clone())).unwrap();
    assert_matches(
        "unmapped output",
        &y,
        &np::negative(&b).unwrap(),
        Tol::Exact,
    );
}

#[test]
fn specs_that_are_not_prefixes_are_errors() {
    let (a, b) = (
        np::ones(&[3], DType::Float32).unwrap(),
        np::ones(&[3], DType::Float32).unwrap(),
    );
    let msg = err_text(vmap(pair_sum, (0, 0, 0), 0)((a.clone(), b.clone())));
    assert!(
        msg.contains("in_axes") && msg.contains("not a prefix"),
        "{msg}"
    );
    let msg = err_text(vmap(pair_sum, ((0, 0), 0), 0)((a.clone(), b.clone())));
    assert!(
        msg.contains("in_axes") && msg.contains("not a prefix"),
        "{msg}"
    );
    let msg = err_text(vmap(pair_sum, 0, (0, 0))((a.clone(), b.clone())));
    assert!(
        msg.contains("out_axes") && msg.contains("not a prefix"),
        "{msg}"
    );
    // The function's own errors come through unchanged.
    let bad = |(x, y): (Array, Array)| -> Result<Array> { np::matmul(&x, &y) };
    let e = vmap(bad, 0, 0)((
        np::ones(&[2, 3, 4], DType::Float32).unwrap(),
        np::ones(&[2, 3, 4], DType::Float32).unwrap(),
    ))
    .unwrap_err();
    assert!(
        matches!(e, Error::ShapeMismatch { .. }) && e.to_string().contains("matmul"),
        "{e}"
    );
}

#[test]
fn identity_captured_constants_and_small_batches() {
    let mut r = rng();
    // Inputs returned as they are: only the batch axis moves.
    let x = rand_f32(&mut r, &[2, 3, 4]);
    let id = vmap(|x: Array| -> Result<Array> { Ok(x) }, 1, -1)(x.clone()).unwrap();
    assert_matches(
        "identity",
        &id,
        &np::moveaxis(&x, &[1], &[-1]).unwrap(),
        Tol::Exact,
    );
    let y = rand_f32(&mut r, &[4]);
    let pass = |(x, y): (Array, Array)| -> Result<(Array, Array)> { Ok((x, y)) };
    let (px, py) = vmap(pass, (2, Axes::Unmapped), 0)((x.clone(), y.clone())).unwrap();
    assert_matches(
        "mapped input passed through",
        &px,
        &np::moveaxis(&x, &[2], &[0]).unwrap(),
        Tol::Exact,
    );
    assert_matches(
        "unmapped input broadcast",
        &py,
        &np::stack([&y, &y, &y, &y], 0).unwrap(),
        Tol::Exact,
    );
    // Captured arrays are constants of the trace: unbatched, broadcast where returned.
    let c = rand_f32(&mut r, &[3]);
    let f = |v: Vec<Array>| -> Outs {
        Ok(vec![np::add(&v[0], &c)?, c.clone(), np::multiply(&c, 2.0)?])
    };
    check(
        "captured constant",
        &f,
        vec![rand_f32(&mut r, &[5, 3])],
        &[Some(0)],
        Tol::Exact,
    );
    // A batch of one.
    let g = |v: Vec<Array>| -> Outs {
        Ok(vec![
            np::matmul(&v[0], &v[1])?,
            np::sum(&v[0], Some(&[1]), false)?,
            np::sort(&v[1], Some(0))?,
        ])
    };
    check(
        "batch of one",
        &g,
        vec![rand_f32(&mut r, &[1, 2, 3]), rand_f32(&mut r, &[3, 1, 2])],
        &[Some(0), Some(1)],
        Tol::Close,
    );
    // An empty batch (JAX maps over size-0 axes): outputs have a size-0 batch axis.
    let out = vmap(&g, 0, 0)(vec![
        np::zeros(&[0, 2, 3], DType::Float32).unwrap(),
        np::zeros(&[0, 3, 2], DType::Float32).unwrap(),
    ])
    .unwrap();
    let shapes: Vec<&[usize]> = out.iter().map(|a| a.shape()).collect();
    assert_eq!(shapes, [&[0, 2, 2][..], &[0, 2], &[0, 3, 2]]);
}

#[test]
fn an_inner_vmap_closing_over_an_outer_batched_value() {
    let mut r = rng();
    // The inner function captures `y`, a value of the outer vmap's trace: per outer
    // example it is a constant of the inner trace.
    let outer = |(xs, y): (Array, Array)| -> Result<Array> {
        let row = |x: Array| -> Result<Array> {
            np::add(np::multiply(&x, &y)?, np::sum(&y, None, false)?)
        };
        vmap(row, 0, 1)(xs)
    };
    let xs = rand_f32(&mut r, &[3, 2, 4]);
    let ys = rand_f32(&mut r, &[3, 4]);
    let got = vmap(outer, 0, 0)((xs.clone(), ys.clone())).unwrap();
    let want: Vec<Array> = (0..3)
        .map(|i| {
            let (x, y) = (example(&xs, 0, i), example(&ys, 0, i));
            let rows: Vec<Array> = (0..2)
                .map(|j| {
                    let xj = example(&x, 0, j);
                    np::add(np::multiply(&xj, &y)?, np::sum(&y, None, false)?)
                })
                .collect::<Result<_>>()
                .unwrap();
            np::stack(&rows, 1).unwrap()
        })
        .collect();
    assert_matches(
        "nested with a captured batched value",
        &got,
        &np::stack(&want, 0).unwrap(),
        Tol::Close,
    );
}

//! einsum's contraction orders against JAX's (`tests/data/einsum_paths.txt`, made by
//! `tests/data/gen_einsum_paths.py` with JAX 0.10.2: greedy, optimal, auto and
//! unoptimized paths with opt_einsum's cost figures), the results along those orders
//! against a host loop, ellipses, size-1 broadcasting and bad input.

use crate::common::*;
use olympus::numpy::{self as np, EinsumOptimize};
use olympus::{Array, DType};
use rand::Rng;

struct Case {
    line: String,
    subscripts: String,
    shapes: Vec<Vec<usize>>,
    optimize: EinsumOptimize,
    path: Vec<Vec<usize>>,
    figures: [u128; 5],
    complete: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../data/einsum_paths.txt");
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split(" | ").collect();
            let list = |s: &str| -> Vec<Vec<usize>> {
                s.split(';')
                    .map(|p| {
                        p.split(',')
                            .filter(|x| !x.is_empty())
                            .map(|x| x.parse().unwrap())
                            .collect()
                    })
                    .collect()
            };
            Case {
                line: line.to_string(),
                subscripts: f[0].to_string(),
                shapes: list(f[1]),
                optimize: match f[2] {
                    "greedy" => EinsumOptimize::Greedy,
                    "optimal" => EinsumOptimize::Optimal,
                    "auto" => EinsumOptimize::Auto,
                    "false" => EinsumOptimize::Unoptimized,
                    o => panic!("optimizer {o}"),
                },
                path: list(f[3]),
                figures: [5, 6, 7, 8, 9].map(|i| f[i - 1].parse().unwrap()),
                complete: f[9].to_string(),
            }
        })
        .collect()
}

#[test]
fn paths_match_jax() {
    let cases = cases();
    assert_eq!(cases.len(), 290);
    let mut wrong = Vec::new();
    for c in &cases {
        let xs: Vec<Array> = c
            .shapes
            .iter()
            .map(|s| np::zeros(s, DType::Float32).unwrap())
            .collect();
        let p = np::einsum_path(&c.subscripts, &xs, c.optimize.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", c.line));
        let figures = [
            p.naive_flops,
            p.optimized_flops,
            p.largest_intermediate,
            p.naive_scaling as u128,
            p.optimized_scaling as u128,
        ];
        if p.path != c.path || figures != c.figures {
            wrong.push(format!("{}\n  got {:?} {figures:?}", c.line, p.path));
        }
        assert_eq!(p.subscripts, c.complete, "{}", c.line);
        assert_eq!(p.steps.len(), p.path.len());
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// `spec` (letters only, explicit output) by a loop over every label: size-1 axes
/// broadcast.
fn host_einsum(spec: &str, vals: &[Vec<f64>], shapes: &[Vec<usize>]) -> (Vec<usize>, Vec<f64>) {
    let (lhs, out) = spec.split_once("->").unwrap();
    let terms: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    let mut labels: Vec<char> = terms.iter().flatten().copied().collect();
    labels.sort_unstable();
    labels.dedup();
    let size = |c: char| -> usize {
        terms
            .iter()
            .zip(shapes)
            .flat_map(|(t, s)| t.iter().zip(s).filter(|(d, _)| **d == c).map(|(_, &n)| n))
            .max()
            .unwrap()
    };
    let sizes: Vec<usize> = labels.iter().map(|&c| size(c)).collect();
    let out: Vec<usize> = out
        .chars()
        .map(|c| labels.iter().position(|&d| d == c).unwrap())
        .collect();
    let oshape: Vec<usize> = out.iter().map(|&i| sizes[i]).collect();
    let mut res = vec![0.0; oshape.iter().product()];
    let total: usize = sizes.iter().product();
    let mut at = vec![0usize; labels.len()];
    for _ in 0..total {
        let mut prod = 1.0;
        for ((t, s), v) in terms.iter().zip(shapes).zip(vals) {
            let mut flat = 0;
            for (c, &n) in t.iter().zip(s) {
                let i = at[labels.iter().position(|d| d == c).unwrap()];
                flat = flat * n + if n == 1 { 0 } else { i };
            }
            prod *= v[flat];
        }
        let o = out.iter().fold(0, |a, &i| a * sizes[i] + at[i]);
        res[o] += prod;
        for k in (0..at.len()).rev() {
            at[k] += 1;
            if at[k] < sizes[k] {
                break;
            }
            at[k] = 0;
        }
    }
    (oshape, res)
}

/// Every network of the table small enough for the host loop, along JAX's default order,
/// the unoptimized one and the table's own path: values in {-1, 0, 1}, so float32 is exact.
#[test]
fn results_along_every_order_match_a_host_loop() {
    let mut r = rng();
    let mut done = 0;
    for c in cases() {
        let loop_size: usize = {
            let p = np::einsum_path(
                &c.subscripts,
                c.shapes
                    .iter()
                    .map(|s| np::zeros(s, DType::Float32).unwrap()),
                EinsumOptimize::Unoptimized,
            )
            .unwrap();
            p.naive_flops as usize
        };
        if loop_size > 200_000 || c.optimize == EinsumOptimize::Optimal {
            continue;
        }
        let vals: Vec<Vec<f64>> = c
            .shapes
            .iter()
            .map(|s| {
                (0..s.iter().product())
                    .map(|_| f64::from(r.random_range(-1i32..=1)))
                    .collect()
            })
            .collect();
        let xs: Vec<Array> = vals
            .iter()
            .zip(&c.shapes)
            .map(|(v, s)| make(v, s, DType::Float32))
            .collect();
        let (shape, want) = host_einsum(&c.complete, &vals, &c.shapes);
        for (how, opt) in [
            ("as given", c.optimize.clone()),
            (
                "along the table's path",
                EinsumOptimize::Path(c.path.clone()),
            ),
        ] {
            let got = np::einsum_with(&c.subscripts, &xs, opt)
                .unwrap_or_else(|e| panic!("{} {how}: {e}", c.line));
            assert_eq!(got.shape(), shape.as_slice(), "{} {how}", c.line);
            assert_close(
                &format!("{} {how}", c.line),
                &got,
                &want,
                DType::Float32,
                EXACT,
            );
        }
        done += 1;
    }
    assert!(done > 100, "only {done} networks evaluated");
}

#[test]
fn ellipses_broadcasting_and_implicit_outputs() {
    let mut r = rng();
    let f = DType::Float32;
    let mut arr = |shape: &[usize]| -> (Vec<f64>, Array) {
        let v: Vec<f64> = (0..shape.iter().product())
            .map(|_| f64::from(r.random_range(-4i32..=4)))
            .collect();
        let a = make(&v, shape, f);
        (v, a)
    };
    // (subscripts, shapes, JAX's output shape, the complete contraction opt_einsum makes).
    let cases: [(&str, Vec<Vec<usize>>, Vec<usize>, &str); 8] = [
        (
            "...ij,...jk->...ik",
            vec![vec![5, 1, 2, 3], vec![4, 3, 6]],
            vec![5, 4, 2, 6],
            "cdij,djk->cdik",
        ),
        ("...ij->ij", vec![vec![5, 2, 3]], vec![2, 3], "cij->ij"),
        ("ij...->", vec![vec![2, 3, 4]], vec![], "ijc->"),
        (
            "i...,i...",
            vec![vec![2, 3], vec![2, 1]],
            vec![3],
            "ib,ib->b",
        ),
        (
            "ij,jk->ik",
            vec![vec![2, 1], vec![3, 4]],
            vec![2, 4],
            "ij,jk->ik",
        ),
        ("ii->i", vec![vec![1, 3]], vec![3], "ii->i"),
        ("...,...", vec![vec![], vec![3]], vec![3], ",a->a"),
        (
            "b...i,i...->...b",
            vec![vec![2, 4, 3], vec![3, 4]],
            vec![4, 2],
            "bdi,id->db",
        ),
    ];
    for (spec, shapes, out, complete) in cases {
        let (vals, xs): (Vec<Vec<f64>>, Vec<Array>) = shapes.iter().map(|s| arr(s)).unzip();
        let got = np::einsum(spec, &xs).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(got.shape(), out.as_slice(), "{spec}");
        let p = np::einsum_path(spec, &xs, EinsumOptimize::Auto).unwrap();
        assert_eq!(p.subscripts, complete, "{spec}");
        let (_, want) = host_einsum(complete, &vals, &shapes);
        assert_close(spec, &got, &want, f, EXACT);
    }
    // Integer and bool operands keep JAX's dtypes.
    let a = np::reshape(np::arange(6).unwrap(), &[2, 3]).unwrap();
    let three = np::einsum("ij,jk,kl->il", [&a, &np::transpose(&a, None).unwrap(), &a]).unwrap();
    assert_eq!(three.dtype(), DType::Int32);
    assert_eq!(
        three.to_vec::<i32>().unwrap(),
        np::matmul(
            np::matmul(&a, np::transpose(&a, None).unwrap()).unwrap(),
            &a
        )
        .unwrap()
        .to_vec::<i32>()
        .unwrap()
    );
}

#[test]
fn the_report_reads_as_jax_prints_it() {
    let x = np::ones(&[2, 3], DType::Float32).unwrap();
    let y = np::ones(&[3, 100], DType::Float32).unwrap();
    let z = np::ones(&[100, 5], DType::Float32).unwrap();
    let p = np::einsum_path("ij,jk,kl", [&x, &y, &z], EinsumOptimize::Optimal).unwrap();
    let text = p.to_string();
    for line in [
        "  Complete contraction:  ij,jk,kl->il",
        "         Naive scaling:  4",
        "     Optimized scaling:  3",
        "      Naive FLOP count:  9.000e+3",
        "  Optimized FLOP count:  3.060e+3",
        "   Theoretical speedup:  2.941e+0",
        "  Largest intermediate:  1.500e+1 elements",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    assert_eq!(p.steps[0].subscripts, "kl,jk->lj");
    assert_eq!(p.steps[0].remaining, "ij,lj->il");
    assert_eq!(p.steps[1].subscripts, "lj,ij->il");
    assert_eq!(p.steps[1].remaining, "il->il");
}

#[test]
fn bad_subscripts_and_paths_are_errors_naming_the_function() {
    let a = np::ones(&[2, 3], DType::Float32).unwrap();
    let b = np::ones(&[4, 5], DType::Float32).unwrap();
    let cases: Vec<(&str, Vec<&Array>, EinsumOptimize)> = vec![
        ("ij,jk", vec![&a], EinsumOptimize::Auto),
        ("ij,jk", vec![&a, &b], EinsumOptimize::Auto),
        ("ij->q", vec![&a], EinsumOptimize::Auto),
        ("ij->ii", vec![&a], EinsumOptimize::Auto),
        ("i.j", vec![&a], EinsumOptimize::Auto),
        ("...i...", vec![&a], EinsumOptimize::Auto),
        ("ijk", vec![&a], EinsumOptimize::Auto),
        ("i", vec![&a], EinsumOptimize::Auto),
        ("i1", vec![&a], EinsumOptimize::Auto),
        ("ij-ij", vec![&a], EinsumOptimize::Auto),
        ("ij->i,j", vec![&a], EinsumOptimize::Auto),
        (
            "ij,ij,ij",
            vec![&a, &a, &a],
            EinsumOptimize::Path(vec![vec![0, 3], vec![0, 1]]),
        ),
        (
            "ij,ij,ij",
            vec![&a, &a, &a],
            EinsumOptimize::Path(vec![vec![0, 1]]),
        ),
        (
            "ij,ij,ij",
            vec![&a, &a, &a],
            EinsumOptimize::Path(vec![vec![0, 0], vec![0, 1]]),
        ),
        ("", vec![], EinsumOptimize::Auto),
    ];
    for (spec, ops, opt) in cases {
        for func in ["einsum_with", "einsum_path"] {
            let e = if func == "einsum_path" {
                np::einsum_path(spec, ops.iter().copied(), opt.clone()).err()
            } else {
                np::einsum_with(spec, ops.iter().copied(), opt.clone()).err()
            };
            let e = e.unwrap_or_else(|| panic!("{func} {spec:?} {opt:?}: no error"));
            assert!(e.to_string().contains(func), "{func} {spec:?}: {e}");
        }
    }
}

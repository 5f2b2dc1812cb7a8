//! Joins, splits, tiles, repeats, rolls, pads and triangles against host index arithmetic,
//! on every dtype, contiguous and transposed inputs, empty and 0-d cases.

use crate::common::*;
use olympus::numpy as np;
use olympus::DType;

#[test]
fn concatenate_and_stack_every_dtype() {
    let mut r = rng();
    for d in every_dtype() {
        for transposed in [false, true] {
            let (a, av) = random_array(&mut r, &[3, 5], d, transposed);
            let (b, bv) = random_array(&mut r, &[2, 5], d, transposed);
            let (c, cv) = random_array(&mut r, &[3, 4], d, !transposed);
            let j = np::concatenate([&a, &b], 0).unwrap();
            assert_eq!(j.shape(), &[5, 5]);
            let want = map_ref(&[5, 5], |o| {
                if o[0] < 3 {
                    av[o[0] * 5 + o[1]]
                } else {
                    bv[(o[0] - 3) * 5 + o[1]]
                }
            });
            assert_close("concatenate 0", &j, &want, d, EXACT);
            let j = np::concatenate([&a, &c, &a], -1).unwrap();
            let want = map_ref(&[3, 14], |o| match o[1] {
                k if k < 5 => av[o[0] * 5 + k],
                k if k < 9 => cv[o[0] * 4 + k - 5],
                k => av[o[0] * 5 + k - 9],
            });
            assert_close("concatenate -1", &j, &want, d, EXACT);
            let s = np::stack([&a, &a], 1).unwrap();
            assert_eq!(s.shape(), &[3, 2, 5]);
            let want = map_ref(&[3, 2, 5], |o| av[o[0] * 5 + o[2]]);
            assert_close("stack", &s, &want, d, EXACT);
        }
    }
}

#[test]
fn concatenate_many_mixed_and_empty() {
    // More operands than one kernel binds (groups of 8), promotion across dtypes, empty
    // operands, 1-element operands.
    let parts: Vec<np::DType> = (0..19)
        .map(|i| {
            if i % 3 == 0 {
                DType::Int32
            } else {
                DType::Float32
            }
        })
        .collect();
    let arrays: Vec<olympus::Array> = parts
        .iter()
        .enumerate()
        .map(|(i, &d)| np::astype(np::full(&[i % 4], i as f64, None).unwrap(), d).unwrap())
        .collect();
    let j = np::concatenate(&arrays, 0).unwrap();
    assert_eq!(j.dtype(), DType::Float32);
    let want: Vec<f32> = (0..19)
        .flat_map(|i| std::iter::repeat_n(i as f32, i % 4))
        .collect();
    assert_eq!(j.to_vec::<f32>().unwrap(), want);
    // Weak scalars promote like elementwise ops; a float16 array stays float16.
    let h = np::concatenate(
        [
            np::zeros(&[2], DType::Float16).unwrap(),
            np::ones(&[1], DType::Float16).unwrap(),
        ],
        0,
    )
    .unwrap();
    assert_eq!(h.dtype(), DType::Float16);
    let e = np::concatenate(
        [
            np::zeros(&[0, 3], DType::Int32).unwrap(),
            np::zeros(&[0, 3], DType::Int32).unwrap(),
        ],
        0,
    )
    .unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    let e = np::concatenate(
        [
            np::zeros(&[2, 0], DType::Int32).unwrap(),
            np::ones(&[2, 3], DType::Int32).unwrap(),
        ],
        1,
    )
    .unwrap();
    assert_eq!(e.to_vec::<i32>().unwrap(), vec![1; 6]);
    // Errors name the function and shapes.
    let err = np::concatenate(
        [
            np::zeros(&[2, 3], DType::Int32).unwrap(),
            np::zeros(&[3, 2], DType::Int32).unwrap(),
        ],
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("concatenate") && err.contains("(2, 3)") && err.contains("(3, 2)"),
        "{err}"
    );
    assert_error(
        np::concatenate([np::asarray(1).unwrap()], 0),
        "concatenate",
        "ShapeMismatch",
    );
    assert_error(
        np::concatenate(Vec::<olympus::Array>::new(), 0),
        "concatenate",
        "InvalidArgument",
    );
    assert_error(
        np::concatenate([np::zeros(&[2], DType::Int32).unwrap()], 1),
        "concatenate",
        "InvalidArgument",
    );
    assert_error(
        np::stack(
            [
                np::zeros(&[2], DType::Int32).unwrap(),
                np::zeros(&[3], DType::Int32).unwrap(),
            ],
            0,
        ),
        "stack",
        "ShapeMismatch",
    );
}

#[test]
fn hstack_vstack_dstack() {
    let a = np::array([1, 2]).unwrap();
    let b = np::array([3, 4]).unwrap();
    assert_eq!(
        np::hstack([&a, &b]).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 2, 3, 4]
    );
    let v = np::vstack([&a, &b]).unwrap();
    assert_eq!(v.shape(), &[2, 2]);
    assert_eq!(v.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4]);
    let d = np::dstack([&a, &b]).unwrap();
    assert_eq!(d.shape(), &[1, 2, 2]);
    assert_eq!(d.to_vec::<i32>().unwrap(), vec![1, 3, 2, 4]);
    let m = np::hstack([
        np::ones(&[2, 1], DType::Int32).unwrap(),
        np::zeros(&[2, 2], DType::Int32).unwrap(),
    ])
    .unwrap();
    assert_eq!(m.to_vec::<i32>().unwrap(), vec![1, 0, 0, 1, 0, 0]);
    // A scalar joins as a length-1 row.
    assert_eq!(
        np::hstack([np::asarray(5).unwrap(), a.clone()])
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![5, 1, 2]
    );
}

#[test]
fn split_and_array_split() {
    let mut r = rng();
    let (x, xv) = random_array(&mut r, &[7, 6], DType::Float32, true);
    let parts = np::array_split(&x, 3, 0).unwrap();
    let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[0]).collect();
    assert_eq!(sizes, vec![3, 2, 2]);
    let mut row = 0;
    for p in &parts {
        let n = p.shape()[0];
        let want = map_ref(p.shape(), |o| xv[(row + o[0]) * 6 + o[1]]);
        assert_close("array_split", p, &want, DType::Float32, EXACT);
        row += n;
    }
    let parts = np::split(&x, [2, -1, 10], 1).unwrap();
    let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[1]).collect();
    assert_eq!(sizes, vec![2, 3, 1, 0]);
    let want = map_ref(&[7, 3], |o| xv[o[0] * 6 + 2 + o[1]]);
    assert_close("split indices", &parts[1], &want, DType::Float32, EXACT);
    let err = np::split(&x, 4, 0).unwrap_err().to_string();
    assert!(
        err.contains("split") && err.contains("equal division"),
        "{err}"
    );
    assert_error(np::split(&x, 0, 0), "split", "InvalidArgument");
    assert_error(
        np::split(np::asarray(1.0).unwrap(), 1, 0),
        "split",
        "ShapeMismatch",
    );
    assert_error(np::split(&x, 1, 2), "split", "InvalidArgument");
}

#[test]
fn tile_repeat_roll() {
    let mut r = rng();
    for d in every_dtype() {
        let (x, xv) = random_array(&mut r, &[2, 3], d, true);
        let t = np::tile(&x, &[2, 1, 2]).unwrap();
        assert_eq!(t.shape(), &[2, 2, 6]);
        let want = map_ref(&[2, 2, 6], |o| xv[(o[1] % 2) * 3 + o[2] % 3]);
        assert_close("tile", &t, &want, d, EXACT);
        let t = np::repeat(&x, 3, Some(-1)).unwrap();
        let want = map_ref(&[2, 9], |o| xv[o[0] * 3 + o[1] / 3]);
        assert_close("repeat", &t, &want, d, EXACT);
        let t = np::repeat(&x, [0, 2], Some(0)).unwrap();
        let want = map_ref(&[2, 3], |o| xv[3 + o[1]]);
        assert_close("repeat counts", &t, &want, d, EXACT);
        let t = np::repeat(&x, 2, None).unwrap();
        assert_close(
            "repeat flat",
            &t,
            &map_ref(&[12], |o| xv[o[0] / 2]),
            d,
            EXACT,
        );
        for shift in [-4isize, -1, 0, 1, 5] {
            let t = np::roll(&x, &[shift], Some(&[1])).unwrap();
            let want = map_ref(&[2, 3], |o| {
                xv[o[0] * 3 + (o[1] as isize - shift).rem_euclid(3) as usize]
            });
            assert_close("roll axis", &t, &want, d, EXACT);
            let t = np::roll(&x, &[shift], None).unwrap();
            let want = map_ref(&[2, 3], |o| {
                xv[((o[0] * 3 + o[1]) as isize - shift).rem_euclid(6) as usize]
            });
            assert_close("roll flat", &t, &want, d, EXACT);
        }
        let t = np::roll(&x, &[1, 2], Some(&[0, 1])).unwrap();
        let want = map_ref(&[2, 3], |o| xv[((o[0] + 1) % 2) * 3 + (o[1] + 1) % 3]);
        assert_close("roll two axes", &t, &want, d, EXACT);
    }
    assert_eq!(
        np::tile(np::asarray(7).unwrap(), &[3])
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![7; 3]
    );
    assert_eq!(
        np::tile(np::array([1, 2]).unwrap(), &[0]).unwrap().shape(),
        &[0]
    );
    assert_error(
        np::repeat(np::array([1, 2]).unwrap(), [1, 2, 3], Some(0)),
        "repeat",
        "ShapeMismatch",
    );
    assert_eq!(
        np::roll(np::zeros(&[0], DType::Int32).unwrap(), &[3], None)
            .unwrap()
            .shape(),
        &[0]
    );
    assert_error(
        np::roll(np::zeros(&[2], DType::Int32).unwrap(), &[1, 2], Some(&[0])),
        "roll",
        "InvalidArgument",
    );
}

#[test]
fn pad_constant_and_edge() {
    let mut r = rng();
    for d in every_dtype() {
        let (x, xv) = random_array(&mut r, &[3, 4], d, true);
        let p = np::pad(&x, &[(1, 2), (0, 3)], np::PadMode::Constant(1.0)).unwrap();
        assert_eq!(p.shape(), &[6, 7]);
        let want = map_ref(&[6, 7], |o| {
            if (1..4).contains(&o[0]) && o[1] < 4 {
                xv[(o[0] - 1) * 4 + o[1]]
            } else {
                1.0
            }
        });
        assert_close("pad constant", &p, &want, d, EXACT);
        let p = np::pad(&x, &[(2, 1)], np::PadMode::Edge).unwrap();
        let want = map_ref(&[6, 7], |o| {
            let i = (o[0] as isize - 2).clamp(0, 2) as usize;
            let j = (o[1] as isize - 2).clamp(0, 3) as usize;
            xv[i * 4 + j]
        });
        assert_close("pad edge", &p, &want, d, EXACT);
    }
    // Empty operands: constant padding fills, edge padding of an empty axis is an error.
    let p = np::pad(
        np::zeros(&[0], DType::Float32).unwrap(),
        &[(1, 1)],
        np::PadMode::Constant(2.5),
    )
    .unwrap();
    assert_eq!(p.to_vec::<f32>().unwrap(), vec![2.5, 2.5]);
    assert_error(
        np::pad(
            np::zeros(&[0], DType::Float32).unwrap(),
            &[(1, 1)],
            np::PadMode::Edge,
        ),
        "pad",
        "ShapeMismatch",
    );
    assert_error(
        np::pad(
            np::zeros(&[2, 2], DType::Float32).unwrap(),
            &[(1, 1), (1, 1), (1, 1)],
            np::PadMode::Edge,
        ),
        "pad",
        "ShapeMismatch",
    );
    // 0-d: nothing to pad.
    assert_eq!(
        np::pad(np::asarray(3).unwrap(), &[], np::PadMode::Edge)
            .unwrap()
            .item::<i32>()
            .unwrap(),
        3
    );
}

#[test]
fn tril_triu() {
    let mut r = rng();
    for d in every_dtype() {
        let (x, xv) = random_array(&mut r, &[2, 3, 4], d, true);
        for k in [-5isize, -1, 0, 2, 9] {
            let t = np::tril(&x, k).unwrap();
            let want = map_ref(&[2, 3, 4], |o| {
                if o[2] as isize - o[1] as isize <= k {
                    xv[ravel_c(o, &[2, 3, 4])]
                } else {
                    0.0
                }
            });
            assert_close("tril", &t, &want, d, EXACT);
            let t = np::triu(&x, k).unwrap();
            let want = map_ref(&[2, 3, 4], |o| {
                if o[2] as isize - o[1] as isize >= k {
                    xv[ravel_c(o, &[2, 3, 4])]
                } else {
                    0.0
                }
            });
            assert_close("triu", &t, &want, d, EXACT);
        }
    }
    assert_error(
        np::tril(np::zeros(&[3], DType::Float32).unwrap(), 0),
        "tril",
        "ShapeMismatch",
    );
}

/// Every way a concatenation runs, against a host join: operands copied into their runs
/// of the result (every dimension before the joined one of size 1), one kernel over two to
/// four interleaved operands, and more interleaved operands joined with the joined
/// dimension moved first. Operands are contiguous, transposed views, or offset views with
/// steps (whose first element may sit inside a packed word); some are empty.
#[test]
fn concatenate_every_path_matches_a_host_join() {
    use rand::Rng;
    let mut r = rng();
    for d in every_dtype() {
        for &(lead, n_parts) in &[(1, 2), (1, 7), (1, 24), (3, 2), (3, 4), (2, 5), (3, 23)] {
            // Shapes [lead, len_k, tail] joined along 1, or [len_k, tail] along 0 (lead 1).
            let tail = r.random_range(1..4usize);
            let lens: Vec<usize> = (0..n_parts).map(|_| r.random_range(0..5usize)).collect();
            let mut parts = Vec::new();
            let mut vals = Vec::new();
            for (k, &len) in lens.iter().enumerate() {
                let shape = [lead, len, tail];
                let (a, v) = match k % 3 {
                    0 => random_array(&mut r, &shape, d, false),
                    1 => random_array(&mut r, &shape, d, true),
                    _ => {
                        // Rows 1, 3, 5, ... of a taller array: an offset view with a step.
                        let tall = [lead, 2 * len + 1, tail];
                        let (t, tv) = random_array(&mut r, &tall, d, false);
                        let view = t
                            .slice(olympus::s![.., 1..(2 * len + 1) as isize;2, ..])
                            .unwrap();
                        let v =
                            map_ref(&shape, |o| tv[ravel_c(&[o[0], 2 * o[1] + 1, o[2]], &tall)]);
                        (view, v)
                    }
                };
                parts.push(a);
                vals.push(v);
            }
            let total: usize = lens.iter().sum();
            let starts: Vec<usize> = lens
                .iter()
                .scan(0, |acc, &l| {
                    let s = *acc;
                    *acc += l;
                    Some(s)
                })
                .collect();
            let want = map_ref(&[lead, total, tail], |o| {
                let k = (0..n_parts)
                    .rfind(|&k| starts[k] <= o[1] && lens[k] > 0)
                    .unwrap();
                vals[k][ravel_c(&[o[0], o[1] - starts[k], o[2]], &[lead, lens[k], tail])]
            });
            let what = format!("{d:?}, lead {lead}, lengths {lens:?}, tail {tail}");
            let got = np::concatenate(&parts, 1).unwrap();
            assert_eq!(got.shape(), &[lead, total, tail], "{what}");
            assert_close(&what, &got, &want, d, EXACT);
            if lead == 1 {
                // The same along the first axis, the runs copied in.
                let flat: Vec<olympus::Array> = parts
                    .iter()
                    .map(|p| np::squeeze(p, Some(&[0])).unwrap())
                    .collect();
                let got = np::concatenate(&flat, 0).unwrap();
                assert_close(&format!("{what}, axis 0"), &got, &want, d, EXACT);
            }
        }
    }
}

/// `stack` of many strided views (an im2col of a padded image batch, as a port of JAX's
/// differentially private SGD example builds it) along the first and the last axis.
#[test]
fn stack_of_many_strided_views() {
    let mut r = rng();
    let (x, xv) = random_array(&mut r, &[6, 9, 9, 2], DType::Float32, false);
    let views: Vec<olympus::Array> = (0..9)
        .map(|i| {
            let (a, b) = ((i / 3) as isize, (i % 3) as isize);
            x.slice(olympus::s![.., a..a + 7;2, b..b + 7;2, ..])
                .unwrap()
        })
        .collect();
    for axis in [0isize, -1] {
        let got = np::stack(&views, axis).unwrap();
        let shape: Vec<usize> = if axis == 0 {
            vec![9, 6, 4, 4, 2]
        } else {
            vec![6, 4, 4, 2, 9]
        };
        assert_eq!(got.shape(), shape.as_slice());
        let want = map_ref(&shape, |o| {
            let (i, e) = if axis == 0 {
                (o[0], &o[1..])
            } else {
                (o[4], &o[..4])
            };
            let (a, b) = (i / 3, i % 3);
            xv[ravel_c(&[e[0], a + 2 * e[1], b + 2 * e[2], e[3]], &[6, 9, 9, 2])]
        });
        assert_close(
            &format!("stack axis {axis}"),
            &got,
            &want,
            DType::Float32,
            EXACT,
        );
    }
}

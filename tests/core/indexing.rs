//! Basic indexing (views), gathers, boolean selection, nonzero, argwhere.

use crate::common::*;
use olympus::numpy::{self as np, Ellipsis, NewAxis};
use olympus::{jit, s, Array, DType};
use rand::Rng;

/// NumPy's slice arithmetic, written independently: the positions a range selects.
fn positions(start: Option<isize>, end: Option<isize>, step: isize, n: usize) -> Vec<usize> {
    let n = n as isize;
    let mut out = Vec::new();
    if step > 0 {
        let mut a = start.unwrap_or(0);
        if a < 0 {
            a += n;
        }
        let a = a.clamp(0, n);
        let mut b = end.unwrap_or(n);
        if b < 0 {
            b += n;
        }
        let b = b.clamp(0, n);
        let mut i = a;
        while i < b {
            out.push(i as usize);
            i += step;
        }
    } else {
        let mut a = start.unwrap_or(n - 1);
        if a < 0 {
            a += n;
        }
        let a = a.clamp(-1, n - 1);
        let mut b = end.unwrap_or(-n - 1);
        if b < 0 {
            b += n;
        }
        let b = b.clamp(-1, n - 1);
        let mut i = a;
        while i > b {
            out.push(i as usize);
            i += step;
        }
    }
    out
}

/// uint32 indices of 2^31 and above: `lax::gather` and `take(mode=clip)` clamp them to
/// the last element as JAX's gather does (they are not read as negative int32s), while
/// JAX's `take_along_axis` converts them to int32 first, so 2^31 wraps to a negative index
/// and clips to 0 and u32::MAX is -1. JAX 0.10.2, `x = [10, 20, 30, 40]` and indices
/// `[0, 3, 4, 2^31 - 1, 2^31, 2^32 - 1]` as uint32: `jnp.take(x, i, mode='clip')` is
/// `[10, 40, 40, 40, 40, 40]`, `jnp.take_along_axis(x, i, 0, mode='clip')`
/// `[10, 40, 40, 40, 10, 40]`; the default (fill) modes give NaN past the end, and
/// `take_along_axis` reads u32::MAX as -1. Eager and under jit.
#[test]
fn uint32_indices_past_i32_max_clamp_as_jax() {
    use olympus::lax;
    let x = np::array([10.0f32, 20.0, 30.0, 40.0]).unwrap();
    let i = np::array([0u32, 3, 4, (1 << 31) - 1, 1 << 31, u32::MAX]).unwrap();
    let nan = f32::NAN;
    let cases: [(&str, fn(&Array, &Array) -> olympus::Result<Array>, [f32; 6]); 6] = [
        (
            "lax::gather",
            |x, i| lax::gather(x, i, 0),
            [10.0, 40.0, 40.0, 40.0, 40.0, 40.0],
        ),
        (
            "take clip",
            |x, i| np::take_with(x, i, None, np::IndexMode::Clip, None),
            [10.0, 40.0, 40.0, 40.0, 40.0, 40.0],
        ),
        (
            "take_along_axis clip",
            |x, i| np::take_along_axis_with(x, i, 0, np::IndexMode::Clip, None),
            [10.0, 40.0, 40.0, 40.0, 10.0, 40.0],
        ),
        (
            "take",
            |x, i| np::take(x, i, None),
            [10.0, 40.0, nan, nan, nan, nan],
        ),
        (
            "take wrap",
            |x, i| np::take_with(x, i, None, np::IndexMode::Wrap, None),
            [10.0, 40.0, 10.0, 40.0, 10.0, 40.0],
        ),
        (
            "take_along_axis",
            |x, i| np::take_along_axis(x, i, 0),
            [10.0, 40.0, nan, nan, nan, 40.0],
        ),
    ];
    for (name, f, want) in cases {
        let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let want = bits(want.to_vec());
        let eager = f(&x, &i).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(bits(eager), want, "{name}");
        let jitted = jit(move |(x, i): (Array, Array)| f(&x, &i))
            .call((x.clone(), i.clone()))
            .unwrap();
        assert_eq!(
            bits(jitted.to_vec::<f32>().unwrap()),
            want,
            "{name} under jit"
        );
    }
}

#[test]
fn basic_slices_are_views_with_numpy_arithmetic() {
    let mut r = rng();
    let shape = [5usize, 7];
    for d in every_dtype() {
        for transposed in [false, true] {
            let (x, xv) = random_array(&mut r, &shape, d, transposed);
            let cases: Vec<(Option<isize>, Option<isize>, isize)> = vec![
                (None, None, 1),
                (Some(1), Some(4), 1),
                (Some(-3), None, 1),
                (None, Some(-1), 2),
                (None, None, -1),
                (Some(5), Some(1), -2),
                (Some(-1), Some(-8), -3),
                (Some(4), Some(2), 1),
                (Some(9), None, 1),
                (None, Some(-9), -1),
            ];
            for &(a, b, st) in &cases {
                let elem = olympus::numpy::SliceElem::Range {
                    start: a,
                    end: b,
                    step: st,
                };
                let rows = positions(a, b, st, 5);
                let cols = positions(b.map(|v| -v), None, -st, 7);
                let y = x
                    .slice(np::SliceSpec(vec![
                        elem,
                        olympus::numpy::SliceElem::Range {
                            start: b.map(|v| -v),
                            end: None,
                            step: -st,
                        },
                    ]))
                    .unwrap();
                assert_eq!(y.shape(), &[rows.len(), cols.len()], "{a:?} {b:?} {st}");
                let want: Vec<f64> = rows
                    .iter()
                    .flat_map(|&i| cols.iter().map(move |&j| (i, j)))
                    .map(|(i, j)| xv[i * 7 + j])
                    .collect();
                assert_close("slice", &y, &want, d, EXACT);
            }
        }
    }
    let x = np::reshape(np::arange(24).unwrap(), &[2, 3, 4]).unwrap();
    let y = x.slice(s![-1, 1..;1, ..;-2]).unwrap();
    assert_eq!(y.shape(), &[2, 2]);
    assert_eq!(y.to_vec::<i32>().unwrap(), vec![19, 17, 23, 21]);
    assert_eq!(x.slice(s![Ellipsis, 0]).unwrap().shape(), &[2, 3]);
    assert_eq!(x.slice(s![0, Ellipsis]).unwrap().shape(), &[3, 4]);
    assert_eq!(
        x.slice(s![NewAxis, 1, NewAxis]).unwrap().shape(),
        &[1, 1, 3, 4]
    );
    assert_eq!(x.slice(s![1, 2, 3]).unwrap().item::<i32>().unwrap(), 23);
    assert_eq!(
        x.slice(s![.., 0..=1, -1]).unwrap().to_vec::<i32>().unwrap(),
        vec![3, 7, 15, 19]
    );
    // An integer past the end clamps, as in JAX (tests/data/jax_rules.txt has more).
    assert_eq!(
        x.slice(s![2]).unwrap().to_vec::<i32>().unwrap(),
        x.slice(s![1]).unwrap().to_vec::<i32>().unwrap()
    );
    // Errors: too many indices, two ellipses, zero step.
    assert_error(x.slice(s![0, 0, 0, 0]), "slice", "ShapeMismatch");
    assert_error(x.slice(s![Ellipsis, Ellipsis]), "slice", "InvalidArgument");
    assert_error(x.slice(s![..;0]), "slice", "InvalidArgument");
    // A view: same buffer, and an op on it reads in place.
    let v = x.slice(s![.., 1, 1..]).unwrap();
    let w = np::add(&v, 0).unwrap();
    assert_eq!(w.to_vec::<i32>().unwrap(), vec![5, 6, 7, 17, 18, 19]);
}

#[test]
fn take_and_take_along_axis() {
    let mut r = rng();
    for d in every_dtype() {
        let (x, xv) = random_array(&mut r, &[3, 4, 2], d, true);
        let idx = np::array([[3, -1], [0, 2], [1, 1]]).unwrap();
        let t = np::take(&x, &idx, Some(1)).unwrap();
        assert_eq!(t.shape(), &[3, 3, 2, 2]);
        let iv = [[3usize, 3], [0, 2], [1, 1]];
        let want = map_ref(&[3, 3, 2, 2], |o| xv[o[0] * 8 + iv[o[1]][o[2]] * 2 + o[3]]);
        assert_close("take", &t, &want, d, EXACT);
        let t = np::take(&x, 5, None).unwrap();
        assert_eq!(t.shape(), &[] as &[usize]);
        assert_close("take scalar", &t, &[xv[5]], d, EXACT);
        let t = np::take(&x, np::array([0u32, 2]).unwrap(), Some(-3)).unwrap();
        let want = map_ref(&[2, 4, 2], |o| xv[(o[0] * 2) * 8 + o[1] * 2 + o[2]]);
        assert_close("take uint", &t, &want, d, EXACT);
        // take_along_axis with argsort-like indices and broadcasting on another axis.
        let ia = np::array([[[1, 0]], [[0, 0]], [[1, 1]]]).unwrap();
        let t = np::take_along_axis(&x, &ia, 2).unwrap();
        assert_eq!(t.shape(), &[3, 4, 2]);
        let iav = [[1usize, 0], [0, 0], [1, 1]];
        let want = map_ref(&[3, 4, 2], |o| xv[o[0] * 8 + o[1] * 2 + iav[o[0]][o[2]]]);
        assert_close("take_along_axis", &t, &want, d, EXACT);
    }
    let x = np::arange(5).unwrap();
    // Out of range: JAX's fill by default, NumPy's error with IndexMode::Raise.
    assert_eq!(
        np::take(&x, [5, -6, -5], None)
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![i32::MIN, i32::MIN, 0]
    );
    let e = np::take_with(&x, [5], None, np::IndexMode::Raise, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("take") && e.contains("out of bounds"), "{e}");
    assert_error(
        np::take_with(&x, [-6], None, np::IndexMode::Raise, None),
        "take_with",
        "ShapeMismatch",
    );
    assert_error(np::take(&x, [1.0f32], None), "take", "InvalidDType");
    assert_error(
        np::take_along_axis(&x, np::array([[0]]).unwrap(), 0),
        "take_along_axis",
        "ShapeMismatch",
    );
    assert_eq!(
        np::take(&x, np::zeros(&[0], DType::Int32).unwrap(), None)
            .unwrap()
            .shape(),
        &[0]
    );
    // The lax primitive clamps (JAX's behaviour where it cannot check).
    let g = olympus::lax::gather(&x, &np::array([-3, 9]).unwrap(), 0).unwrap();
    assert_eq!(g.to_vec::<i32>().unwrap(), vec![0, 4]);
}

#[test]
fn masks_nonzero_argwhere() {
    let mut r = rng();
    let (x, xv) = random_array(&mut r, &[4, 5], DType::Float32, true);
    let m = np::greater(&x, 0.0).unwrap();
    let got = np::extract(&m, &x).unwrap();
    let want: Vec<f64> = xv.iter().copied().filter(|&v| v > 0.0).collect();
    assert_close("extract", &got, &want, DType::Float32, EXACT);
    let nz = np::nonzero(&m, None, None).unwrap();
    let want_pos: Vec<usize> = (0..20).filter(|&i| xv[i] > 0.0).collect();
    assert_eq!(nz.len(), 2);
    assert_eq!(
        nz[0].to_vec::<i32>().unwrap(),
        want_pos.iter().map(|&p| (p / 5) as i32).collect::<Vec<_>>()
    );
    assert_eq!(
        nz[1].to_vec::<i32>().unwrap(),
        want_pos.iter().map(|&p| (p % 5) as i32).collect::<Vec<_>>()
    );
    let aw = np::argwhere(&m, None, None).unwrap();
    assert_eq!(aw.shape(), &[want_pos.len(), 2]);
    let c = np::compress([true, false, true], &x, Some(1)).unwrap();
    let want = map_ref(&[4, 2], |o| xv[o[0] * 5 + o[1] * 2]);
    assert_close("compress", &c, &want, DType::Float32, EXACT);
    // NaN counts as non-zero, as in NumPy.
    let n = np::nonzero(np::array([0.0f32, f32::NAN, 1.0]).unwrap(), None, None).unwrap();
    assert_eq!(n[0].to_vec::<i32>().unwrap(), vec![1, 2]);
    // Conditions of another length follow JAX's compress: a shorter one selects among the
    // first elements, a longer one may hold only false past them.
    let first = np::extract([false, true], &x).unwrap();
    assert_close("extract, shorter", &first, &[xv[1]], DType::Float32, EXACT);
    let mut long = [false; 21];
    long[3] = true;
    let third = np::extract(long, &x).unwrap();
    assert_close("extract, longer", &third, &[xv[3]], DType::Float32, EXACT);
    long[20] = true;
    assert_error(np::extract(long, &x), "extract", "ShapeMismatch");
    let c = np::compress([true, false, false, false, false, false], &x, Some(1)).unwrap();
    assert_eq!(c.shape(), &[4, 1]);
    assert_error(
        np::compress([true; 6], &x, Some(1)),
        "compress",
        "ShapeMismatch",
    );
}

/// Positions are int32 (as JAX's with x64 off): more elements than they can number is an
/// error naming the function, never wrapped positions. Broadcast views hold no buffer, so
/// the sizes cost nothing.
#[test]
fn nonzero_past_int32_positions_is_an_error() {
    let t = np::array(true).unwrap();
    let long = t.broadcast_to(&[(1 << 31) + 1]).unwrap();
    let wide = t.broadcast_to(&[1 << 16, (1 << 15) + 1]).unwrap();
    let errors = [
        (
            "flatnonzero",
            np::flatnonzero(&long, Some(3), None).map(|_| ()),
        ),
        ("nonzero", np::nonzero(&wide, Some(3), None).map(|_| ())),
        ("argwhere", np::argwhere(&wide, Some(3), None).map(|_| ())),
    ];
    for (name, r) in errors {
        let e = r.expect_err(name).to_string();
        assert!(e.contains(name) && e.contains("2^31 - 1"), "{name}: {e}");
    }
}

/// `nonzero`/`argwhere` with `size` (padded or truncated, with and without `fill_value`)
/// against the host, eagerly and under `jit`, on random masks of several ranks.
#[test]
fn sized_nonzero_and_argwhere_match_the_host() {
    let mut r = rng();
    for shape in [vec![7], vec![3, 4], vec![2, 3, 5], vec![1, 1]] {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|_| r.random_range(0..3) as f64).collect();
        let x = make(&v, &shape, DType::Int32);
        let pos: Vec<usize> = (0..n).filter(|&i| v[i] != 0.0).collect();
        for size in [0, 1, pos.len(), pos.len() + 3] {
            for fill in [None, Some(-1.0)] {
                let what = format!("{shape:?} size {size} fill {fill:?}");
                let want: Vec<Vec<i32>> = (0..shape.len())
                    .map(|d| {
                        (0..size)
                            .map(|k| match pos.get(k) {
                                Some(&p) => unravel_c(p, &shape)[d] as i32,
                                None => fill.unwrap_or(0.0) as i32,
                            })
                            .collect()
                    })
                    .collect();
                let got = np::nonzero(&x, Some(size), fill).unwrap();
                let f = jit(move |x: Array| np::nonzero(&x, Some(size), fill));
                let jitted = f.call(x.clone()).unwrap();
                for d in 0..shape.len() {
                    assert_eq!(got[d].to_vec::<i32>().unwrap(), want[d], "{what} axis {d}");
                    assert_eq!(
                        jitted[d].to_vec::<i32>().unwrap(),
                        want[d],
                        "jit {what} axis {d}"
                    );
                }
                let aw = np::argwhere(&x, Some(size), fill).unwrap();
                assert_eq!(aw.shape(), &[size, shape.len()], "{what}");
                let flat: Vec<i32> = (0..size)
                    .flat_map(|k| want.iter().map(move |w| w[k]))
                    .collect();
                assert_eq!(aw.to_vec::<i32>().unwrap(), flat, "argwhere {what}");
            }
        }
    }
    // Without `size` under jit: a tracing error that asks for it.
    let f = jit(|x: Array| np::argwhere(&x, None, None));
    let e = f.call(np::ones(&[3], DType::Float32).unwrap()).unwrap_err();
    assert!(e.to_string().contains("size"), "{e}");
}

#[test]
fn functional_updates_accumulate_duplicates() {
    let mut r = rng();
    let shape = [5usize, 3];
    for d in every_dtype() {
        let (x, xv) = random_array(&mut r, &shape, d, true);
        let rows = [4i32, 0, -1, 2, 0, 4];
        let (u, uv) = random_array(&mut r, &[6, 3], d, false);
        type Op = fn(olympus::numpy::At<'_>, &olympus::Array) -> olympus::Result<olympus::Array>;
        let ops: [(&str, Op); 5] = [
            ("set", |a, v| a.set(v)),
            ("add", |a, v| a.add(v)),
            ("multiply", |a, v| a.multiply(v)),
            ("min", |a, v| a.min(v)),
            ("max", |a, v| a.max(v)),
        ];
        for (name, op) in ops {
            // Duplicate rows make `set` ambiguous; give it distinct rows.
            let rows: Vec<i32> = if name == "set" {
                vec![4, 0, 2]
            } else {
                rows.to_vec()
            };
            let n = rows.len();
            let upd =
                np::reshape(u.slice(s![..n as isize, ..]).unwrap(), &[n as isize, 3]).unwrap();
            let got = op(x.at(rows.clone()), &upd);
            if d == DType::Bool && (name == "add" || name == "multiply") {
                // JAX has no bool add or multiply scatter.
                assert_error(got, &format!("at.{name}"), "InvalidDType");
                continue;
            }
            let got = got.unwrap();
            let mut want = xv.clone();
            for (k, &row) in rows.iter().enumerate() {
                let row = row.rem_euclid(5) as usize;
                for c in 0..3 {
                    let (o, v) = (want[row * 3 + c], uv[k * 3 + c]);
                    let b = |z: f64| z != 0.0;
                    want[row * 3 + c] = match (name, d) {
                        ("set", _) => v,
                        ("max", DType::Bool) => f64::from(u8::from(b(o) || b(v))),
                        ("min", DType::Bool) => f64::from(u8::from(b(o) && b(v))),
                        ("add", DType::Int32) => f64::from((o as i32).wrapping_add(v as i32)),
                        ("add", DType::UInt32) => f64::from((o as u32).wrapping_add(v as u32)),
                        ("multiply", DType::Int32) => f64::from((o as i32).wrapping_mul(v as i32)),
                        ("multiply", DType::UInt32) => f64::from((o as u32).wrapping_mul(v as u32)),
                        ("add", _) => round_to(o + v, d),
                        ("multiply", _) => round_to(o * v, d),
                        ("min", _) => o.min(v),
                        _ => o.max(v),
                    };
                }
            }
            // Float additions of duplicates may associate either way: allow one rounding.
            let tol = if d.is_floating() && (name == "add" || name == "multiply") {
                2.0
            } else {
                EXACT
            };
            assert_close(&format!("at.{name} {d}"), &got, &want, d, tol);
        }
        // The original is unchanged.
        assert_close("original", &x, &xv, d, EXACT);
    }
    // Basic indices, broadcast values, weak scalars cast to the dtype, float16 neighbours.
    let x = np::zeros(&[3, 4], DType::Float16).unwrap();
    let y = x.at(s![1, 1..;2]).set(2.5).unwrap();
    assert_eq!(
        y.to_vec::<half::f16>()
            .unwrap()
            .iter()
            .map(|h| h.to_f32())
            .collect::<Vec<_>>(),
        vec![0.0, 0.0, 0.0, 0.0, 0.0, 2.5, 0.0, 2.5, 0.0, 0.0, 0.0, 0.0]
    );
    let y = np::arange(6)
        .unwrap()
        .at(s![..;-2])
        .add(np::array([10, 20, 30]).unwrap())
        .unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), vec![0, 31, 2, 23, 4, 15]);
    let y = np::arange(4).unwrap().at(1).set(9).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), vec![0, 9, 2, 3]);
    assert_eq!(
        np::arange(4)
            .unwrap()
            .at([3, 1])
            .get()
            .unwrap()
            .to_vec::<i32>()
            .unwrap(),
        vec![3, 1]
    );
    let many = np::zeros(&[3], DType::Float32)
        .unwrap()
        .at(vec![1; 1000])
        .add(1.0)
        .unwrap();
    assert_eq!(many.to_vec::<f32>().unwrap(), vec![0.0, 1000.0, 0.0]);
    // Out of range: dropped (JAX's default), or NumPy's error with IndexMode::Raise.
    let x = np::arange(4).unwrap();
    assert_eq!(
        x.at([4, -5]).set(9).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 3]
    );
    let e = x
        .at([4])
        .mode(np::IndexMode::Raise)
        .set(0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out of bounds"), "{e}");
    // Errors: values that do not broadcast.
    let e = np::arange(4)
        .unwrap()
        .at(s![..2])
        .set([1, 2, 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("at.set") && e.contains("broadcast"), "{e}");
}

/// `take`, `take_along_axis`, `.at[..].get()` and the `.at[..]` updates in every mode,
/// against JAX 0.10.2's own answers (tests/data/index_modes.txt, made by
/// tests/data/gen_index_modes.py), eagerly and under jit. Where JAX rejects a mode
/// (`take` with `promise_in_bounds`, `take_along_axis` with `wrap`) Olympus accepts it;
/// `set` with positions that collide after clipping is left out (XLA leaves the winner
/// unspecified).
#[test]
fn index_modes_match_jax() {
    use np::IndexMode;
    use olympus::{jit, Array};
    let table = include_str!("../data/index_modes.txt");
    let values = |t: &str, d: DType| -> Vec<f64> {
        t.split(',')
            .map(|v| match v {
                "nan" => f64::NAN,
                "true" => 1.0,
                "false" => 0.0,
                v => v.parse().unwrap(),
            })
            .map(|v| round_to(v, d))
            .collect()
    };
    let ints = |t: &str| -> Vec<i32> { t.split(',').map(|v| v.parse().unwrap()).collect() };
    let dtype = |t: &str| match t {
        "float32" => DType::Float32,
        "float16" => DType::Float16,
        "int32" => DType::Int32,
        "uint32" => DType::UInt32,
        "bool" => DType::Bool,
        _ => panic!("dtype {t}"),
    };
    let mode = |t: &str| match t {
        "default" => None,
        "fill" | "drop" => Some(IndexMode::Fill),
        "clip" => Some(IndexMode::Clip),
        "wrap" => Some(IndexMode::Wrap),
        "promise_in_bounds" => Some(IndexMode::PromiseInBounds),
        _ => panic!("mode {t}"),
    };
    let fill = |t: &str| (t != "_").then(|| t.parse::<f64>().unwrap());
    let same = |got: &Array, want: &[f64], what: &str| {
        let g = got.to_f64_vec().unwrap();
        assert_eq!(g.len(), want.len(), "{what}");
        for (a, b) in g.iter().zip(want) {
            assert!(
                a == b || (a.is_nan() && b.is_nan()),
                "{what}: got {g:?}, JAX {want:?}"
            );
        }
    };
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let error = t.contains(&"error");
        match t[0] {
            "take" | "take2d" | "take_along_axis" => {
                let d = dtype(t[1]);
                let (axis, rest) = if t[0] == "take2d" {
                    (t[2].trim_start_matches("axis="), &t[3..])
                } else {
                    ("", &t[2..])
                };
                let (m, f, idx) = (mode(rest[0]), fill(rest[1]), ints(rest[2]));
                if error {
                    // JAX rejects these modes here; Olympus takes them.
                    assert!(
                        m == Some(IndexMode::PromiseInBounds) || m == Some(IndexMode::Wrap),
                        "{line}"
                    );
                    continue;
                }
                let want = values(rest[rest.len() - 2], d);
                let m = m.unwrap_or_default();
                let (x, i) = if t[0] == "take" {
                    let xv: Vec<f64> = if d == DType::Bool {
                        vec![1.0, 0.0, 1.0, 1.0, 0.0]
                    } else {
                        vec![10.0, 20.0, 30.0, 40.0, 50.0]
                    };
                    (make(&xv, &[5], d), np::array(idx.clone()).unwrap())
                } else {
                    let xv: Vec<f64> = (0..12).map(f64::from).collect();
                    let is = if t[0] == "take2d" {
                        vec![2, 2]
                    } else {
                        vec![3, 2]
                    };
                    let i = np::reshape(np::array(idx.clone()).unwrap(), &is).unwrap();
                    (make(&xv, &[3, 4], d), i)
                };
                let run = |x: &Array, i: &Array| -> olympus::Result<Array> {
                    match (t[0], axis) {
                        ("take_along_axis", _) => np::take_along_axis_with(x, i, 1, m, f),
                        (_, "None") | (_, "") => np::take_with(x, i, None, m, f),
                        (_, a) => np::take_with(x, i, Some(a.parse().unwrap()), m, f),
                    }
                };
                same(&run(&x, &i).unwrap(), &want, line);
                let jitted = jit(move |(x, i): (Array, Array)| run(&x, &i));
                same(&jitted.call((x, i)).unwrap(), &want, &format!("jit {line}"));
            }
            "index" => {
                let x = np::array([10.0f32, 20.0, 30.0, 40.0, 50.0]).unwrap();
                let (m, f, idx) = (mode(t[2]), fill(t[3]), ints(t[4]));
                let want = values(t[6], DType::Float32);
                let mut at = x.at(idx);
                if let Some(m) = m {
                    at = at.mode(m);
                }
                if let (Some(f), Some(_)) = (f, m) {
                    at = at.fill_value(f);
                }
                same(&at.get().unwrap(), &want, line);
            }
            "scatter" => {
                let d = dtype(t[1]);
                let (op, m, idx) = (t[2], mode(t[3]), ints(t[4]));
                if error || (op == "set" && m == Some(IndexMode::Clip)) {
                    continue;
                }
                let upd = values(t[5], d);
                let want = values(t[7], d);
                let x = make(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5], d);
                let u = make(&upd, &[upd.len()], d);
                let run = move |x: &Array, u: &Array| -> olympus::Result<Array> {
                    let mut at = x.at(idx.clone());
                    if let Some(m) = m {
                        at = at.mode(m);
                    }
                    match op {
                        "set" => at.set(u),
                        "add" => at.add(u),
                        "multiply" => at.multiply(u),
                        "min" => at.min(u),
                        "max" => at.max(u),
                        _ => panic!("op {op}"),
                    }
                };
                same(&run(&x, &u).unwrap(), &want, line);
                let jitted = jit(move |(x, u): (Array, Array)| run(&x, &u));
                same(&jitted.call((x, u)).unwrap(), &want, &format!("jit {line}"));
            }
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked} cases");
}

//! searchsorted/digitize, unique and the set operations, bincount/histogram and quantiles
//! against host references on fresh random inputs (duplicates, NaN, infinities, empty and
//! 0-d queries, non-contiguous views), and their errors on bad input.

use crate::common::*;
use olympus::numpy::{self as np, QuantileMethod, Side};
use olympus::{jit, vmap, Array, Axes, DType, Error};
use rand::Rng;

/// Values with many repeats and, for floats, NaN, infinities and signed zeros.
fn repeaty(r: &mut rand::rngs::StdRng, dtype: DType, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let k = r.random_range(0..20);
            match (dtype.is_floating(), k) {
                (true, 0) => f64::NAN,
                (true, 1) => f64::INFINITY,
                (true, 2) => f64::NEG_INFINITY,
                (true, 3) => -0.0,
                (true, _) => f64::from(r.random_range(-6i32..6)) * 0.5,
                (false, _) if dtype == DType::UInt32 => f64::from(r.random_range(0u32..12)),
                (false, _) => f64::from(r.random_range(-6i32..6)),
            }
        })
        .collect()
}

fn ints(a: &Array) -> Vec<i64> {
    a.to_f64_vec().unwrap().iter().map(|&v| v as i64).collect()
}

const SIZES: &[usize] = &[0, 1, 2, 3, 7, 31, 64, 100, 1000, 4097];

#[test]
fn searchsorted_and_digitize_match_a_host_search() {
    let mut r = rng();
    for dtype in [DType::Int32, DType::UInt32, DType::Float16, DType::Float32] {
        for &n in SIZES {
            let mut a = repeaty(&mut r, dtype, n);
            a.sort_by(|x, y| total(*x, *y));
            let arr = make(&a, &[n], dtype);
            // Queries: 0-d, empty, and a transposed (non-contiguous) 2-D view.
            let base = make(&stored(&repeaty(&mut r, dtype, 15), dtype), &[5, 3], dtype);
            let q2 = np::transpose(&base, None).unwrap();
            let qv = q2.to_f64_vec().unwrap();
            let queries = [
                (make(&[qv[0]], &[], dtype), vec![qv[0]]),
                (make(&[], &[0], dtype), vec![]),
                (q2.clone(), qv.clone()),
            ];
            for (q, vals) in &queries {
                for side in [Side::Left, Side::Right] {
                    let got = np::searchsorted(&arr, q, side, None).unwrap();
                    assert_eq!(got.shape(), q.shape());
                    let want: Vec<i64> = host_searchsorted(&a, vals, side == Side::Right)
                        .iter()
                        .map(|&p| p as i64)
                        .collect();
                    assert_eq!(
                        ints(&got),
                        want,
                        "{dtype} n={n} {side:?} a={a:?} q={vals:?}"
                    );
                }
            }
            // digitize on distinct increasing and decreasing bins.
            if n > 0 && n <= 1000 {
                let mut bins: Vec<f64> = a.iter().copied().filter(|v| v.is_finite()).collect();
                bins.dedup();
                if bins.is_empty() {
                    continue;
                }
                let b = make(&bins, &[bins.len()], dtype);
                let x = &queries[2].1;
                for right in [false, true] {
                    let got = ints(&np::digitize(&queries[2].0, &b, right).unwrap());
                    let want: Vec<i64> = x
                        .iter()
                        .map(|&v| {
                            bins.partition_point(|&e| {
                                if right {
                                    total(e, v).is_lt()
                                } else {
                                    total(e, v).is_le()
                                }
                            }) as i64
                        })
                        .collect();
                    assert_eq!(got, want, "digitize {dtype} right={right} bins={bins:?}");
                    if bins.len() == 1 {
                        continue; // one edge counts as increasing
                    }
                    let rb = np::flip(&b, None).unwrap();
                    let got = ints(&np::digitize(&queries[2].0, &rb, right).unwrap());
                    let m = bins.len() as i64;
                    let want: Vec<i64> = want
                        .iter()
                        .zip(x)
                        .map(|(_, &v)| {
                            m - bins.partition_point(|&e| {
                                if right {
                                    total(e, v).is_lt()
                                } else {
                                    total(e, v).is_le()
                                }
                            }) as i64
                        })
                        .collect();
                    assert_eq!(got, want, "digitize decreasing {dtype} right={right}");
                }
            }
        }
    }
}

#[test]
fn unique_family_matches_the_host() {
    let mut r = rng();
    for dtype in [DType::Bool, DType::Int32, DType::Float16, DType::Float32] {
        for &n in SIZES {
            let v = stored(&repeaty(&mut r, dtype, n), dtype);
            let v: Vec<f64> = if dtype == DType::Bool {
                v.iter().map(|&x| f64::from(u8::from(x != 0.0))).collect()
            } else {
                v
            };
            let shape = if n % 2 == 0 && n > 0 {
                vec![2, n / 2]
            } else {
                vec![n]
            };
            let x = make(&v, &shape, dtype);
            // Host: values in order, NaNs separately (unique joins them, unique_all not).
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&i, &j| total(v[i], v[j]).then(i.cmp(&j)));
            let mut runs: Vec<(f64, usize, usize)> = Vec::new(); // value, first index, count
            for &i in &order {
                match runs.last_mut() {
                    Some(l) if total(l.0, v[i]).is_eq() && !v[i].is_nan() => l.2 += 1,
                    _ => runs.push((v[i], i, 1)),
                }
            }
            let same = |a: &[f64], b: &[f64]| {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
            };
            let u = np::unique_all(&x, None, None).unwrap();
            let vals: Vec<f64> = runs.iter().map(|r| r.0).collect();
            assert!(
                same(&u.values.to_f64_vec().unwrap(), &vals),
                "{dtype} n={n}"
            );
            let idx: Vec<i64> = runs.iter().map(|r| r.1 as i64).collect();
            assert_eq!(ints(&u.indices), idx, "{dtype} n={n} indices");
            let cnt: Vec<i64> = runs.iter().map(|r| r.2 as i64).collect();
            assert_eq!(ints(&u.counts), cnt, "{dtype} n={n} counts");
            assert_eq!(u.inverse_indices.shape(), &shape[..]);
            let back = np::take(&u.values, &u.inverse_indices, None).unwrap();
            assert!(
                same(&back.to_f64_vec().unwrap(), &v),
                "{dtype} n={n} values[inverse]"
            );
            // unique: every NaN is one value.
            let mut joined = vals.clone();
            joined.dedup_by(|a, b| a.is_nan() && b.is_nan());
            let got = np::unique(&x, None, None).unwrap().to_f64_vec().unwrap();
            assert!(same(&got, &joined), "unique {dtype} n={n}");
            // With size: cut or padded with the fill value, under jit too.
            if n > 0 {
                let size = joined.len() + 2;
                let f = olympus::jit(move |x: Array| np::unique(&x, Some(size), Some(1.0)));
                let got = f.call(x.clone()).unwrap().to_f64_vec().unwrap();
                let mut want = joined.clone();
                want.extend([1.0, 1.0]);
                assert!(
                    same(&got, &want),
                    "unique size {dtype} n={n}: {got:?} {want:?}"
                );
                let cut = np::unique(&x, Some(1), None).unwrap().to_f64_vec().unwrap();
                assert!(same(&cut, &joined[..1]));
            }
        }
    }
}

/// `unique_with` along an axis: the distinct slices in lexicographic order of their
/// elements (NaNs equal by default, -0.0 equal to 0.0), each slice's first index, the
/// inverse positions (one per slice) and the counts, against a host sort of the slices;
/// on 2-d and 3-d inputs along each axis, transposed views, empty axes and slices, and
/// with `size` under `jit`.
#[test]
fn unique_slices_along_an_axis_match_the_host() {
    let mut r = rng();
    let shapes: &[&[usize]] = &[
        &[7, 2],
        &[40, 3],
        &[3, 5, 2],
        &[6, 1],
        &[0, 3],
        &[4, 0],
        &[1, 1],
    ];
    for dtype in [
        DType::Bool,
        DType::Int8,
        DType::Int32,
        DType::Float16,
        DType::Float32,
    ] {
        for &shape in shapes {
            for axis in 0..shape.len() {
                let n: usize = shape.iter().product();
                // Few distinct values, so slices repeat.
                let v: Vec<f64> = stored(&repeaty(&mut r, dtype, n), dtype)
                    .iter()
                    .map(|&x| match dtype {
                        DType::Bool => f64::from(u8::from(x != 0.0)),
                        // -1, -0.0, 0, 1 and NaN (clamp keeps NaN).
                        _ => x.clamp(-1.0, 1.0).round(),
                    })
                    .collect();
                // 2-d inputs along axis 0 go in as transposed views.
                let (x, v) = if axis == 0 && shape.len() == 2 {
                    // The same values through a transposed view.
                    let t = make(
                        &map_ref(&[shape[1], shape[0]], |o| v[o[1] * shape[1] + o[0]]),
                        &[shape[1], shape[0]],
                        dtype,
                    );
                    (np::transpose(&t, None).unwrap(), v)
                } else {
                    (make(&v, shape, dtype), v)
                };
                // Host: slice j is the elements with index j along `axis`, in C order.
                let len = shape[axis];
                let slice = |j: usize| -> Vec<f64> {
                    (0..n)
                        .filter(|&i| unravel_c(i, shape)[axis] == j)
                        .map(|i| v[i])
                        .collect()
                };
                let slices: Vec<Vec<f64>> = (0..len).map(slice).collect();
                let cmp = |a: &Vec<f64>, b: &Vec<f64>| {
                    a.iter()
                        .zip(b)
                        .map(|(x, y)| total(*x, *y))
                        .find(|o| !o.is_eq())
                        .unwrap_or(std::cmp::Ordering::Equal)
                };
                let mut order: Vec<usize> = (0..len).collect();
                order.sort_by(|&i, &j| cmp(&slices[i], &slices[j]).then(i.cmp(&j)));
                let mut runs: Vec<(usize, usize)> = Vec::new(); // first slice, count
                let mut inverse = vec![0i64; len];
                for &i in &order {
                    match runs.last_mut() {
                        Some(l) if cmp(&slices[l.0], &slices[i]).is_eq() => l.1 += 1,
                        _ => runs.push((i, 1)),
                    }
                    inverse[i] = runs.len() as i64 - 1;
                }
                let what = format!("{dtype} {shape:?} axis {axis}");
                let o = np::UniqueOptions {
                    axis: Some(axis as isize),
                    return_index: true,
                    return_inverse: true,
                    return_counts: true,
                    ..Default::default()
                };
                let u = np::unique_with(&x, o).unwrap();
                let mut want_shape = shape.to_vec();
                want_shape[axis] = runs.len();
                assert_eq!(u.values.shape(), want_shape.as_slice(), "{what}");
                let got = u.values.to_f64_vec().unwrap();
                let want = map_ref(&want_shape, |idx| {
                    let mut src = idx.to_vec();
                    src[axis] = runs[idx[axis]].0;
                    v[ravel_c(&src, shape)]
                });
                let same = got.len() == want.len()
                    && got.iter().zip(&want).all(|(a, b)| total(*a, *b).is_eq());
                assert!(same, "{what}: {got:?} {want:?}");
                let first: Vec<i64> = runs.iter().map(|r| r.0 as i64).collect();
                assert_eq!(ints(&u.indices.unwrap()), first, "{what} indices");
                assert_eq!(ints(&u.inverse.unwrap()), inverse, "{what} inverse");
                let counts: Vec<i64> = runs.iter().map(|r| r.1 as i64).collect();
                assert_eq!(ints(&u.counts.unwrap()), counts, "{what} counts");
                // With size, under jit: the slices, then slices of the fill value.
                if len > 0 {
                    let size = runs.len() + 1;
                    let f = jit(move |x: Array| {
                        let o = np::UniqueOptions {
                            size: Some(size),
                            fill_value: Some(1.0),
                            ..o
                        };
                        np::unique_with(&x, o).map(|u| (u.values, u.counts.unwrap()))
                    });
                    let (vals, cnt) = f.call(x.clone()).unwrap();
                    want_shape[axis] = size;
                    let want = map_ref(&want_shape, |idx| match runs.get(idx[axis]) {
                        Some(run) => {
                            let mut src = idx.to_vec();
                            src[axis] = run.0;
                            v[ravel_c(&src, shape)]
                        }
                        None => 1.0,
                    });
                    let got = vals.to_f64_vec().unwrap();
                    assert!(
                        got.iter().zip(&want).all(|(a, b)| total(*a, *b).is_eq()),
                        "{what} size: {got:?} {want:?}"
                    );
                    let mut counts = counts.clone();
                    counts.push(0);
                    assert_eq!(ints(&cnt), counts, "{what} size counts");
                }
            }
        }
    }
}

#[test]
fn set_operations_match_the_host() {
    let mut r = rng();
    for &(n1, n2) in &[(0, 3), (5, 0), (1, 1), (10, 7), (100, 300), (1000, 33)] {
        let a: Vec<i32> = (0..n1).map(|_| r.random_range(-20..20)).collect();
        let b: Vec<i32> = (0..n2).map(|_| r.random_range(-20..20)).collect();
        let (x, y) = (np::array(a.clone()).unwrap(), np::array(b.clone()).unwrap());
        let sa: std::collections::BTreeSet<i32> = a.iter().copied().collect();
        let sb: std::collections::BTreeSet<i32> = b.iter().copied().collect();
        let v = |s: Vec<&i32>| s.into_iter().map(|&v| i64::from(v)).collect::<Vec<_>>();
        let i = |a: Result<Array, Error>| ints(&a.unwrap());
        assert_eq!(
            i(np::intersect1d(&x, &y, false, None, None)),
            v(sa.intersection(&sb).collect())
        );
        assert_eq!(
            i(np::union1d(&x, &y, None, None)),
            v(sa.union(&sb).collect())
        );
        assert_eq!(
            i(np::setdiff1d(&x, &y, false, None, None)),
            v(sa.difference(&sb).collect())
        );
        assert_eq!(
            i(np::setxor1d(&x, &y, false, None, None)),
            v(sa.symmetric_difference(&sb).collect())
        );
        // Sized, under jit: the same values first.
        let k = sa.symmetric_difference(&sb).count();
        let f = olympus::jit(
            move |(x, y): (Array, Array)| -> olympus::Result<Vec<Array>> {
                Ok(vec![
                    np::setxor1d(&x, &y, false, Some(k + 1), Some(99.0))?,
                    np::intersect1d(&x, &y, false, Some(3), Some(99.0))?,
                    np::setdiff1d(&x, &y, false, Some(4), Some(99.0))?,
                ])
            },
        );
        let got = f.call((x.clone(), y.clone())).unwrap();
        let pad = |mut w: Vec<i64>, s: usize| {
            w.resize(s.max(w.len()), 99);
            w.truncate(s);
            w
        };
        assert_eq!(
            ints(&got[0]),
            pad(v(sa.symmetric_difference(&sb).collect()), k + 1)
        );
        assert_eq!(ints(&got[1]), pad(v(sa.intersection(&sb).collect()), 3));
        assert_eq!(ints(&got[2]), pad(v(sa.difference(&sb).collect()), 4));
        let isin: Vec<i64> = a.iter().map(|v| i64::from(sb.contains(v))).collect();
        assert_eq!(i(np::isin(&x, &y, false)), isin);
    }
}

/// The search kernel under `vmap` (rows batched, queries batched, both) and `jit`: each
/// batch searches its own row, as a loop over the rows.
#[test]
fn searchsorted_batches_and_traces() {
    let mut r = rng();
    let d = DType::Float32;
    let (b, n, m) = (4, 37, 9);
    let mut rows: Vec<Vec<f64>> = (0..b).map(|_| repeaty(&mut r, d, n)).collect();
    for row in &mut rows {
        row.sort_by(|x, y| total(*x, *y));
    }
    let qs: Vec<Vec<f64>> = (0..b).map(|_| repeaty(&mut r, d, m)).collect();
    let flat = |v: &[Vec<f64>]| v.concat();
    let a2 = make(&flat(&rows), &[b, n], d);
    let q2 = make(&flat(&qs), &[b, m], d);
    let search = |row: &[f64], q: &[f64]| -> Vec<i64> {
        host_searchsorted(row, q, true)
            .iter()
            .map(|&p| p as i64)
            .collect()
    };
    let f = |(a, q): (Array, Array)| np::searchsorted(&a, &q, Side::Right, None);
    // Both batched, then the rows shared, then the queries shared.
    let both = vmap(f, (0, 0), 0)((a2.clone(), q2.clone())).unwrap();
    let want: Vec<i64> = (0..b).flat_map(|i| search(&rows[i], &qs[i])).collect();
    assert_eq!(ints(&both), want);
    let a1 = make(&rows[1], &[n], d);
    let shared = vmap(f, (Axes::Unmapped, 0), 0)((a1, q2.clone())).unwrap();
    let want: Vec<i64> = (0..b).flat_map(|i| search(&rows[1], &qs[i])).collect();
    assert_eq!(ints(&shared), want);
    let q1 = make(&qs[2], &[m], d);
    let rowwise = vmap(f, (0, Axes::Unmapped), 0)((a2, q1)).unwrap();
    let want: Vec<i64> = (0..b).flat_map(|i| search(&rows[i], &qs[2])).collect();
    assert_eq!(ints(&rowwise), want);
    let traced = jit(f).call((make(&rows[0], &[n], d), q2)).unwrap();
    let want: Vec<i64> = (0..b).flat_map(|i| search(&rows[0], &qs[i])).collect();
    assert_eq!(ints(&traced), want);
}

/// Float sums into a few elements (gathered in workgroup memory) keep IEEE zeros: -0.0
/// plus updates that cancel is +0.0, plus -0.0 stays -0.0, and untouched stays.
#[test]
fn scatter_sums_keep_signed_zeros() {
    let base = np::full(&[4], -0.0, Some(DType::Float32)).unwrap();
    let pos = np::array(vec![0i32, 0, 1, 1, 2]).unwrap();
    let got = base
        .at(&pos)
        .add(np::array(vec![1.0f32, -1.0, 2.0, -2.0, -0.0]).unwrap())
        .unwrap();
    let bits: Vec<u32> = got
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits, vec![0, 0, 0x8000_0000, 0x8000_0000]);
}

/// A scatter of one broadcast value (read from its single element) gives the bits of the
/// same scatter from a buffer of that value: every dtype and mode, duplicate and dropped
/// positions, a few and many elements (the workgroup-memory sums), an offset scalar.
#[test]
fn scatters_of_one_broadcast_value_match_a_buffer_of_it() {
    use olympus::lax::{self, ScatterMode};
    let mut r = rng();
    for (len, count) in [(7usize, 40usize), (3000, 9000)] {
        let pos: Vec<i32> = (0..count)
            .map(|_| r.random_range(-2..len as i32 + 2))
            .collect();
        let pos = np::array(pos).unwrap();
        for dtype in DType::ALL {
            let (base, _) = random_array(&mut r, &[len], dtype, false);
            let (pool, _) = random_array(&mut r, &[5], dtype, false);
            // The third element of a row: a scalar view at an offset.
            let one = lax::reshape(&lax::slice(&pool, &[2], &[3], None).unwrap(), &[]).unwrap();
            let view = np::broadcast_to(&one, &[count]).unwrap();
            let buffer = np::copy(&view).unwrap();
            for mode in [
                ScatterMode::Set,
                ScatterMode::Add,
                ScatterMode::Mul,
                ScatterMode::Min,
                ScatterMode::Max,
            ] {
                let want = lax::scatter(&base, &pos, &buffer, mode).unwrap();
                let got = lax::scatter(&base, &pos, &view, mode).unwrap();
                assert_eq!(
                    words(&got),
                    words(&want),
                    "{mode:?} of one {dtype} into {len} from {count}"
                );
            }
        }
    }
}

#[test]
fn bincount_and_histogram_match_the_host() {
    let mut r = rng();
    for &n in SIZES {
        let x: Vec<i32> = (0..n).map(|_| r.random_range(0..37)).collect();
        let w: Vec<f32> = (0..n).map(|_| r.random_range(0.0f32..2.0)).collect();
        let xa = np::array(x.clone()).unwrap();
        let wa = np::array(w.clone()).unwrap();
        let len = x.iter().map(|&v| v as usize + 1).max().unwrap_or(0).max(5);
        let mut counts = vec![0i64; len];
        let mut sums = vec![0f64; len];
        for (&v, &wv) in x.iter().zip(&w) {
            counts[v as usize] += 1;
            sums[v as usize] += f64::from(wv);
        }
        assert_eq!(ints(&np::bincount(&xa, None, 5, None).unwrap()), counts);
        let got = np::bincount(&xa, Some(&wa), 5, None)
            .unwrap()
            .to_f64_vec()
            .unwrap();
        for (g, s) in got.iter().zip(&sums) {
            assert!((g - s).abs() <= 1e-5 * s.abs().max(1.0), "{got:?} {sums:?}");
        }
        // Histogram of floats over 7 bins of a fixed range: bin k holds [lo + k*h, lo + (k+1)*h).
        let v: Vec<f32> = (0..n).map(|_| r.random_range(-1.5f32..1.5)).collect();
        let (h, e) = np::histogram(
            np::array(v.clone()).unwrap(),
            7,
            Some((-1.0, 1.0)),
            None,
            false,
        )
        .unwrap();
        let edges: Vec<f32> = e.to_vec().unwrap();
        let mut want = vec![0f64; 7];
        for &x in &v {
            if x >= edges[0] && x <= edges[7] {
                let k = edges.partition_point(|&b| b <= x).clamp(1, 7) - 1;
                want[k] += 1.0;
            }
        }
        assert_eq!(h.to_f64_vec().unwrap(), want, "n={n}");
    }
}

/// Histograms of evenly spaced bins against a host binary search of the edges they return:
/// values on every edge and a float32 step either side of it, outside the range, NaN and
/// infinities; bin counts from 1 to 1000; and ranges whose bins are narrower than the
/// values' rounding (where the spacing alone cannot place them).
#[test]
fn histogram_bins_match_a_host_search_of_their_edges() {
    let mut r = rng();
    let cases: [(usize, Option<(f64, f64)>); 7] = [
        (1, None),
        (3, Some((-2.0, 2.0))),
        (7, Some((-1.0, 1.0))),
        (100, None),
        (1000, Some((0.1, 0.7))),
        (100, Some((1.0e6, 1.0e6 + 1.0))),
        (64, Some((-3.0e-38, 3.0e-38))),
    ];
    for (bins, range) in cases {
        let (lo, hi) = range.unwrap_or((-1.0, 1.0));
        let mut v: Vec<f32> = (0..20_000)
            .map(|_| r.random_range(lo - (hi - lo) * 0.1..hi + (hi - lo) * 0.1) as f32)
            .collect();
        // Every edge, and the floats just below and above it.
        let edges: Vec<f32> = np::histogram_bin_edges(np::array(v.clone()).unwrap(), bins, range)
            .unwrap()
            .to_vec()
            .unwrap();
        for &e in &edges {
            let (below, above) = (e.to_bits().wrapping_sub(1), e.to_bits().wrapping_add(1));
            v.extend([e, f32::from_bits(below), f32::from_bits(above)]);
        }
        if range.is_some() {
            v.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]);
        }
        let (h, e) =
            np::histogram(np::array(v.clone()).unwrap(), bins, range, None, false).unwrap();
        let edges: Vec<f32> = e.to_vec().unwrap();
        assert_eq!(edges.len(), bins + 1);
        let mut want = vec![0f64; bins];
        for &x in &v {
            if x >= edges[0] && x <= edges[bins] {
                let k = edges.partition_point(|&b| b <= x).clamp(1, bins) - 1;
                want[k] += 1.0;
            }
        }
        assert_eq!(h.to_f64_vec().unwrap(), want, "{bins} bins over {range:?}");
    }
    // Explicit edges: open-ended with infinities, ending at the largest float, a repeated
    // last edge; in float32, float16 and bfloat16 (JAX's rule: the last bin is closed).
    let inf = f32::INFINITY;
    let samples = [
        inf,
        -inf,
        f32::NAN,
        f32::MAX,
        -f32::MAX,
        1.0,
        0.5,
        0.0,
        -0.0,
        -1.0,
        5.0,
        1e30,
    ];
    for edges in [
        vec![0.0f32, 1.0, inf],
        vec![-inf, 0.0, 1.0],
        vec![-inf, inf],
        vec![0.0, 1.0, f32::MAX],
        vec![0.0, 1.0, 1.0],
        vec![1.0, 5.0],
    ] {
        for dtype in [DType::Float32, DType::Float16, DType::BFloat16] {
            let e = np::astype(np::array(edges.clone()).unwrap(), dtype).unwrap();
            let x = np::astype(np::array(samples.to_vec()).unwrap(), dtype).unwrap();
            let (ev, xv) = (e.to_f64_vec().unwrap(), x.to_f64_vec().unwrap());
            let nb = ev.len() - 1;
            let mut want = vec![0f64; nb];
            for &v in &xv {
                if v >= ev[0] && v <= ev[nb] {
                    let k = ev.partition_point(|&b| b <= v).clamp(1, nb) - 1;
                    want[k] += 1.0;
                }
            }
            let (h, _) = np::histogram(&x, &e, None, None, false).unwrap();
            assert_eq!(h.to_f64_vec().unwrap(), want, "{dtype} edges {ev:?}");
        }
    }
}

#[test]
fn quantiles_match_the_host_for_every_method() {
    let mut r = rng();
    let methods = [
        QuantileMethod::Linear,
        QuantileMethod::Lower,
        QuantileMethod::Higher,
        QuantileMethod::Midpoint,
        QuantileMethod::Nearest,
    ];
    for &n in &[1usize, 2, 3, 10, 64, 129, 1000] {
        let (x, v) = random_array(&mut r, &[3, n], DType::Float32, true);
        let qs = [0.0f32, 0.1, 0.25, 0.5, 0.9, 1.0];
        let q = np::array(qs.to_vec()).unwrap();
        for m in methods {
            let got: Vec<f32> = np::quantile(&x, &q, Some(&[1]), m, false)
                .unwrap()
                .to_vec()
                .unwrap();
            for row in 0..3 {
                let mut s: Vec<f64> = v[row * n..(row + 1) * n].to_vec();
                s.sort_by(|a, b| a.partial_cmp(b).unwrap());
                for (k, &qq) in qs.iter().enumerate() {
                    let pos = qq * (n as f32 - 1.0);
                    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
                    let hw = f64::from(pos - pos.floor());
                    let want = match m {
                        QuantileMethod::Linear => s[lo] * (1.0 - hw) + s[hi] * hw,
                        QuantileMethod::Lower => s[lo],
                        QuantileMethod::Higher => s[hi],
                        QuantileMethod::Midpoint => (s[lo] + s[hi]) * 0.5,
                        _ => {
                            if hw <= 0.5 {
                                s[lo]
                            } else {
                                s[hi]
                            }
                        }
                    };
                    let g = f64::from(got[k * 3 + row]);
                    // Interpolating in float32 rounds at the scale of the two values, which
                    // may be far larger than their blend.
                    let scale = want.abs().max(s[lo].abs()).max(s[hi].abs());
                    assert!(
                        (g - want).abs() <= 4.0 * ulp_of(scale, DType::Float32).max(1e-30),
                        "{m:?} n={n} q={qq}: {g} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn bad_inputs_are_errors_naming_the_function() {
    let a = np::reshape(np::arange(6).unwrap(), &[2, 3]).unwrap();
    let named = |r: Result<Array, Error>, f: &str| {
        let e = r.expect_err(f).to_string();
        assert!(e.contains(f), "{f}: {e}");
    };
    named(np::searchsorted(&a, 1, Side::Left, None), "searchsorted");
    let bad_sorter = np::array([0, 7, 1]).unwrap();
    named(
        np::searchsorted([1, 2, 3], 1, Side::Left, Some(&bad_sorter)),
        "searchsorted",
    );
    named(np::digitize([1.0f32], &a, false), "digitize");
    named(np::bincount([1.5f32], None, 0, None), "bincount");
    named(np::bincount(&a, None, 0, None), "bincount");
    let edges = np::array([0.0f32, 2.0, 1.0]).unwrap();
    named(
        np::histogram([1.0f32], &edges, None, None, false).map(|h| h.0),
        "histogram",
    );
    named(
        np::histogram([1.0f32], 0, None, None, false).map(|h| h.0),
        "histogram",
    );
    named(
        np::histogram([1.0f32], 3, Some((2.0, 1.0)), None, false).map(|h| h.0),
        "histogram",
    );
    named(
        np::quantile([1.0f32], 1, None, QuantileMethod::Linear, false),
        "quantile",
    );
    named(
        np::quantile(
            [1.0f32],
            a.astype(DType::Float32).unwrap(),
            None,
            QuantileMethod::Linear,
            false,
        ),
        "quantile",
    );
    named(
        np::interp([1.0f32], [1.0f32, 2.0], [1.0f32], None, None, None),
        "interp",
    );
    named(
        np::unique(np::zeros(&[0], DType::Int32).unwrap(), Some(2), None),
        "unique",
    );
    named(np::diff(3, 1, -1, None, None), "diff");
    named(np::diff([1, 2], 1, 1, None, None), "diff");
    named(
        np::average(&a, None, Some(&np::array([1.0f32]).unwrap()), false),
        "average",
    );
    named(
        np::cov(
            np::zeros(&[2, 2, 2], DType::Float32).unwrap(),
            None,
            true,
            false,
            None,
        ),
        "cov",
    );
    // Under jit a data-dependent size is a tracing error naming the function.
    type F = fn(&Array) -> olympus::Result<Array>;
    let cases: [(&str, F); 3] = [
        ("unique", |x| np::unique(x, None, None)),
        ("bincount", |x| np::bincount(x, None, 0, None)),
        ("union1d", |x| np::union1d(x, x, None, None)),
    ];
    for (name, f) in cases {
        let j = olympus::jit(move |x: Array| f(&x));
        let e = j.call(np::array([1, 2]).unwrap()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::Tracing { .. }), "{name}: {msg}");
        assert!(
            msg.contains(name) && msg.contains("size") || msg.contains("length"),
            "{name}: {msg}"
        );
    }
}

//! Shared test helpers: random inputs, f64 references, ulp-aware comparison.

use half::{bf16, f16};
use olympus::{numpy as np, Array, DType};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub fn rng() -> StdRng {
    // Fresh inputs on every run; the seed is printed so a failure can be replayed.
    let seed: u64 = std::env::var("OLYMPUS_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("OLYMPUS_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// Random values of `dtype` as f64 (exactly representable in the dtype).
pub fn random_values(rng: &mut StdRng, dtype: DType, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match dtype {
            DType::Bool => f64::from(u8::from(rng.random::<bool>())),
            DType::Int8 => f64::from(rng.random::<i8>()),
            DType::UInt8 => f64::from(rng.random::<u8>()),
            DType::Int16 => f64::from(rng.random::<i16>()),
            DType::UInt16 => f64::from(rng.random::<u16>()),
            DType::BFloat16 => bf16::from_f32(rng.random_range(-8.0f32..8.0)).to_f64(),
            DType::Int32 => f64::from(rng.random::<i32>()),
            DType::UInt32 => f64::from(rng.random::<u32>()),
            DType::Float16 => f16::from_f32(rng.random_range(-8.0f32..8.0)).to_f64(),
            DType::Float32 => f64::from(rng.random_range(-8.0f32..8.0)),
        })
        .collect()
}

/// An array of `dtype` holding `values` (which must be representable).
pub fn make(values: &[f64], shape: &[usize], dtype: DType) -> Array {
    let a = match dtype {
        DType::Bool => {
            Array::from_slice(&values.iter().map(|&v| v != 0.0).collect::<Vec<_>>(), shape)
        }
        DType::Int8 => {
            Array::from_slice(&values.iter().map(|&v| v as i8).collect::<Vec<_>>(), shape)
        }
        DType::UInt8 => {
            Array::from_slice(&values.iter().map(|&v| v as u8).collect::<Vec<_>>(), shape)
        }
        DType::Int16 => {
            Array::from_slice(&values.iter().map(|&v| v as i16).collect::<Vec<_>>(), shape)
        }
        DType::UInt16 => {
            Array::from_slice(&values.iter().map(|&v| v as u16).collect::<Vec<_>>(), shape)
        }
        DType::BFloat16 => Array::from_slice(
            &values
                .iter()
                .map(|&v| bf16::from_f64(v))
                .collect::<Vec<_>>(),
            shape,
        ),
        DType::Int32 => {
            Array::from_slice(&values.iter().map(|&v| v as i32).collect::<Vec<_>>(), shape)
        }
        DType::UInt32 => {
            Array::from_slice(&values.iter().map(|&v| v as u32).collect::<Vec<_>>(), shape)
        }
        DType::Float16 => Array::from_slice(
            &values.iter().map(|&v| f16::from_f64(v)).collect::<Vec<_>>(),
            shape,
        ),
        DType::Float32 => {
            Array::from_slice(&values.iter().map(|&v| v as f32).collect::<Vec<_>>(), shape)
        }
    };
    a.expect("upload")
}

/// Rounds an f64 to the dtype's representable value (the reference's final rounding;
/// narrow integers wrap).
pub fn round_to(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => f16::from_f64(v).to_f64(),
        DType::BFloat16 => bf16::from_f64(v).to_f64(),
        DType::Float32 => f64::from(v as f32),
        DType::Int32 if v.is_finite() => f64::from(v as i128 as i32),
        DType::UInt32 if v.is_finite() => f64::from(v as i128 as u32),
        DType::Int8 => f64::from(v as i64 as i8),
        DType::UInt8 => f64::from(v as i64 as u8),
        DType::Int16 => f64::from(v as i64 as i16),
        DType::UInt16 => f64::from(v as i64 as u16),
        _ => v,
    }
}

/// The spacing of `dtype` values at magnitude `x`.
pub fn ulp_of(x: f64, dtype: DType) -> f64 {
    match dtype {
        DType::Float16 => 2f64.powi(x.abs().max(6.103515625e-5).log2().floor() as i32 - 10),
        DType::BFloat16 => 2f64.powi(x.abs().max(1.2e-38).log2().floor() as i32 - 7),
        _ => 2f64.powi(x.abs().max(1.2e-38).log2().floor() as i32 - 23),
    }
}

/// Distance in units in the last place of `dtype` between two finite values.
pub fn ulps(a: f64, b: f64, dtype: DType) -> f64 {
    (a - b).abs() / ulp_of(a.abs().max(b.abs()), dtype)
}

/// Asserts `got` matches `want` element by element: exact for ints and bools; for floats,
/// NaN exactly where the reference has NaN, infinities equal, and finite values within
/// `max_ulps`.
pub fn assert_close(what: &str, got: &Array, want: &[f64], dtype: DType, max_ulps: f64) {
    assert_eq!(got.dtype(), dtype, "{what}: dtype");
    let g = got.to_f64_vec().expect("readback");
    assert_eq!(g.len(), want.len(), "{what}: length");
    for (i, (&x, &y)) in g.iter().zip(want).enumerate() {
        let ok = if y.is_nan() {
            x.is_nan()
        } else if x.is_nan() {
            false
        } else if !dtype.is_floating() || y.is_infinite() || x.is_infinite() {
            x == y
        } else {
            ulps(x, y, dtype) <= max_ulps
        };
        assert!(ok, "{what}: element {i}: got {x}, want {y} ({dtype})");
    }
}

/// `a + b` in `d` as XLA computes it (integers wrap, bool is `or`, floats in float32
/// rounded once).
#[allow(dead_code)]
pub fn add_ref(a: f64, b: f64, d: DType) -> f64 {
    match d {
        DType::Bool => f64::from(u8::from(a != 0.0 || b != 0.0)),
        d if d.is_integer() => round_to(a + b, d),
        d => round_to(f64::from(a as f32 + b as f32), d),
    }
}

/// `a * b` in `d` as XLA computes it (integers wrap, bool is `and`, floats in float32
/// rounded once).
#[allow(dead_code)]
pub fn mul_ref(a: f64, b: f64, d: DType) -> f64 {
    match d {
        DType::Bool => f64::from(u8::from(a != 0.0 && b != 0.0)),
        d if d.is_integer() => round_to(((a as i128).wrapping_mul(b as i128) as u32) as f64, d),
        d => round_to(f64::from(a as f32 * b as f32), d),
    }
}

/// The reversed scan (`lax.cumsum(x, reverse=True)`) as XLA computes it: 16-element rows
/// from the start, each element the combination of its row from it to the row's end in
/// order (XLA folds each short window, not a running sum from the end), offset by the
/// reversed scan of the totals of the rows after it.
#[allow(dead_code)]
pub fn xla_scan_reversed(v: &[f64], d: DType, prod: bool) -> Vec<f64> {
    let op = |a: f64, b: f64| {
        if prod {
            mul_ref(a, b, d)
        } else {
            add_ref(a, b, d)
        }
    };
    let fold = |r: &[f64]| {
        r.iter()
            .fold(if prod { 1.0 } else { 0.0 }, |a, &x| op(a, x))
    };
    let suffixes = |r: &[f64]| -> Vec<f64> { (0..r.len()).map(|k| fold(&r[k..])).collect() };
    if v.len() <= 16 {
        return suffixes(v);
    }
    let totals: Vec<f64> = v.chunks(16).map(fold).collect();
    let pre = xla_scan_reversed(&totals, d, prod);
    let mut out = Vec::with_capacity(v.len());
    for (i, r) in v.chunks(16).enumerate() {
        let last = i + 1 == totals.len();
        out.extend(
            suffixes(r)
                .into_iter()
                .map(|x| if last { x } else { op(x, pre[i + 1]) }),
        );
    }
    out
}

/// `cumsum` (or with `prod`, `cumprod`) of `v` in `d` as JAX computes it on CPU: XLA
/// rewrites the cumulative reduction into sequential scans of 16-element rows, scans the
/// rows' totals the same way, and offsets each row after the first by the total before
/// it, every operation rounded to `d` (integers wrap).
#[allow(dead_code)]
pub fn xla_scan(v: &[f64], d: DType, prod: bool) -> Vec<f64> {
    let op = |a: f64, b: f64| {
        if prod {
            mul_ref(a, b, d)
        } else {
            add_ref(a, b, d)
        }
    };
    let seq = |r: &[f64]| -> Vec<f64> {
        r.iter()
            .scan(if prod { 1.0 } else { 0.0 }, |acc, &x| {
                *acc = op(*acc, x);
                Some(*acc)
            })
            .collect()
    };
    if v.len() <= 16 {
        return seq(v);
    }
    let rows: Vec<Vec<f64>> = v.chunks(16).map(seq).collect();
    let totals: Vec<f64> = rows.iter().map(|r| r[r.len() - 1]).collect();
    let pre = xla_scan(&totals, d, prod);
    let mut out = Vec::with_capacity(v.len());
    for (i, r) in rows.iter().enumerate() {
        out.extend(
            r.iter()
                .map(|&x| if i == 0 { x } else { op(x, pre[i - 1]) }),
        );
    }
    out
}

/// The default float tolerance of exact operations: correctly rounded.
pub const EXACT: f64 = 0.0;

/// Every dtype, the 8- and 16-bit ones included: the generic sweeps run over all of them,
/// with references that wrap and round as XLA does.
#[allow(dead_code)]
pub fn every_dtype() -> [DType; 10] {
    DType::ALL
}

#[allow(dead_code)]
pub fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().expect("f32 readback")
}

#[allow(dead_code)]
pub fn scalar_f32(v: f32) -> Array {
    np::asarray(v).expect("scalar")
}

/// The flat index into an operand of `in_shape` that NumPy broadcasting reads for output
/// element `flat` of `out_shape`.
pub fn bcast_index(out_shape: &[usize], in_shape: &[usize], mut flat: usize) -> usize {
    let pad = out_shape.len() - in_shape.len();
    let mut idx = vec![0usize; out_shape.len()];
    for d in (0..out_shape.len()).rev() {
        idx[d] = flat % out_shape[d].max(1);
        flat /= out_shape[d].max(1);
    }
    let mut off = 0;
    let mut stride = 1;
    for d in (0..in_shape.len()).rev() {
        let i = if in_shape[d] == 1 { 0 } else { idx[pad + d] };
        off += i * stride;
        stride *= in_shape[d];
    }
    off
}

/// The broadcast shape, computed independently of the crate.
pub fn bshape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|i| {
            let x = if i + a.len() >= r {
                a[i + a.len() - r]
            } else {
                1
            };
            let y = if i + b.len() >= r {
                b[i + b.len() - r]
            } else {
                1
            };
            if x == 1 {
                y
            } else {
                x
            }
        })
        .collect()
}

/// Multi-index of flat position `i` in C order.
#[allow(dead_code)]
pub fn unravel_c(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d].max(1);
        i /= shape[d].max(1);
    }
    idx
}

/// Flat C-order position of a multi-index.
#[allow(dead_code)]
pub fn ravel_c(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

/// The reference of an index-mapping op: output element at multi-index `o` is
/// `src(o)` (an f64 computed on the host).
#[allow(dead_code)]
pub fn map_ref(out_shape: &[usize], src: impl Fn(&[usize]) -> f64) -> Vec<f64> {
    let n: usize = out_shape.iter().product();
    (0..n).map(|i| src(&unravel_c(i, out_shape))).collect()
}

/// Values as the array will hold them (bools as 0/1).
#[allow(dead_code)]
pub fn stored(v: &[f64], dtype: DType) -> Vec<f64> {
    v.iter()
        .map(|&e| {
            if dtype == DType::Bool {
                f64::from(u8::from(e != 0.0))
            } else {
                e
            }
        })
        .collect()
}

/// A random array of `shape` and `dtype` and its values; with `transposed`, the array is
/// a non-contiguous view (a transpose of a contiguous array) holding the same values.
#[allow(dead_code)]
pub fn random_array(
    rng: &mut StdRng,
    shape: &[usize],
    dtype: DType,
    transposed: bool,
) -> (Array, Vec<f64>) {
    let n: usize = shape.iter().product();
    let v = stored(&random_values(rng, dtype, n), dtype);
    if !transposed || shape.len() < 2 {
        return (make(&v, shape, dtype), v);
    }
    // Store the transpose, then transpose it back as a view.
    let r = shape.len();
    let tshape: Vec<usize> = shape.iter().rev().copied().collect();
    let tv = map_ref(&tshape, |o| {
        let idx: Vec<usize> = o.iter().rev().copied().collect();
        v[ravel_c(&idx, shape)]
    });
    let t = make(&tv, &tshape, dtype);
    let perm: Vec<isize> = (0..r as isize).rev().collect();
    (np::transpose(&t, Some(&perm)).unwrap(), v)
}

/// An array's elements as raw 32-bit words (float16 widened, bool as 0/1).
#[allow(dead_code)]
pub fn words(a: &Array) -> Vec<u32> {
    match a.dtype() {
        DType::Float32 => a
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|f| f.to_bits())
            .collect(),
        DType::Float16 => a
            .to_vec::<half::f16>()
            .unwrap()
            .iter()
            .map(|f| u32::from(f.to_bits()))
            .collect(),
        DType::Int32 => a
            .to_vec::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v as u32)
            .collect(),
        DType::Bool => a
            .to_vec::<bool>()
            .unwrap()
            .iter()
            .map(|&v| u32::from(v))
            .collect(),
        DType::UInt32 => a.to_vec::<u32>().unwrap(),
        DType::BFloat16 => a
            .to_vec::<half::bf16>()
            .unwrap()
            .iter()
            .map(|f| u32::from(f.to_bits()))
            .collect(),
        // Narrow integers as their 32-bit values (sign-extended).
        _ => a
            .astype(if a.dtype().is_signed() {
                DType::Int32
            } else {
                DType::UInt32
            })
            .unwrap()
            .to_f64_vec()
            .unwrap()
            .iter()
            .map(|&v| v as i64 as u32)
            .collect(),
    }
}

/// A stable host sort's positions in JAX's order: NaN last (first when `descending`),
/// -0.0 equal to 0.0, ties in their original order either way.
#[allow(dead_code)]
pub fn host_argsort_by(g: &[f64], descending: bool) -> Vec<usize> {
    let mut p: Vec<usize> = (0..g.len()).collect();
    p.sort_by(|&a, &b| {
        let (x, y) = if descending {
            (g[b], g[a])
        } else {
            (g[a], g[b])
        };
        match (x.is_nan(), y.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            _ => x.partial_cmp(&y).unwrap(),
        }
    });
    p
}

/// JAX's sort order: NaN after everything (-0.0 and 0.0 equal).
#[allow(dead_code)]
pub fn total(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Where each of `queries` goes into the sorted `row` (NumPy's `searchsorted` in JAX's
/// order): before the elements equal to it, or with `right` after them.
#[allow(dead_code)]
pub fn host_searchsorted(row: &[f64], queries: &[f64], right: bool) -> Vec<f64> {
    queries
        .iter()
        .map(|&v| {
            row.partition_point(|&x| {
                let o = total(x, v);
                o.is_lt() || (right && o.is_eq())
            }) as f64
        })
        .collect()
}

/// Asserts `r` failed with an error of kind `kind` (the `olympus::Error` variant:
/// "ShapeMismatch", "InvalidDType", "InvalidArgument", ...) whose message starts with
/// `func:`, the name of the function the caller called.
#[track_caller]
pub fn assert_error<T: std::fmt::Debug>(r: olympus::Result<T>, func: &str, kind: &str) {
    let e = match r {
        Ok(v) => panic!("{func}: expected an error, got {v:?}"),
        Err(e) => e,
    };
    let (msg, dbg) = (e.to_string(), format!("{e:?}"));
    assert!(
        msg.starts_with(&format!("{func}:")),
        "the error should name `{func}`: {msg}"
    );
    let variant = dbg.split(|c: char| !c.is_ascii_alphanumeric()).next();
    assert_eq!(
        variant,
        Some(kind),
        "{func}: expected a {kind} error, got {dbg}"
    );
}

/// The index of the first maximum (or minimum) of `v`, as argmax and argmin give it; the
/// first NaN counts as the extreme.
pub fn first_extreme(v: &[f64], max: bool) -> f64 {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i as f64;
    }
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if (max && x > v[best]) || (!max && x < v[best]) {
            best = i;
        }
    }
    best as f64
}

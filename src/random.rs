//! Random numbers: JAX's counter-based keys (Threefry-2x32), generated on the device,
//! bit-identical to JAX's default configuration (`jax_threefry_partitionable = True`).
//!
//! A *key* is an ordinary uint32 array of shape `[..., 2]`: no hidden state, so the same key
//! gives the same numbers on every adapter and every run, and keys pass through
//! transformations as pytree leaves. [`split`] derives independent keys, [`fold_in`] mixes
//! data into a key; never use one key twice. Every sampler draws [`bits`] from the
//! `threefry2x32` primitive (counters from the flat index) and transforms them as JAX
//! does; keys, bits and the simple samplers are one generated kernel each.
//!
//! ```
//! use olympus::random;
//! let key = random::key(0)?;
//! let (k1, k2) = random::split2(&key)?;
//! let u = random::uniform(&k1, &[3], 0.0, 1.0, olympus::DType::Float32)?;
//! let n = random::normal(&k2, &[2, 2], olympus::DType::Float32)?;
//! assert_eq!(u.shape(), &[3]);
//! assert_eq!(n.shape(), &[2, 2]);
//! # Ok::<(), olympus::Error>(())
//! ```
//!
//! For NumPy habits, [`default_rng`] gives a [`Generator`] that holds a key and splits it on
//! every call.

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{fmt_shape, Error, Result};
use crate::lax;
use crate::numpy as np;
use crate::primitive::{Literal, ThreefryOutput};
use crate::primitive::{Primitive as P, UnaryOp as U};

/// A key from a seed (`jax.random.key`): a host integer `seed` gives `[seed >> 32,
/// seed & 0xffffffff]` as uint32; a 0-d integer array (traced ones too, so a jitted step can
/// derive its key) gives `[0, seed]`, its 32 bits read as uint32, as JAX's `threefry_seed`
/// does for a 32-bit seed (negative int32 seeds wrap).
///
/// ```
/// use olympus::{jit, random, Array};
/// let seed = Array::from_slice(&[42i32], &[])?;
/// let traced = jit(|s: Array| random::key(&s)).call(seed)?;
/// assert_eq!(traced.to_vec::<u32>()?, random::key(42)?.to_vec::<u32>()?);
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn key(seed: impl KeySeed) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("key");
    seed.into_key()
}

/// What [`key`] takes as a seed: a host `u64`, or a 0-d integer array.
pub trait KeySeed {
    /// The key's two uint32 words.
    fn into_key(self) -> Result<Array>;
}

impl KeySeed for u64 {
    fn into_key(self) -> Result<Array> {
        Array::from_slice(&[(self >> 32) as u32, self as u32], &[2])
    }
}

impl KeySeed for &Array {
    fn into_key(self) -> Result<Array> {
        let low = scalar_u32("key", "seed", self)?;
        let high = lax::full(&[], Literal::U32(0), Some(self.device()))?;
        np::stack([high, low], 0)
    }
}

/// A 0-d integer array as the uint32 of its bits (sign-extended from narrower integers, as
/// XLA converts them): how JAX reads seeds and fold-in data.
fn scalar_u32(func: &str, what: &str, x: &Array) -> Result<Array> {
    if !x.shape().is_empty() || !x.dtype().is_integer() {
        return Err(Error::shape(
            func,
            &[x.shape()],
            format!(
                "the {what} must be a 0-d integer array, got {} of shape {}",
                x.dtype(),
                fmt_shape(x.shape())
            ),
        ));
    }
    lax::convert_element_type(x, DType::UInt32)
}

/// The uint32 words of a key array (keys are plain arrays: this checks and returns it).
pub fn key_data(key: &Array) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("key_data");
    check_key("key_data", key)?;
    Ok(key.clone())
}

/// Makes a key array from uint32 words of shape `[..., 2]`.
pub fn wrap_key_data(data: &Array) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("wrap_key_data");
    check_key("wrap_key_data", data)?;
    Ok(data.clone())
}

fn check_key(func: &str, key: &Array) -> Result<()> {
    if key.dtype() != DType::UInt32 || key.shape().last() != Some(&2) {
        return Err(Error::shape(
            func,
            &[key.shape()],
            format!(
                "a key is a uint32 array of shape (..., 2), got {} of shape {}",
                key.dtype(),
                fmt_shape(key.shape())
            ),
        ));
    }
    Ok(())
}

/// `num` new keys from `key` (shape `[num, 2]`; JAX's fold-like split: key `i` is the
/// Threefry block of counter `i`).
pub fn split(key: &Array, num: usize) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("split");
    if num > u32::MAX as usize {
        return Err(Error::shape(
            "split",
            &[&[num]],
            "at most 2^32 - 1 keys per key",
        ));
    }
    blocks("split", key, Counter::Index(num))
}

/// The low counter words of [`blocks`].
#[derive(Clone, Copy)]
enum Counter<'a> {
    /// `0..n` along a new dimension of `n` keys (`split`).
    Index(usize),
    /// One word for every key (`fold_in`).
    Word(&'a FoldWord),
}

/// Keys made of Threefry blocks under `key` (a batch of keys gives a batch of results),
/// in one kernel: `n` keys from counters `(0, i)` (`split`), or one key from counter
/// `(0, data)` (`fold_in`: a host word or a 0-d uint32 array). Each
/// element of the `[..., 2]` result computes its block and keeps its word, so the two
/// words need no join (under `jit` they fuse with what reads them).
fn blocks(func: &str, key: &Array, counter: Counter<'_>) -> Result<Array> {
    use lax::{CompareOp, Primitive as P};
    check_key(func, key)?;
    let batch = &key.shape()[..key.ndim() - 1];
    let nbd = batch.len();
    let mut full = batch.to_vec();
    if let Counter::Index(n) = counter {
        full.push(n);
    }
    full.push(2);
    let nb: usize = batch.iter().product();
    let keys = lax::reshape(key, &[nb, 2])?;
    let dims: Vec<usize> = (0..nbd).collect();
    let word = |w: usize| -> Result<Array> {
        let s = lax::reshape(&lax::slice(&keys, &[0, w], &[nb, w + 1], None)?, batch)?;
        lax::broadcast_in_dim(&s, &full, &dims)
    };
    let (k0, k1) = (word(0)?, word(1)?);
    let d = match counter {
        Counter::Word(FoldWord::Array(d)) => Some(lax::broadcast_in_dim(d, &full, &[])?),
        _ => None,
    };
    let mut f = lax::Fusion::new(&full);
    let (a, b) = (f.input(&k0), f.input(&k1));
    let d = d.as_ref().map(|d| f.input(d));
    let hi = f.constant(Literal::U32(0))?;
    let iota = |f: &mut lax::Fusion<'_>, dimension: usize| {
        f.push(
            P::Iota {
                dtype: DType::UInt32,
                shape: full.clone(),
                dimension,
            },
            &[],
        )
    };
    let lo = match (counter, d) {
        (Counter::Index(_), _) => iota(&mut f, nbd)?,
        (_, Some(d)) => d,
        (Counter::Word(FoldWord::Host(word)), None) => f.constant(Literal::U32(*word))?,
        (Counter::Word(FoldWord::Array(_)), None) => unreachable!("an array word is an input"),
    };
    let block = |f: &mut lax::Fusion<'_>, output| f.push(P::Threefry { output }, &[a, b, hi, lo]);
    let first = block(&mut f, ThreefryOutput::First)?;
    let second = block(&mut f, ThreefryOutput::Second)?;
    let which = iota(&mut f, full.len() - 1)?;
    let zero = f.constant(Literal::U32(0))?;
    let is_first = f.push(P::Compare(CompareOp::Eq), &[which, zero])?;
    f.push(P::Select, &[is_first, first, second])?;
    f.run(key.device())
}

/// Two new keys (`split(key, 2)` unpacked).
pub fn split2(key: &Array) -> Result<(Array, Array)> {
    let _api = crate::error::ApiScope::enter("split2");
    check_key("split", key)?;
    let ks = split(key, 2)?;
    let ax = key.ndim() as isize - 1;
    let parts = np::split(&ks, 2, ax)?;
    let shape: Vec<usize> = key.shape().to_vec();
    Ok((
        lax::reshape(&parts[0], &shape)?,
        lax::reshape(&parts[1], &shape)?,
    ))
}

/// A new key from `key` and 32 bits of data (`jax.random.fold_in`: the Threefry block of
/// counter `(0, data)`). `data` is a host `u32` or a 0-d integer array, traced ones too (a
/// jitted training step folding in its step number); negative int32 data wraps to uint32,
/// as JAX converts it.
pub fn fold_in(key: &Array, data: impl FoldData) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("fold_in");
    check_key("fold_in", key)?;
    let word = match data.word()? {
        // Uploaded rather than written into the kernel: a loop that folds in its step
        // number then calls one kernel, not a new program (generated anew) each step.
        FoldWord::Host(w) if key.tracer().is_none() => {
            FoldWord::Array(Array::from_slice_on(key.device(), &[w], &[])?)
        }
        word => word,
    };
    blocks("fold_in", key, Counter::Word(&word))
}

/// What [`fold_in`] folds into a key: a host `u32`, or a 0-d integer array.
pub trait FoldData {
    /// The data as one uint32 word.
    fn word(self) -> Result<FoldWord>;
}

/// The 32 bits of data [`fold_in`] folds into a key.
#[derive(Clone, Debug)]
pub enum FoldWord {
    /// A word known on the host (a kernel constant).
    Host(u32),
    /// A 0-d uint32 array, possibly traced.
    Array(Array),
}

impl FoldData for u32 {
    fn word(self) -> Result<FoldWord> {
        Ok(FoldWord::Host(self))
    }
}

impl FoldData for &Array {
    fn word(self) -> Result<FoldWord> {
        scalar_u32("fold_in", "data", self).map(FoldWord::Array)
    }
}

/// Uniform random uint32 bits of `shape` (`jax.random.bits`): for element `i`, the xor of
/// the two words of the Threefry block of counter `(0, i)`. A batch of keys `[..., 2]`
/// gives a batch of samples `[..., *shape]`.
pub fn bits(key: &Array, shape: &[usize]) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("bits");
    sample("bits", key, shape, |_, b| Ok(b))
}

fn float_dtype(func: &str, dtype: DType) -> Result<()> {
    if !dtype.is_floating() {
        return Err(Error::dtype(
            func,
            &[dtype],
            "needs a floating dtype (bfloat16, float16 or float32)",
        ));
    }
    Ok(())
}

/// Appends JAX's uniform transform to a fusion whose value `bits` holds uint32 random
/// bits: floats in `[0, 1)` from the mantissa bits (`(bits >> (w - m)) | bits(1.0)`
/// reinterpreted, minus one), then `max(lo, u * (hi - lo) + lo)` in `dtype`, as JAX (the
/// bounds rounded to `dtype`).
fn push_uniform(
    f: &mut lax::Fusion<'_>,
    bits: usize,
    lo: f64,
    hi: f64,
    dtype: DType,
) -> Result<usize> {
    use lax::{BinaryOp as B, Primitive as P};
    let word = if dtype.bits() == 16 {
        // JAX draws the fewest whole bytes that hold the mantissa (`random_bits` of 16 bits
        // for float16's 10, of 8 for bfloat16's 7), the low bits of each uint32 word.
        let (mask, shift, one) = match dtype {
            DType::BFloat16 => (0xff, 1, 0x3f80),
            _ => (0xffff, 6, 0x3c00),
        };
        let m = f.constant(Literal::U32(mask))?;
        let low = f.push(P::Binary(B::And), &[bits, m])?;
        let sh = f.constant(Literal::U32(shift))?;
        let s = f.push(P::Binary(B::ShiftRight), &[low, sh])?;
        let one = f.constant(Literal::U32(one))?;
        f.push(P::Binary(B::Or), &[s, one])?
    } else {
        let sh = f.constant(Literal::U32(9))?;
        let s = f.push(P::Binary(B::ShiftRight), &[bits, sh])?;
        let one = f.constant(Literal::U32(0x3f80_0000))?;
        f.push(P::Binary(B::Or), &[s, one])?
    };
    let fl = f.push(P::BitcastConvertType { dtype }, &[word])?;
    let one = f.constant(Literal::from_f64(1.0, dtype))?;
    let u = f.push(P::Binary(B::Sub), &[fl, one])?;
    if lo == 0.0 && hi == 1.0 {
        // `max(0, u * 1 + 0)` is `u` itself.
        return Ok(u);
    }
    let lo_v = f.constant(Literal::from_f64(lo, dtype))?;
    let hi_v = f.constant(Literal::from_f64(hi, dtype))?;
    let width = f.push(P::Binary(B::Sub), &[hi_v, lo_v])?;
    // XLA's CPU backend contracts `u * width + lo` into one fused multiply-add; bfloat16
    // arithmetic it widens to float32 and rounds after each operation instead.
    let shifted = if dtype == DType::BFloat16 {
        let scaled = f.push(P::Binary(B::Mul), &[u, width])?;
        f.push(P::Binary(B::Add), &[scaled, lo_v])?
    } else {
        f.push(P::Fma, &[u, width, lo_v])?
    };
    f.push(P::Binary(B::Max), &[lo_v, shifted])
}

/// One kernel: Threefry bits for `shape` under `key`, then `then` appends its transform.
fn sample(
    func: &str,
    key: &Array,
    shape: &[usize],
    then: impl FnOnce(&mut lax::Fusion<'_>, usize) -> Result<usize>,
) -> Result<Array> {
    check_key(func, key)?;
    let batch = &key.shape()[..key.ndim() - 1];
    let nb: usize = batch.iter().product();
    samples(func, shape)?;
    // Work in the output's shape (batch, then sample), so that under jit nothing between
    // the bits and the transforms that follow stops them fusing. The counter is the
    // row-major index within the sample shape, made in the kernel from iota nodes, so
    // nothing but the key is read.
    let mut full = batch.to_vec();
    full.extend_from_slice(shape);
    let nbd = batch.len();
    let keys = lax::reshape(key, &[nb, 2])?;
    let word = |w: usize| -> Result<Array> {
        let s = lax::reshape(&lax::slice(&keys, &[0, w], &[nb, w + 1], None)?, batch)?;
        let dims: Vec<usize> = (0..nbd).collect();
        lax::broadcast_in_dim(&s, &full, &dims)
    };
    let (k0, k1) = (word(0)?, word(1)?);
    let mut f = lax::Fusion::new(&full);
    let (a, b) = (f.input(&k0), f.input(&k1));
    let hi = f.constant(Literal::U32(0))?;
    let lo = counter(&mut f, &full, nbd)?;
    let bits = f.push(
        lax::Primitive::Threefry {
            output: ThreefryOutput::Xor,
        },
        &[a, b, hi, lo],
    )?;
    then(&mut f, bits)?;
    f.run(key.device())
}

/// Checks that `shape` holds fewer than 2^32 samples (counters are 32-bit words).
fn samples(func: &str, shape: &[usize]) -> Result<()> {
    let n = crate::shape::checked_size(func, shape)?;
    if n > u32::MAX as usize {
        return Err(Error::shape(
            func,
            &[shape],
            "at most 2^32 - 1 samples per key",
        ));
    }
    Ok(())
}

/// The low counter word of each sample in a fusion over `full` (the key batch's `nbd`
/// dimensions, then the sample's): its row-major index within the sample shape, from
/// iota nodes.
fn counter(f: &mut lax::Fusion<'_>, full: &[usize], nbd: usize) -> Result<usize> {
    let mut lo: Option<usize> = None;
    let mut stride = 1u32;
    for d in (nbd..full.len()).rev() {
        let iota = f.push(
            lax::Primitive::Iota {
                dtype: DType::UInt32,
                shape: full.to_vec(),
                dimension: d,
            },
            &[],
        )?;
        let term = if stride == 1 {
            iota
        } else {
            let s = f.constant(Literal::U32(stride))?;
            f.push(lax::Primitive::Binary(lax::BinaryOp::Mul), &[iota, s])?
        };
        lo = Some(match lo {
            None => term,
            Some(l) => f.push(lax::Primitive::Binary(lax::BinaryOp::Add), &[l, term])?,
        });
        // Fewer than 2^32 samples, so neither the strides nor the sums wrap.
        stride = stride.wrapping_mul(full[d] as u32);
    }
    match lo {
        Some(l) => Ok(l),
        None => f.constant(Literal::U32(0)),
    }
}

/// Uniform samples in `[minval, maxval)` of a float dtype (`jax.random.uniform`), one
/// kernel from key to floats.
///
/// ```
/// use olympus::random;
/// let u = random::uniform(&random::key(0)?, &[1000], -1.0, 1.0, olympus::DType::Float32)?;
/// let v = u.to_vec::<f32>()?;
/// assert!(v.iter().all(|&x| (-1.0..1.0).contains(&x)));
/// # Ok::<(), olympus::Error>(())
/// ```
pub fn uniform(
    key: &Array,
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("uniform");
    let func = "uniform";
    float_dtype(func, dtype)?;
    if minval.partial_cmp(&maxval).is_none_or(|o| o.is_gt()) {
        return Err(Error::arg(
            func,
            format!("minval {minval} must not exceed maxval {maxval}"),
        ));
    }
    sample(func, key, shape, |f, b| {
        push_uniform(f, b, minval, maxval, dtype)
    })
}

/// Standard normal samples (`jax.random.normal`): `sqrt(2) * erfinv(u)` with `u` uniform in
/// `(-1, 1)`; one kernel.
pub fn normal(key: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("normal");
    let func = "normal";
    float_dtype(func, dtype)?;
    // The open interval: the float after -1 towards 0.
    let lo = match dtype {
        DType::Float16 => -(1.0 - 2f64.powi(-11)),
        DType::BFloat16 => -(1.0 - 2f64.powi(-8)),
        _ => -(1.0 - 2f64.powi(-24)),
    };
    sample(func, key, shape, |f, b| {
        let u = push_uniform(f, b, lo, 1.0, dtype)?;
        let e = f.push(lax::Primitive::Unary(lax::UnaryOp::ErfInv), &[u])?;
        let r2 = f.constant(Literal::from_f64(std::f64::consts::SQRT_2, dtype))?;
        f.push(lax::Primitive::Binary(lax::BinaryOp::Mul), &[r2, e])
    })
}

/// Machine constants of a float dtype: (smallest normal, 1 - the float below 1).
fn finfo(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::Float16 => (2f64.powi(-14), 2f64.powi(-11)),
        DType::BFloat16 => (2f64.powi(-126), 2f64.powi(-8)),
        _ => (2f64.powi(-126), 2f64.powi(-24)),
    }
}

/// True with probability `p` (`jax.random.bernoulli`: `uniform < p` in float32).
pub fn bernoulli(key: &Array, p: f64, shape: &[usize]) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("bernoulli");
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::arg(
            "bernoulli",
            format!("probability {p} is outside [0, 1]"),
        ));
    }
    sample("bernoulli", key, shape, |f, b| {
        let u = push_uniform(f, b, 0.0, 1.0, DType::Float32)?;
        let p = f.constant(Literal::from_f64(p, DType::Float32))?;
        f.push(P::Compare(lax::CompareOp::Lt), &[u, p])
    })
}

/// Exponential samples with rate 1 (`-log1p(-u)`, as JAX).
pub fn exponential(key: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("exponential");
    float_dtype("exponential", dtype)?;
    sample("exponential", key, shape, |f, b| {
        let u = push_uniform(f, b, 0.0, 1.0, dtype)?;
        let v = f.push(P::Unary(U::Neg), &[u])?;
        let v = f.push(P::Unary(U::Log1p), &[v])?;
        f.push(P::Unary(U::Neg), &[v])
    })
}

/// Standard Gumbel samples (`-log(-log(u))` with `u` uniform in `[tiny, 1)`, as JAX).
pub fn gumbel(key: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("gumbel");
    float_dtype("gumbel", dtype)?;
    sample("gumbel", key, shape, |f, b| {
        let u = push_uniform(f, b, finfo(dtype).0, 1.0, dtype)?;
        let v = f.push(P::Unary(U::Log), &[u])?;
        let v = f.push(P::Unary(U::Neg), &[v])?;
        let v = f.push(P::Unary(U::Log), &[v])?;
        f.push(P::Unary(U::Neg), &[v])
    })
}

/// Standard Laplace samples (`sign(u) * log1p(-|u|)` with `u` uniform in `(-1, 1)`, as JAX).
pub fn laplace(key: &Array, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("laplace");
    float_dtype("laplace", dtype)?;
    sample("laplace", key, shape, |f, b| {
        let u = push_uniform(f, b, -1.0 + finfo(dtype).1, 1.0, dtype)?;
        let sign = f.push(P::Unary(U::Sign), &[u])?;
        let v = f.push(P::Unary(U::Abs), &[u])?;
        let v = f.push(P::Unary(U::Neg), &[v])?;
        let v = f.push(P::Unary(U::Log1p), &[v])?;
        f.push(P::Binary(lax::BinaryOp::Mul), &[sign, v])
    })
}

/// The error function in f64 (Abramowitz–Stegun 7.1.26 is not enough; this is the
/// complementary-error-function series of Numerical Recipes, relative error < 1.2e-7,
/// then exact enough after rounding to float32 for the bounds of `truncated_normal`).
fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if x >= 0.0 {
        1.0 - r
    } else {
        r - 1.0
    }
}

/// Standard normal samples truncated to `(lower, upper)` (JAX's inverse-CDF algorithm;
/// the bounds' `erf` is computed on the host, so values may differ from JAX's in the
/// last bit).
pub fn truncated_normal(
    key: &Array,
    lower: f64,
    upper: f64,
    shape: &[usize],
    dtype: DType,
) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("truncated_normal");
    let func = "truncated_normal";
    float_dtype(func, dtype)?;
    if lower.partial_cmp(&upper) != Some(std::cmp::Ordering::Less) {
        return Err(Error::arg(
            func,
            format!("lower {lower} must be below upper {upper}"),
        ));
    }
    let r = |v: f64| Literal::from_f64(v, dtype).cast(DType::Float32);
    let as_f = |l: Literal| match l {
        Literal::F32(v) => f64::from(v),
        _ => 0.0,
    };
    let s2 = std::f64::consts::SQRT_2;
    let a = erf(as_f(r(lower)) / s2);
    let b = erf(as_f(r(upper)) / s2);
    // Clamped into the open interval, as JAX does.
    let next = |v: f64, up: bool| -> f64 {
        let f = v as f32;
        let n = if up { f32_next_up(f) } else { -f32_next_up(-f) };
        f64::from(n)
    };
    sample(func, key, shape, |f, bits| {
        let u = push_uniform(f, bits, a, b, dtype)?;
        let e = f.push(P::Unary(U::ErfInv), &[u])?;
        let r2 = f.constant(Literal::from_f64(s2, dtype))?;
        let v = f.push(P::Binary(lax::BinaryOp::Mul), &[e, r2])?;
        let lo = f.constant(Literal::from_f64(next(lower, true), dtype))?;
        let v = f.push(P::Binary(lax::BinaryOp::Max), &[v, lo])?;
        let hi = f.constant(Literal::from_f64(next(upper, false), dtype))?;
        f.push(P::Binary(lax::BinaryOp::Min), &[v, hi])
    })
}

fn f32_next_up(f: f32) -> f32 {
    if f.is_nan() || f == f32::INFINITY {
        return f;
    }
    if f == 0.0 {
        return f32::from_bits(1);
    }
    let b = f.to_bits();
    f32::from_bits(if f > 0.0 { b + 1 } else { b - 1 })
}

/// Integers uniform in `[minval, maxval)` of `dtype` (int32 or uint32), with JAX's
/// algorithm (two draws of bits combined modulo the span, so every span is unbiased to
/// within 2^-32). `maxval <= minval` gives `minval`. Bounds must lie in the dtype's range,
/// `maxval` up to one past its largest value (`1 << 31` for int32 draws every int32);
/// others are an error, as JAX raises `OverflowError` for bounds its integers cannot hold.
pub fn randint(
    key: &Array,
    shape: &[usize],
    minval: i64,
    maxval: i64,
    dtype: DType,
) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("randint");
    let func = "randint";
    let (lo_lim, hi_lim) = match dtype {
        DType::Int32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        DType::UInt32 => (0, i64::from(u32::MAX)),
        d => return Err(Error::dtype(func, &[d], "needs int32 or uint32")),
    };
    for (name, v, top) in [("minval", minval, hi_lim), ("maxval", maxval, hi_lim + 1)] {
        if v < lo_lim || v > top {
            return Err(Error::arg(
                func,
                format!("{name} {v} is outside the {dtype} range [{lo_lim}, {top}]"),
            ));
        }
    }
    // As JAX: the bounds clipped into the dtype's range; a maxval past the top allows the
    // top (the span grows by one, wrapping to 0 for the whole range: no remainder then).
    let maxval_out_of_range = maxval > hi_lim;
    let minval = minval.clamp(lo_lim, hi_lim);
    let maxval = maxval.clamp(lo_lim, hi_lim);
    // Two keys, then one kernel: each sample's two draws of bits (one under each key) and
    // JAX's arithmetic on them, in uint32.
    check_key(func, key)?;
    samples(func, shape)?;
    let batch = &key.shape()[..key.ndim() - 1];
    let nbd = batch.len();
    let nb: usize = batch.iter().product();
    let mut full = batch.to_vec();
    full.extend_from_slice(shape);
    let keys = lax::reshape(&split(key, 2)?, &[nb, 2, 2])?;
    let dims: Vec<usize> = (0..nbd).collect();
    let word = |k: usize, w: usize| -> Result<Array> {
        let s = lax::slice(&keys, &[0, k, w], &[nb, k + 1, w + 1], None)?;
        lax::broadcast_in_dim(&lax::reshape(&s, batch)?, &full, &dims)
    };
    let words = [word(0, 0)?, word(0, 1)?, word(1, 0)?, word(1, 1)?];
    // span = maxval - minval in uint32 (1 when maxval <= minval), +1 when maxval was out
    // of range and above minval, as JAX.
    let mut span: u32 = if maxval <= minval {
        1
    } else {
        (maxval - minval) as u32
    };
    if maxval_out_of_range && maxval > minval {
        span = span.wrapping_add(1);
    }
    // multiplier = (2^16 % span)^2 % span in uint32 arithmetic, as JAX computes it (the
    // square wraps for spans above 2^16, which JAX's values inherit).
    let m = (1u32 << 16).checked_rem(span).unwrap_or(1 << 16);
    let mult = m
        .wrapping_mul(m)
        .checked_rem(span)
        .unwrap_or(m.wrapping_mul(m));
    use lax::{BinaryOp as B, Primitive as P};
    let mut f = lax::Fusion::new(&full);
    let w: Vec<usize> = words.iter().map(|a| f.input(a)).collect();
    let hi = f.constant(Literal::U32(0))?;
    let lo = counter(&mut f, &full, nbd)?;
    let xor = || P::Threefry {
        output: ThreefryOutput::Xor,
    };
    let higher = f.push(xor(), &[w[0], w[1], hi, lo])?;
    let lower = f.push(xor(), &[w[2], w[3], hi, lo])?;
    let span_c = f.constant(Literal::U32(span))?;
    // XLA's unsigned `x % 0` is `x`: with a span of 0 the offset is `lower`.
    let rem = |f: &mut lax::Fusion<'_>, x: usize| {
        if span == 0 {
            Ok(x)
        } else {
            f.push(P::Binary(B::Rem), &[x, span_c])
        }
    };
    let mult_c = f.constant(Literal::U32(mult))?;
    let h = rem(&mut f, higher)?;
    let hm = f.push(P::Binary(B::Mul), &[h, mult_c])?;
    let l = rem(&mut f, lower)?;
    let off = f.push(P::Binary(B::Add), &[hm, l])?;
    let off = rem(&mut f, off)?;
    let base = f.constant(Literal::U32(minval as i32 as u32))?;
    let r = f.push(P::Binary(B::Add), &[base, off])?;
    if dtype == DType::Int32 {
        f.push(
            P::BitcastConvertType {
                dtype: DType::Int32,
            },
            &[r],
        )?;
    }
    f.run(key.device())
}

/// `x` shuffled along `axis` (JAX's `_shuffle`: rounds of a stable sort by random keys;
/// one round up to 1625 elements).
fn shuffle_impl(key: &Array, x: &Array, axis: usize) -> Result<Array> {
    let n = x.size().max(1) as f64;
    let rounds = (3.0 * n.ln() / (u32::MAX as f64).ln()).ceil() as usize;
    let mut key = key.clone();
    let mut x = x.clone();
    for _ in 0..rounds {
        let (k, sub) = split2(&key)?;
        key = k;
        let sort_keys = bits(&sub, x.shape())?;
        let order = np::argsort(&sort_keys, Some(axis as isize))?;
        x = np::take_along_axis(&x, &order, axis as isize)?;
    }
    Ok(x)
}

/// A random permutation of `0..n` (int32), as `jax.random.permutation(key, n)`.
pub fn permutation(key: &Array, n: usize) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("permutation");
    check_key("permutation", key)?;
    let x = lax::iota(DType::Int32, &[n], 0, Some(key.device()))?;
    shuffle_impl(key, &x, 0)
}

/// `x` with its slices along `axis` randomly permuted (`jax.random.permutation(key, x,
/// axis)`).
pub fn shuffle(key: &Array, x: impl crate::ArrayLike, axis: isize) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("shuffle");
    check_key("shuffle", key)?;
    let x = np::asarray(x)?;
    if x.ndim() == 0 {
        return Err(Error::shape(
            "shuffle",
            &[x.shape()],
            "cannot shuffle a 0-d array",
        ));
    }
    let ax = crate::shape::normalize_axis("shuffle", axis, x.ndim())?;
    // The same permutation for every slice: permute indices, then take.
    let perm = shuffle_impl(
        key,
        &lax::iota(DType::Int32, &[x.shape()[ax]], 0, Some(key.device()))?,
        0,
    )?;
    np::take(&x, &perm, Some(ax as isize))
}

/// Samples from `0..n` (int32) of `shape`: with replacement (uniform, or weighted by `p`),
/// or without (a prefix of a permutation, or JAX's Gumbel top-k trick when weighted).
pub fn choice(
    key: &Array,
    n: usize,
    shape: &[usize],
    replace: bool,
    p: Option<&[f64]>,
) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("choice");
    let func = "choice";
    check_key(func, key)?;
    let draws = crate::shape::checked_size(func, shape)?;
    if n == 0 && draws > 0 {
        return Err(Error::arg(func, "cannot choose from an empty population"));
    }
    if let Some(p) = p {
        if p.len() != n || p.iter().any(|&q| q.is_nan() || q < 0.0) {
            return Err(Error::arg(
                func,
                format!("p needs {n} non-negative probabilities, got {p:?}"),
            ));
        }
    }
    if !replace && draws > n {
        return Err(Error::arg(
            func,
            format!("cannot take a larger sample ({draws}) than the population ({n}) without replacement"),
        ));
    }
    let idx = match (p, replace) {
        (None, true) => randint(key, shape, 0, n as i64, DType::Int32)?,
        (None, false) => {
            let perm = permutation(key, n)?;
            lax::reshape(&lax::slice(&perm, &[0], &[draws], None)?, shape)?
        }
        (Some(p), true) => {
            let pa = Array::from_slice_on(
                key.device(),
                &p.iter().map(|&q| q as f32).collect::<Vec<_>>(),
                &[n],
            )?;
            let cum = np::cumsum(&pa, None)?;
            let total = cum.slice(crate::s![-1])?;
            let u = uniform(key, shape, 0.0, 1.0, DType::Float32)?;
            let r = np::multiply(&total, np::subtract(1.0, &u)?)?;
            // searchsorted (left): the number of cumulative sums below r.
            let rr = np::expand_dims(&r, &[-1])?;
            let below = np::less(&cum, &rr)?;
            np::sum(&below, Some(&[-1]), false)?
        }
        (Some(p), false) => {
            let pa = Array::from_slice_on(
                key.device(),
                &p.iter().map(|&q| q as f32).collect::<Vec<_>>(),
                &[n],
            )?;
            let g = np::add(gumbel(key, &[n], DType::Float32)?, np::log(&pa)?)?;
            let order = np::argsort(np::negative(&g)?, Some(0))?;
            lax::reshape(&lax::slice(&order, &[0], &[draws], None)?, shape)?
        }
    };
    Ok(idx)
}

/// Samples of categories from unnormalised log-probabilities along `axis` of `logits`
/// (`argmax(gumbel + logits)`, as JAX); the result has the logits' shape without `axis`.
pub fn categorical(key: &Array, logits: impl crate::ArrayLike, axis: isize) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("categorical");
    let func = "categorical";
    let logits = np::asarray(logits)?;
    if !logits.dtype().is_floating() {
        return Err(Error::dtype(
            func,
            &[logits.dtype()],
            "logits must be floating",
        ));
    }
    let ax = crate::shape::normalize_axis(func, axis, logits.ndim())?;
    let g = gumbel(key, logits.shape(), logits.dtype())?;
    np::argmax(np::add(&g, &logits)?, Some(ax as isize), false)
}

/// NumPy-style convenience: a generator holding a key, split on every call (a thin layer
/// over the key functions; `default_rng(s)` draws the same numbers on every adapter).
///
/// ```
/// let mut rng = olympus::random::default_rng(7)?;
/// let a = rng.uniform(&[4], 0.0, 1.0)?;
/// let b = rng.uniform(&[4], 0.0, 1.0)?; // a fresh subkey: different numbers
/// assert_ne!(a.to_vec::<f32>()?, b.to_vec::<f32>()?);
/// # Ok::<(), olympus::Error>(())
/// ```
pub struct Generator {
    key: Array,
}

/// A [`Generator`] seeded with `seed`.
pub fn default_rng(seed: u64) -> Result<Generator> {
    let _api = crate::error::ApiScope::enter("default_rng");
    Ok(Generator { key: key(seed)? })
}

impl Generator {
    /// The next subkey (the held key is replaced by the other half of a split).
    pub fn next_key(&mut self) -> Result<Array> {
        let _api = crate::error::ApiScope::enter("next_key");
        let (k, sub) = split2(&self.key)?;
        self.key = k;
        Ok(sub)
    }

    /// float32 samples uniform in `[low, high)`.
    pub fn uniform(&mut self, shape: &[usize], low: f64, high: f64) -> Result<Array> {
        let _api = crate::error::ApiScope::enter("uniform");
        uniform(&self.next_key()?, shape, low, high, DType::Float32)
    }

    /// float32 normal samples with mean `loc` and standard deviation `scale`.
    pub fn normal(&mut self, shape: &[usize], loc: f64, scale: f64) -> Result<Array> {
        let _api = crate::error::ApiScope::enter("normal");
        let z = normal(&self.next_key()?, shape, DType::Float32)?;
        np::add(np::multiply(&z, scale)?, loc)
    }

    /// int32 samples uniform in `[low, high)`.
    pub fn integers(&mut self, low: i64, high: i64, shape: &[usize]) -> Result<Array> {
        let _api = crate::error::ApiScope::enter("integers");
        if high <= low {
            return Err(Error::arg(
                "integers",
                format!("low {low} must be below high {high}"),
            ));
        }
        randint(&self.next_key()?, shape, low, high, DType::Int32)
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Result<Array> {
        let _api = crate::error::ApiScope::enter("permutation");
        permutation(&self.next_key()?, n)
    }
}

/// Gamma samples with shape parameter `alpha > 0` (scale 1), one per element of `shape`
/// (JAX's Marsaglia–Tsang sampler run for every element in lockstep: each element has its
/// own key, split the way JAX's `_gamma_one` splits it, and rejection rounds repeat until
/// every element is accepted). Values are JAX's bits for `alpha >= 1`; below 1 JAX
/// multiplies by `u ** (1 / alpha)` with the C library's `powf`, computed in double
/// precision, and samples may differ from JAX's in the last few bits.
pub fn gamma(key: &Array, alpha: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("gamma");
    gamma_impl("gamma", key, alpha, shape, dtype, false)
}

/// `log` of gamma samples, computed in log space (stable for tiny `alpha`; JAX's
/// `loggamma`).
pub fn loggamma(key: &Array, alpha: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("loggamma");
    gamma_impl("loggamma", key, alpha, shape, dtype, true)
}

fn gamma_impl(
    func: &str,
    key: &Array,
    alpha: f64,
    shape: &[usize],
    dtype: DType,
    log_space: bool,
) -> Result<Array> {
    float_dtype(func, dtype)?;
    if alpha.is_nan() || alpha <= 0.0 {
        return Err(Error::arg(
            func,
            format!("alpha must be positive, got {alpha}"),
        ));
    }
    check_key(func, key)?;
    let n = crate::shape::checked_size(func, shape)?;
    if n == 0 {
        return np::zeros(shape, dtype);
    }
    // One key per element, as JAX's vmap over `split(key, size)`.
    let keys = split(key, n)?;
    let boost = alpha < 1.0;
    let a = if boost { alpha + 1.0 } else { alpha };
    let cast = |v: f64| -> f64 {
        match Literal::from_f64(v, dtype).cast(DType::Float32) {
            Literal::F32(x) => f64::from(x),
            _ => v,
        }
    };
    let d = cast(cast(a) - cast(1.0 / 3.0));
    // JAX's `(1/3) / sqrt(d)` becomes `(1/3) * rsqrt(d)` in XLA; its CPU backend's rsqrt
    // is the processor's estimate refined by a Newton step, which here is the correctly
    // rounded 1/sqrt(d) (the estimate differs between processors, so JAX's c may differ
    // in its last bit on other hosts).
    let c = cast(cast(1.0 / 3.0) * cast(1.0 / d.sqrt()));
    let (k, sub) = {
        let ks = split(&keys, 2)?;
        (
            ks.slice(crate::s![.., 0, ..])?,
            ks.slice(crate::s![.., 1, ..])?,
        )
    };
    let mut key = k;
    // Eagerly the rounds repeat until every element is accepted. Under a transformation
    // (jit, vmap, grad) values cannot be read, so a fixed number of rounds runs with the
    // same masked updates: the results are the same whenever the rounds suffice, and an
    // element needs more only with probability below 1e-10 (each round accepts at least
    // 95% of the elements, each inner draw succeeds with probability above 0.99).
    let traced = crate::trace::is_tracing();
    let (outer_rounds, inner_rounds) = if traced { (10, 6) } else { (64, 64) };
    // State: V (accepted when `done`); start "not accepted".
    let mut v_acc = np::ones(&[n], dtype)?;
    let mut done = np::zeros(&[n], DType::Bool)?;
    for _round in 0..outer_rounds {
        let ks = split(&key, 3)?;
        let next_key = ks.slice(crate::s![.., 0, ..])?;
        let mut x_key = ks.slice(crate::s![.., 1, ..])?;
        let u_key = ks.slice(crate::s![.., 2, ..])?;
        // Inner loop: draw x ~ normal until v = 1 + c x > 0.
        let mut x = np::zeros(&[n], dtype)?;
        let mut v = np::full(&[n], -1.0, Some(dtype))?;
        for _ in 0..inner_rounds {
            let need = np::less_equal(&v, 0.0)?;
            if !traced && !np::any(&need, None, false)?.item::<bool>()? {
                break;
            }
            let kk = split(&x_key, 2)?;
            let sub_x = kk.slice(crate::s![.., 1, ..])?;
            x_key = np::r#where(
                np::expand_dims(&need, &[-1])?,
                kk.slice(crate::s![.., 0, ..])?,
                &x_key,
            )?;
            let xn = normal(&sub_x, &[], dtype)?;
            // XLA's CPU backend fuses these single-use products into the adds.
            let vn = fma(&xn, c, 1.0)?;
            x = np::r#where(&need, &xn, &x)?;
            v = np::r#where(&need, &vn, &v)?;
        }
        let xx = np::multiply(&x, &x)?;
        let vvv = np::multiply(np::multiply(&v, &v)?, &v)?;
        let u = uniform(&u_key, &[], 0.0, 1.0, dtype)?;
        // Reject while U >= 1 - 0.0331 X² and log U >= X/2 + d (1 - V + log V), X = x².
        let c1 = np::greater_equal(&u, fma(&np::multiply(&xx, &xx)?, -0.0331, 1.0)?)?;
        let rhs = np::add(
            np::multiply(&xx, 0.5)?,
            np::multiply(d, np::add(np::subtract(1.0, &vvv)?, np::log(&vvv)?)?)?,
        )?;
        let c2 = np::greater_equal(np::log(&u)?, &rhs)?;
        let reject = np::logical_and(&c1, &c2)?;
        let newly = np::logical_and(np::logical_not(&done)?, np::logical_not(&reject)?)?;
        v_acc = np::r#where(&newly, &vvv, &v_acc)?;
        done = np::logical_or(&done, &newly)?;
        key = np::r#where(np::expand_dims(&done, &[-1])?, &key, &next_key)?;
        if !traced && np::all(&done, None, false)?.item::<bool>()? {
            break;
        }
    }
    let r = if log_space {
        let e = np::negative(exponential(&sub, &[], dtype)?)?;
        let lb = if boost {
            let zero = np::equal(&e, 0.0)?;
            np::r#where(zero, 0.0, np::multiply(&e, 1.0 / alpha)?)?
        } else {
            np::zeros(&[n], dtype)?
        };
        np::add(
            np::add(np::log(np::full(&[n], d, Some(dtype))?)?, np::log(&v_acc)?)?,
            &lb,
        )?
    } else {
        let s = np::subtract(1.0, uniform(&sub, &[], 0.0, 1.0, dtype)?)?;
        let b = if boost {
            np::power(&s, 1.0 / alpha)?
        } else {
            np::ones(&[n], dtype)?
        };
        np::multiply(np::multiply(d, &v_acc)?, &b)?
    };
    lax::reshape(&np::astype(r, dtype)?, shape)
}

/// `x * b + c` rounded once, for constants `b` and `c` in `x`'s dtype.
fn fma(x: &Array, b: f64, c: f64) -> Result<Array> {
    let full = |v: f64| np::broadcast_to(np::full(&[], v, Some(x.dtype()))?, x.shape());
    lax::bind(lax::Primitive::Fma, &[x, &full(b)?, &full(c)?], None)
}

/// Beta samples with parameters `a, b > 0` (JAX's ratio of log-gamma samples, scaled by
/// their maximum for precision).
pub fn beta(key: &Array, a: f64, b: f64, shape: &[usize], dtype: DType) -> Result<Array> {
    let _api = crate::error::ApiScope::enter("beta");
    let func = "beta";
    if a.is_nan() || b.is_nan() || a <= 0.0 || b <= 0.0 {
        return Err(Error::arg(
            func,
            format!("a and b must be positive, got {a} and {b}"),
        ));
    }
    let (ka, kb) = split2(key)?;
    let la = loggamma(&ka, a, shape, dtype)?;
    let lb = loggamma(&kb, b, shape, dtype)?;
    let m = np::maximum(&la, &lb)?;
    let ga = np::exp(np::subtract(&la, &m)?)?;
    let gb = np::exp(np::subtract(&lb, &m)?)?;
    np::divide(&ga, np::add(&ga, &gb)?)
}

//! jax.numpy's non-ufunc functions (interp, convolve, quantile, unique, pad, round, ...) on
//! edge-case inputs, against JAX 0.10.2's answers in tests/data/jnp_cases.txt (written by
//! tests/data/gen_jnp_cases.py, whose docstring gives the format).
//!
//! Each case runs eagerly and, where JAX jitted it, under `jit` too. Integers and bools
//! compare exactly, and so do floats of the functions that JAX computes exactly (selection,
//! sorting, indexing, padding, rounding, bit manipulation), the sign of zero included.
//! Floats of the functions that round along the way (sums, interpolation, powers) compare
//! within [`ULPS`] ulps of the larger of the element and the output's largest finite
//! magnitude over [`SCALE_SHARE`] (so an element that cancels to near zero is held to the
//! precision of the values it came from); NaN only matches NaN and infinities match exactly.

use std::collections::HashMap;
use std::fmt::Write as _;

use half::{bf16, f16};
use olympus::numpy::{
    self as np, Bins, BitOrder, ConvMode, IndexMode, Indexing, Order, PadMode, Piece,
    QuantileMethod, Side, Spacing, UniqueOptions,
};
use olympus::{grad, jit, jvp, Array, DType, Error, Result};

/// Tolerance of the approximate comparison, in ulps of the output's dtype.
const ULPS: f64 = 4.0;
/// An element's tolerance is at least that of the output's largest finite magnitude over this.
const SCALE_SHARE: f64 = 4.0;

/// Cases that differ from JAX by a documented Olympus behaviour: (name, parameters, a piece
/// of the case's inputs as written in the data file (empty: any), reason quoted from the
/// documentation). They still run, and must still give JAX's output count, dtypes and
/// shapes.
const DOCUMENTED_EXCEPTIONS: &[(&str, &str, &str, &str)] = &[
    (
        "logspace",
        "start=-1.5 stop=7.25 num=7 endpoint=False",
        "",
        "logspace is `base ** linspace(start, stop, num, endpoint)`, and linspace's values \
         are \"computed in f64 and rounded once, as NumPy does\" (src/numpy/creation.rs), \
         where JAX's `start * (1 - t) + stop * t` in float32 misses 1.0 by 2 ulps, which the \
         power amplifies past the tolerance",
    ),
    (
        "frexp",
        "-",
        "_0 float32 [6] 000116c2 80000001",
        "\"Subnormal operands and results are kept ... where XLA:CPU flushes them\" \
         (README): frexp(1e-40) is (0.544, -132), where XLA reads the subnormal as zero \
         in JAX's `x * 2^23` and gives (0.5, -149)",
    ),
    (
        "frexp",
        "-",
        "_0 float16 [4] 3800 0001",
        "subnormals are kept (README): the float16 subnormal 2^-24 is 0.5 * 2^-23",
    ),
    (
        "ldexp",
        "-",
        "_0 float32 [6] 3f800000 3f400000 3fc00000",
        "subnormals are kept (README): ldexp(1, -130) is a subnormal, which XLA:CPU flushes \
         (2^-150 rounds to even, 0)",
    ),
    (
        "nextafter",
        "-",
        "_0 float32 [13] 00000000 80000000",
        "subnormals are kept (README): nextafter(-2^-149, 0) is -0 (IEEE's and NumPy's), \
         where XLA reads the subnormal as zero and gives the target, +0",
    ),
];

/// A case's parameters, `key=value` as the generator wrote them.
pub(super) struct Params(HashMap<String, String>);

impl Params {
    fn parse(s: &str) -> Params {
        let mut m = HashMap::new();
        if s != "-" {
            for kv in s.split(' ') {
                let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("param {kv}"));
                m.insert(k.to_string(), v.to_string());
            }
        }
        Params(m)
    }
    pub(super) fn has(&self, k: &str) -> bool {
        self.0.get(k).is_some_and(|v| v != "None")
    }
    pub(super) fn raw(&self, k: &str) -> &str {
        self.0.get(k).unwrap_or_else(|| panic!("no parameter {k}"))
    }
    pub(super) fn f(&self, k: &str) -> f64 {
        num(self.raw(k))
    }
    fn f_or(&self, k: &str, d: f64) -> f64 {
        if self.has(k) {
            self.f(k)
        } else {
            d
        }
    }
    fn opt_f(&self, k: &str) -> Option<f64> {
        self.has(k).then(|| self.f(k))
    }
    pub(super) fn i(&self, k: &str) -> i64 {
        self.raw(k)
            .parse()
            .unwrap_or_else(|_| panic!("int {k}={}", self.raw(k)))
    }
    pub(super) fn i_or(&self, k: &str, d: i64) -> i64 {
        if self.has(k) {
            self.i(k)
        } else {
            d
        }
    }
    pub(super) fn b_or(&self, k: &str, d: bool) -> bool {
        if self.has(k) {
            self.raw(k) == "True"
        } else {
            d
        }
    }
    pub(super) fn s_or<'a>(&'a self, k: &str, d: &'a str) -> &'a str {
        if self.has(k) {
            self.raw(k)
        } else {
            d
        }
    }
    /// A scalar or a flat list, as integers.
    pub(super) fn ints(&self, k: &str) -> Vec<i64> {
        list(self.raw(k))
            .iter()
            .map(|s| s.parse().unwrap())
            .collect()
    }
    /// JAX's `shape=` of the `_like` functions (an int or a list), when given.
    pub(super) fn shape(&self, k: &str) -> Option<Vec<usize>> {
        self.has(k).then(|| match self.raw(k) {
            v if v.starts_with('[') => self.ints(k).iter().map(|&v| v as usize).collect(),
            v => vec![v.parse::<usize>().expect("shape")],
        })
    }
    /// A scalar or a flat list, as floats.
    fn floats(&self, k: &str) -> Vec<f64> {
        list(self.raw(k)).iter().map(|s| num(s)).collect()
    }
    pub(super) fn dtype(&self, k: &str) -> Option<DType> {
        self.has(k).then(|| dtype_named(self.raw(k)))
    }
    /// A parameter that JAX takes as a Python scalar (weakly typed): a weak array.
    fn weak(&self, k: &str) -> Result<Array> {
        weak(self.raw(k))
    }
}

fn weak(v: &str) -> Result<Array> {
    match v {
        "True" => np::asarray(true),
        "False" => np::asarray(false),
        _ => match v.parse::<i64>() {
            Ok(i) => np::asarray(i),
            Err(_) => np::asarray(num(v)),
        },
    }
}

fn num(s: &str) -> f64 {
    match s {
        "nan" => f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        _ => s.parse().unwrap_or_else(|_| panic!("number {s}")),
    }
}

/// `[a,b]` (brackets nest: the outer level only is split) or a lone scalar.
fn list(s: &str) -> Vec<String> {
    let Some(inner) = s.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return vec![s.to_string()];
    };
    let (mut out, mut cur, mut depth) = (vec![], String::new(), 0);
    for ch in inner.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn dtype_named(name: &str) -> DType {
    [
        DType::Float32,
        DType::Float16,
        DType::BFloat16,
        DType::Int32,
        DType::UInt32,
        DType::Int16,
        DType::UInt16,
        DType::Int8,
        DType::UInt8,
        DType::Bool,
    ]
    .into_iter()
    .find(|d| d.name() == name)
    .unwrap_or_else(|| panic!("dtype {name}"))
}

/// An array as the file writes it: dtype, shape and one word per element.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Words {
    pub(super) dtype: DType,
    pub(super) shape: Vec<usize>,
    pub(super) words: Vec<u32>,
}

impl Words {
    fn parse(s: &str) -> Words {
        let mut it = s.split(' ');
        let dtype = dtype_named(it.next().unwrap());
        let shape = it.next().unwrap();
        let shape = shape.trim_start_matches('[').trim_end_matches(']');
        let shape = shape
            .split(',')
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        let words = it
            .map(|w| u32::from_str_radix(w, 16).unwrap_or_else(|_| panic!("word {w}")))
            .collect();
        Words {
            dtype,
            shape,
            words,
        }
    }

    fn of(a: &Array) -> Result<Words> {
        let words: Vec<u32> = match a.dtype() {
            DType::Float32 => a.to_vec::<f32>()?.iter().map(|v| v.to_bits()).collect(),
            DType::Int32 => a.to_vec::<i32>()?.iter().map(|&v| v as u32).collect(),
            DType::UInt32 => a.to_vec::<u32>()?,
            DType::Int16 => a
                .to_vec::<i16>()?
                .iter()
                .map(|&v| v as u16 as u32)
                .collect(),
            DType::UInt16 => a.to_vec::<u16>()?.iter().map(|&v| u32::from(v)).collect(),
            DType::Int8 => a.to_vec::<i8>()?.iter().map(|&v| v as u8 as u32).collect(),
            DType::UInt8 => a.to_vec::<u8>()?.iter().map(|&v| u32::from(v)).collect(),
            DType::Bool => a.to_vec::<bool>()?.iter().map(|&v| u32::from(v)).collect(),
            DType::Float16 => a
                .to_vec::<f16>()?
                .iter()
                .map(|v| u32::from(v.to_bits()))
                .collect(),
            DType::BFloat16 => a
                .to_vec::<bf16>()?
                .iter()
                .map(|v| u32::from(v.to_bits()))
                .collect(),
        };
        Ok(Words {
            dtype: a.dtype(),
            shape: a.shape().to_vec(),
            words,
        })
    }

    pub(super) fn array(&self) -> Array {
        let w = &self.words;
        let a = match self.dtype {
            DType::Float32 => Array::from_slice(
                &w.iter().map(|&v| f32::from_bits(v)).collect::<Vec<_>>(),
                &self.shape,
            ),
            DType::Int32 => Array::from_slice(
                &w.iter().map(|&v| v as i32).collect::<Vec<_>>(),
                &self.shape,
            ),
            DType::UInt32 => Array::from_slice(w, &self.shape),
            DType::Int16 => Array::from_slice(
                &w.iter().map(|&v| v as u16 as i16).collect::<Vec<_>>(),
                &self.shape,
            ),
            DType::UInt16 => Array::from_slice(
                &w.iter().map(|&v| v as u16).collect::<Vec<_>>(),
                &self.shape,
            ),
            DType::Int8 => Array::from_slice(
                &w.iter().map(|&v| v as u8 as i8).collect::<Vec<_>>(),
                &self.shape,
            ),
            DType::UInt8 => {
                Array::from_slice(&w.iter().map(|&v| v as u8).collect::<Vec<_>>(), &self.shape)
            }
            DType::Bool => {
                Array::from_slice(&w.iter().map(|&v| v != 0).collect::<Vec<_>>(), &self.shape)
            }
            DType::Float16 => Array::from_slice(
                &w.iter()
                    .map(|&v| f16::from_bits(v as u16))
                    .collect::<Vec<_>>(),
                &self.shape,
            ),
            DType::BFloat16 => Array::from_slice(
                &w.iter()
                    .map(|&v| bf16::from_bits(v as u16))
                    .collect::<Vec<_>>(),
                &self.shape,
            ),
        };
        a.expect("upload")
    }

    /// Element `k` as f64 (floats and integers alike).
    pub(super) fn value(&self, k: usize) -> f64 {
        let w = self.words[k];
        match self.dtype {
            DType::Float32 => f64::from(f32::from_bits(w)),
            DType::Float16 => f16::from_bits(w as u16).to_f64(),
            DType::BFloat16 => bf16::from_bits(w as u16).to_f64(),
            DType::Int32 => f64::from(w as i32),
            DType::Int16 => f64::from(w as u16 as i16),
            DType::Int8 => f64::from(w as u8 as i8),
            _ => f64::from(w),
        }
    }

    pub(super) fn show(&self) -> String {
        let vals: Vec<String> = (0..self.words.len())
            .map(|k| {
                let v = self.value(k);
                if self.dtype.is_floating() && v == 0.0 && v.is_sign_negative() {
                    "-0".to_string()
                } else {
                    format!("{v}")
                }
            })
            .collect();
        format!(
            "{} {:?} [{}]",
            self.dtype.name(),
            self.shape,
            vals.join(", ")
        )
    }
}

/// One line of the file.
pub(super) struct Case {
    pub(super) line: usize,
    pub(super) name: String,
    pub(super) jit: bool,
    pub(super) params_raw: String,
    pub(super) params: Params,
    pub(super) inputs_raw: String,
    pub(super) inputs: Vec<(String, Words)>,
    pub(super) want: Vec<Words>,
    /// JAX's gradient (the case's `grad` line), by input name: see the generator's docstring.
    pub(super) grads: Option<Vec<(String, Words)>>,
    /// JAX's forward mode (the case's `jvp` line): the input tangents and the float32
    /// outputs' tangents (`out<k>`), by name: see the generator's docstring.
    pub(super) tangents: Option<(Vec<(String, Words)>, Vec<(String, Words)>)>,
}

/// A ` ; `-separated list of named arrays (`NAME DTYPE [SHAPE] WORDS`).
fn named_arrays(s: &str) -> Vec<(String, Words)> {
    if s == "-" {
        return vec![];
    }
    s.split(" ; ")
        .map(|a| {
            let (name, rest) = a.split_once(' ').unwrap();
            (name.to_string(), Words::parse(rest))
        })
        .collect()
}

pub(super) fn parse_cases() -> Vec<Case> {
    parse_cases_in(include_str!("../data/jnp_cases.txt"))
}

/// The derivatives of functions whose results depend on their values (unique and the set
/// functions on floats, with and without `size`, bincount's weights, repeat by an array,
/// ...), which JAX computes eagerly: tests/data/jnp_eager_derivatives.txt, written by
/// `gen_jnp_cases.py --eager-derivatives` in the same format.
fn parse_eager_derivative_cases() -> Vec<Case> {
    parse_cases_in(include_str!("../data/jnp_eager_derivatives.txt"))
}

/// The cases of a file in the format of the generator's docstring.
pub(super) fn parse_cases_in(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = vec![];
    for (n, l) in text.lines().enumerate() {
        if let Some(g) = l.strip_prefix("grad | ") {
            let last = cases.last_mut().expect("a grad line follows its case");
            last.grads = Some(named_arrays(g));
        } else if let Some(t) = l.strip_prefix("jvp | ") {
            let last = cases.last_mut().expect("a jvp line follows its case");
            let (ins, outs) = t
                .split_once(" | ")
                .expect("jvp | TANGENTS | OUTPUT_TANGENTS");
            last.tangents = Some((named_arrays(ins), named_arrays(outs)));
        } else if !l.trim().is_empty() {
            cases.push(parse_case(n, l));
        }
    }
    cases
}

fn parse_case(n: usize, l: &str) -> Case {
    let f: Vec<&str> = l.split(" | ").collect();
    assert_eq!(f.len(), 5, "line {}: {l}", n + 1);
    fn arrays(s: &str) -> Vec<&str> {
        if s == "-" {
            vec![]
        } else {
            s.split(" ; ").collect()
        }
    }
    Case {
        line: n + 1,
        name: f[0].to_string(),
        jit: f[1] == "jit",
        params_raw: f[2].to_string(),
        params: Params::parse(f[2]),
        inputs_raw: f[3].to_string(),
        inputs: named_arrays(f[3]),
        want: arrays(f[4]).into_iter().map(Words::parse).collect(),
        grads: None,
        tangents: None,
    }
}

/// Why a case did not run: Olympus's error, or a parameter Olympus's signature lacks.
pub(super) enum Fail {
    Err(Error),
    Unsupported(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Err(e)
    }
}

fn unsupported<T>(why: &str) -> std::result::Result<T, Fail> {
    Err(Fail::Unsupported(why.to_string()))
}

/// The inputs of one call, by the generator's names.
pub(super) struct Args<'a> {
    pub(super) p: &'a Params,
    pub(super) names: &'a [String],
    pub(super) xs: &'a [Array],
}

impl Args<'_> {
    pub(super) fn get(&self, name: &str) -> Option<&Array> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|k| &self.xs[k])
    }
    /// Positional argument `k`: an input array, or a Python scalar parameter.
    pub(super) fn pos(&self, k: usize) -> Result<Array> {
        let name = format!("_{k}");
        match self.get(&name) {
            Some(a) => Ok(a.clone()),
            None => self.p.weak(&name),
        }
    }
    fn has_pos(&self, k: usize) -> bool {
        let name = format!("_{k}");
        self.get(&name).is_some() || self.p.has(&name)
    }
    /// Every positional array, in order.
    pub(super) fn positional(&self) -> Vec<Array> {
        (0..)
            .map_while(|k| self.get(&format!("_{k}")).cloned())
            .collect()
    }
}

pub(super) fn axes_opt(p: &Params, k: &str) -> Option<Vec<isize>> {
    p.has(k)
        .then(|| p.ints(k).iter().map(|&a| a as isize).collect())
}

fn axis_opt(p: &Params, k: &str) -> Option<isize> {
    p.has(k).then(|| p.i(k) as isize)
}

fn method(p: &Params) -> QuantileMethod {
    match p.s_or("method", "linear") {
        "linear" => QuantileMethod::Linear,
        "lower" => QuantileMethod::Lower,
        "higher" => QuantileMethod::Higher,
        "midpoint" => QuantileMethod::Midpoint,
        "nearest" => QuantileMethod::Nearest,
        "inverted_cdf" => QuantileMethod::InvertedCdf,
        m => panic!("method {m}"),
    }
}

pub(super) fn index_mode(m: &str) -> IndexMode {
    match m {
        "fill" => IndexMode::Fill,
        "clip" => IndexMode::Clip,
        "wrap" => IndexMode::Wrap,
        "raise" => IndexMode::Raise,
        m => panic!("mode {m}"),
    }
}

fn bit_order(p: &Params) -> BitOrder {
    match p.s_or("bitorder", "big") {
        "big" => BitOrder::Big,
        _ => BitOrder::Little,
    }
}

fn conv_mode(m: &str) -> ConvMode {
    match m {
        "full" => ConvMode::Full,
        "same" => ConvMode::Same,
        _ => ConvMode::Valid,
    }
}

/// `range=(lo, hi)` of histogram, or `[[lo, hi], ...]` of histogram2d.
fn ranges(p: &Params) -> Option<Vec<(f64, f64)>> {
    if !p.has("range") {
        return None;
    }
    let outer = list(p.raw("range"));
    if outer.iter().all(|s| s.starts_with('[')) {
        Some(
            outer
                .iter()
                .map(|r| {
                    let v: Vec<f64> = list(r).iter().map(|s| num(s)).collect();
                    (v[0], v[1])
                })
                .collect(),
        )
    } else {
        let v = p.floats("range");
        Some(vec![(v[0], v[1])])
    }
}

/// NumPy's `pad_width` (an int, a pair, or a pair per axis) as pairs.
fn pad_width(p: &Params) -> Vec<(usize, usize)> {
    let outer = list(p.raw("pad_width"));
    if outer.iter().all(|s| s.starts_with('[')) {
        outer
            .iter()
            .map(|r| {
                let v: Vec<usize> = list(r).iter().map(|s| s.parse().unwrap()).collect();
                (v[0], v[1])
            })
            .collect()
    } else {
        let v: Vec<usize> = outer.iter().map(|s| s.parse().unwrap()).collect();
        if v.len() == 1 {
            vec![(v[0], v[0])]
        } else {
            vec![(v[0], v[1])]
        }
    }
}

/// The `size` parameter of the set functions.
fn size(p: &Params) -> Option<usize> {
    p.has("size").then(|| p.i("size") as usize)
}

fn one(a: Array) -> std::result::Result<Vec<Array>, Fail> {
    Ok(vec![a])
}

/// Runs case `name` with parameters `p` on `xs` (named `names`): Olympus's outputs, in
/// JAX's order.
pub(super) fn call(
    name: &str,
    p: &Params,
    names: &[String],
    xs: &[Array],
) -> std::result::Result<Vec<Array>, Fail> {
    let a = Args { p, names, xs };
    let x0 = || a.pos(0);
    let x1 = || a.pos(1);
    let keepdims = p.b_or("keepdims", false);
    match name {
        // ---- interpolation, convolution, polynomials ----
        "interp" => one(np::interp(
            x0()?,
            x1()?,
            a.pos(2)?,
            p.opt_f("left"),
            p.opt_f("right"),
            p.opt_f("period"),
        )?),
        "convolve" => one(np::convolve(
            x0()?,
            x1()?,
            conv_mode(p.s_or("mode", "full")),
        )?),
        "correlate" => one(np::correlate(
            x0()?,
            x1()?,
            conv_mode(p.s_or("mode", "valid")),
        )?),
        "polyval" => one(np::polyval(x0()?, x1()?)?),
        "polyadd" => one(np::polyadd(x0()?, x1()?)?),
        "polysub" => one(np::polysub(x0()?, x1()?)?),
        "polymul" => {
            if p.has("trim_leading_zeros") {
                one(np::polymul_with(
                    x0()?,
                    x1()?,
                    p.b_or("trim_leading_zeros", false),
                )?)
            } else {
                one(np::polymul(x0()?, x1()?)?)
            }
        }
        "polyder" => one(np::polyder(x0()?, p.i_or("m", 1) as usize)?),
        "polyint" => {
            let k = p.has("k").then(|| p.floats("k"));
            one(np::polyint(x0()?, p.i_or("m", 1) as usize, k.as_deref())?)
        }
        "vander" => one(np::vander(
            x0()?,
            p.has("N").then(|| p.i("N") as usize),
            p.b_or("increasing", false),
        )?),
        "poly" => one(np::poly(x0()?)?),
        "polydiv" => {
            let (q, r) = np::polydiv(x0()?, x1()?)?;
            Ok(vec![q, r])
        }
        // ---- differences, gradients, integrals ----
        "gradient" => {
            let axis = axes_opt(p, "axis");
            let f = x0()?;
            let spacing: Vec<Spacing> = (1..)
                .map_while(|k| {
                    let n = format!("_{k}");
                    if let Some(c) = a.get(&n) {
                        Some(Spacing::Coordinates(c.clone()))
                    } else if p.has(&n) {
                        Some(Spacing::Step(p.f(&n)))
                    } else {
                        None
                    }
                })
                .collect();
            if spacing.iter().any(|s| matches!(s, Spacing::Coordinates(_))) {
                Ok(np::gradient_with(f, &spacing, axis.as_deref())?)
            } else {
                let steps: Vec<f64> = spacing
                    .iter()
                    .map(|s| match s {
                        Spacing::Step(h) => *h,
                        Spacing::Coordinates(_) => unreachable!(),
                    })
                    .collect();
                Ok(np::gradient(f, &steps, axis.as_deref())?)
            }
        }
        "unwrap" => {
            let period = if p.has("period") {
                p.weak("period")?
            } else {
                np::asarray(std::f64::consts::TAU)?
            };
            one(np::unwrap(
                x0()?,
                p.opt_f("discont"),
                p.i_or("axis", -1) as isize,
                period,
            )?)
        }
        "diff" => one(np::diff(
            x0()?,
            p.i_or("n", 1) as usize,
            p.i_or("axis", -1) as isize,
            a.get("prepend"),
            a.get("append"),
        )?),
        "ediff1d" => one(np::ediff1d(x0()?, a.get("to_end"), a.get("to_begin"))?),
        "trapezoid" => one(np::trapezoid(
            x0()?,
            a.get("_1"),
            p.f_or("dx", 1.0),
            p.i_or("axis", -1) as isize,
        )?),
        // ---- histograms and binning ----
        "histogram" | "histogram_bin_edges" => {
            let bins: Bins = match a.get("_1") {
                Some(e) => Bins::Edges(e.clone()),
                None => Bins::Count(p.i_or("bins", 10) as usize),
            };
            let range = ranges(p).map(|r| r[0]);
            if name == "histogram" {
                let (h, e) = np::histogram(
                    x0()?,
                    bins,
                    range,
                    a.get("weights"),
                    p.b_or("density", false),
                )?;
                Ok(vec![h, e])
            } else {
                one(np::histogram_bin_edges(x0()?, bins, range)?)
            }
        }
        "histogram2d" => {
            let bins: Vec<Bins> = p
                .ints("bins")
                .iter()
                .cycle()
                .take(2)
                .map(|&n| Bins::Count(n as usize))
                .collect();
            let r = ranges(p);
            let (h, ex, ey) = np::histogram2d(
                x0()?,
                x1()?,
                &bins,
                r.as_deref(),
                a.get("weights"),
                p.b_or("density", false),
            )?;
            Ok(vec![h, ex, ey])
        }
        "digitize" => one(np::digitize(x0()?, x1()?, p.b_or("right", false))?),
        "bincount" => one(np::bincount(
            x0()?,
            a.get("weights"),
            p.i_or("minlength", 0) as usize,
            p.has("length").then(|| p.i("length") as usize),
        )?),
        "searchsorted" => one(np::searchsorted(
            x0()?,
            x1()?,
            if p.s_or("side", "left") == "right" {
                Side::Right
            } else {
                Side::Left
            },
            a.get("sorter"),
        )?),
        // ---- order statistics, averages, covariance ----
        "quantile" | "percentile" | "nanquantile" | "nanpercentile" => {
            let f = match name {
                "quantile" => np::quantile,
                "percentile" => np::percentile,
                "nanquantile" => np::nanquantile,
                _ => np::nanpercentile,
            };
            let axis = axes_opt(p, "axis");
            one(f(x0()?, x1()?, axis.as_deref(), method(p), keepdims)?)
        }
        "median" | "nanmedian" => {
            let axis = axes_opt(p, "axis");
            let f = if name == "median" {
                np::median
            } else {
                np::nanmedian
            };
            one(f(x0()?, axis.as_deref(), keepdims)?)
        }
        "average" => {
            let axis = axes_opt(p, "axis");
            if p.b_or("returned", false) {
                let (v, w) =
                    np::average_returned(x0()?, axis.as_deref(), a.get("weights"), keepdims)?;
                Ok(vec![v, w])
            } else {
                one(np::average(
                    x0()?,
                    axis.as_deref(),
                    a.get("weights"),
                    keepdims,
                )?)
            }
        }
        "cov" => {
            let ddof = p.has("ddof").then(|| p.i("ddof") as usize);
            let (rowvar, bias) = (p.b_or("rowvar", true), p.b_or("bias", false));
            if a.get("fweights").is_some() || a.get("aweights").is_some() {
                one(np::cov_with(
                    x0()?,
                    a.get("_1"),
                    rowvar,
                    bias,
                    ddof,
                    a.get("fweights"),
                    a.get("aweights"),
                )?)
            } else {
                one(np::cov(x0()?, a.get("_1"), rowvar, bias, ddof)?)
            }
        }
        "corrcoef" => one(np::corrcoef(x0()?, a.get("_1"), p.b_or("rowvar", true))?),
        "var" | "std" | "nanvar" | "nanstd" => {
            let f = match name {
                "var" => np::var,
                "std" => np::std,
                "nanvar" => np::nanvar,
                _ => np::nanstd,
            };
            let axis = axes_opt(p, "axis");
            one(f(
                x0()?,
                axis.as_deref(),
                p.i_or("ddof", 0) as usize,
                keepdims,
            )?)
        }
        "ptp" => {
            let axis = axes_opt(p, "axis");
            one(np::ptp(x0()?, axis.as_deref(), keepdims)?)
        }
        // ---- products ----
        "cross" => one(np::cross(x0()?, x1()?, p.i_or("axis", -1) as isize)?),
        "outer" => one(np::outer(x0()?, x1()?)?),
        "kron" => one(np::kron(x0()?, x1()?)?),
        "trace" => one(np::trace_with(
            x0()?,
            p.i_or("offset", 0) as isize,
            p.i_or("axis1", 0) as isize,
            p.i_or("axis2", 1) as isize,
            p.dtype("dtype"),
        )?),
        // ---- triangles, diagonals, grids ----
        "tril" => one(np::tril(x0()?, p.i_or("k", 0) as isize)?),
        "triu" => one(np::triu(x0()?, p.i_or("k", 0) as isize)?),
        "tri" => one(np::tri(
            p.i("N") as usize,
            p.has("M").then(|| p.i("M") as usize),
            p.i_or("k", 0) as isize,
            p.dtype("dtype"),
        )?),
        "diag" => one(np::diag(x0()?, p.i_or("k", 0) as isize)?),
        "diagflat" => one(np::diagflat(x0()?, p.i_or("k", 0) as isize)?),
        "diagonal" => one(np::diagonal(
            x0()?,
            p.i_or("offset", 0) as isize,
            p.i_or("axis1", 0) as isize,
            p.i_or("axis2", 1) as isize,
        )?),
        "eye" => one(np::eye(
            p.i("N") as usize,
            p.has("M").then(|| p.i("M") as usize),
            p.i_or("k", 0) as isize,
            p.dtype("dtype").unwrap_or(DType::Float32),
        )?),
        "identity" => one(np::identity(
            p.i("n") as usize,
            p.dtype("dtype").unwrap_or(DType::Float32),
        )?),
        "fill_diagonal" => one(np::fill_diagonal(x0()?, x1()?, p.b_or("wrap", false))?),
        "meshgrid" => Ok(np::meshgrid(
            a.positional(),
            p.b_or("sparse", false),
            if p.s_or("indexing", "xy") == "ij" {
                Indexing::Ij
            } else {
                Indexing::Xy
            },
        )?),
        "indices" => {
            let dims: Vec<usize> = if p.raw("dimensions") == "[]" || p.raw("dimensions") == "()" {
                vec![]
            } else {
                p.ints("dimensions").iter().map(|&d| d as usize).collect()
            };
            one(np::indices(&dims, p.dtype("dtype"))?)
        }
        // ---- creation ----
        "linspace" => {
            let (start, stop) = (p.f("start"), p.f("stop"));
            let (num, endpoint) = (p.i_or("num", 50) as usize, p.b_or("endpoint", true));
            match p.dtype("dtype") {
                Some(d) => one(np::linspace_with(start, stop, num, endpoint, d)?),
                None => one(np::linspace(start, stop, num, endpoint)?),
            }
        }
        "logspace" => {
            let (start, stop) = (p.f("start"), p.f("stop"));
            let (num, endpoint) = (p.i_or("num", 50) as usize, p.b_or("endpoint", true));
            let base = p.f_or("base", 10.0);
            match p.dtype("dtype") {
                Some(d) => one(np::logspace_with(start, stop, num, endpoint, base, d)?),
                None => one(np::logspace(start, stop, num, endpoint, base)?),
            }
        }
        "geomspace" => one(np::geomspace(
            p.f("start"),
            p.f("stop"),
            p.i_or("num", 50) as usize,
            p.b_or("endpoint", true),
            p.dtype("dtype"),
        )?),
        "arange" => {
            let ints = ["start", "stop", "step"]
                .iter()
                .all(|k| p.raw(k).parse::<i64>().is_ok());
            let r = if ints {
                let spec = (p.i("start") as i32, p.i("stop") as i32, p.i("step") as i32);
                match p.dtype("dtype") {
                    Some(d) => np::arange_with(spec, d)?,
                    None => np::arange(spec)?,
                }
            } else {
                let spec = (p.f("start"), p.f("stop"), p.f("step"));
                match p.dtype("dtype") {
                    Some(d) => np::arange_with(spec, d)?,
                    None => np::arange(spec)?,
                }
            };
            one(r)
        }
        "full_like" | "zeros_like" | "ones_like" => {
            let shape = p.shape("shape");
            let (x, d, shape) = (x0()?, p.dtype("dtype"), shape.as_deref());
            one(match name {
                "full_like" => np::full_like_with(&x, x1()?, d, shape)?,
                "zeros_like" => np::zeros_like_with(&x, d, shape)?,
                _ => np::ones_like_with(&x, d, shape)?,
            })
        }
        // ---- rounding, floats ----
        "round" => one(np::round(x0()?, p.i_or("decimals", 0) as i32)?),
        "around" => one(np::around(x0()?, p.i_or("decimals", 0) as i32)?),
        "nan_to_num" => one(np::nan_to_num(
            x0()?,
            p.f_or("nan", 0.0),
            p.opt_f("posinf"),
            p.opt_f("neginf"),
        )?),
        "frexp" => {
            let (m, e) = np::frexp(x0()?)?;
            Ok(vec![m, e])
        }
        "ldexp" => one(np::ldexp(x0()?, x1()?)?),
        "modf" => {
            let (f, i) = np::modf(x0()?)?;
            Ok(vec![f, i])
        }
        "nextafter" => one(np::nextafter(x0()?, x1()?)?),
        "spacing" => one(np::spacing(x0()?)?),
        "i0" => one(np::i0(x0()?)?),
        "sinc" => one(np::sinc(x0()?)?),
        "float_power" => one(np::float_power(x0()?, x1()?)?),
        "heaviside" => one(np::heaviside(x0()?, x1()?)?),
        "copysign" => one(np::copysign(x0()?, x1()?)?),
        "signbit" => one(np::signbit(x0()?)?),
        // ---- integer and division functions ----
        "floor_divide" => one(np::floor_divide(x0()?, x1()?)?),
        "remainder" => one(np::remainder(x0()?, x1()?)?),
        "fmod" => one(np::fmod(x0()?, x1()?)?),
        "divmod" => {
            let (q, r) = np::divmod(x0()?, x1()?)?;
            Ok(vec![q, r])
        }
        "gcd" => one(np::gcd(x0()?, x1()?)?),
        "lcm" => one(np::lcm(x0()?, x1()?)?),
        "left_shift" => one(np::left_shift(x0()?, x1()?)?),
        "right_shift" => one(np::right_shift(x0()?, x1()?)?),
        "bitwise_count" => one(np::bitwise_count(x0()?)?),
        // ---- comparison of whole arrays ----
        "isclose" | "allclose" => {
            let f = if name == "isclose" {
                np::isclose
            } else {
                np::allclose
            };
            one(f(
                x0()?,
                x1()?,
                p.f_or("rtol", 1e-5),
                p.f_or("atol", 1e-8),
                p.b_or("equal_nan", false),
            )?)
        }
        "array_equal" => one(np::array_equal(x0()?, x1()?, p.b_or("equal_nan", false))?),
        "array_equiv" => one(np::array_equiv(x0()?, x1()?)?),
        // ---- sorting, searching, selection ----
        "sort" | "argsort" => {
            let axis = if p.0.get("axis").map(String::as_str) == Some("None") {
                None
            } else {
                Some(p.i_or("axis", -1) as isize)
            };
            let (desc, stable) = (p.b_or("descending", false), p.b_or("stable", true));
            if !p.has("descending") && !p.has("stable") {
                let f = if name == "sort" {
                    np::sort
                } else {
                    np::argsort
                };
                one(f(x0()?, axis)?)
            } else if name == "sort" {
                one(np::sort_with(x0()?, axis, desc, stable)?)
            } else {
                one(np::argsort_with(x0()?, axis, desc, stable)?)
            }
        }
        "lexsort" => one(np::lexsort(a.positional(), p.i_or("axis", -1) as isize)?),
        "partition" | "argpartition" => {
            let f = if name == "partition" {
                np::partition
            } else {
                np::argpartition
            };
            one(f(x0()?, p.i("_1") as isize, p.i_or("axis", -1) as isize)?)
        }
        "argmax" | "argmin" | "nanargmax" | "nanargmin" => {
            let f = match name {
                "argmax" => np::argmax,
                "argmin" => np::argmin,
                "nanargmax" => np::nanargmax,
                _ => np::nanargmin,
            };
            one(f(x0()?, axis_opt(p, "axis"), keepdims)?)
        }
        "count_nonzero" => {
            let axis = axes_opt(p, "axis");
            one(np::count_nonzero(x0()?, axis.as_deref(), keepdims)?)
        }
        "flatnonzero" => one(np::flatnonzero(
            x0()?,
            p.has("size").then(|| p.i("size") as usize),
            p.opt_f("fill_value"),
        )?),
        "argwhere" => one(np::argwhere(
            x0()?,
            p.has("size").then(|| p.i("size") as usize),
            p.opt_f("fill_value"),
        )?),
        "nonzero" => Ok(np::nonzero(
            x0()?,
            p.has("size").then(|| p.i("size") as usize),
            p.opt_f("fill_value"),
        )?),
        "extract" | "compress" => {
            let size = p.has("size").then(|| p.i("size") as usize);
            let fill = p.has("fill_value").then(|| p.f("fill_value"));
            one(match name {
                "extract" => np::extract_with(x0()?, x1()?, size, fill)?,
                _ => np::compress_with(x0()?, x1()?, axis_opt(p, "axis"), size, fill)?,
            })
        }
        // ---- indexing ----
        "take" => {
            let axis = axis_opt(p, "axis");
            if p.has("mode") || p.has("fill_value") {
                one(np::take_with(
                    x0()?,
                    x1()?,
                    axis,
                    index_mode(p.s_or("mode", "fill")),
                    p.opt_f("fill_value"),
                )?)
            } else {
                one(np::take(x0()?, x1()?, axis)?)
            }
        }
        "take_along_axis" => {
            let axis = p.i("axis") as isize;
            if p.has("mode") || p.has("fill_value") {
                one(np::take_along_axis_with(
                    x0()?,
                    x1()?,
                    axis,
                    index_mode(p.s_or("mode", "fill")),
                    p.opt_f("fill_value"),
                )?)
            } else {
                one(np::take_along_axis(x0()?, x1()?, axis)?)
            }
        }
        "choose" => one(np::choose(
            x0()?,
            np::unstack(x1()?, 0)?,
            index_mode(p.s_or("mode", "raise")),
        )?),
        "select" => {
            let default = if p.has("default") {
                p.weak("default")?
            } else {
                np::asarray(0i64)?
            };
            one(np::select(
                np::unstack(x0()?, 0)?,
                np::unstack(x1()?, 0)?,
                default,
            )?)
        }
        "piecewise" => {
            let funcs = p.floats("funclist").into_iter().map(Piece::Value).collect();
            one(np::piecewise(x0()?, np::unstack(x1()?, 0)?, funcs)?)
        }
        "ravel_multi_index" => {
            let dims: Vec<usize> = p.ints("dims").iter().map(|&d| d as usize).collect();
            let order = if p.s_or("order", "C") == "F" {
                Order::F
            } else {
                Order::C
            };
            one(np::ravel_multi_index_with(
                np::unstack(x0()?, 0)?,
                &dims,
                index_mode(p.s_or("mode", "raise")),
                order,
                None,
            )?)
        }
        "unravel_index" => {
            let shape: Vec<usize> = p.ints("shape").iter().map(|&d| d as usize).collect();
            Ok(np::unravel_index(x0()?, &shape)?)
        }
        // ---- reshaping and padding ----
        "roll" => {
            let shift: Vec<isize> = p.ints("shift").iter().map(|&s| s as isize).collect();
            let axis = axes_opt(p, "axis");
            one(np::roll(x0()?, &shift, axis.as_deref())?)
        }
        "rot90" => {
            let axes = if p.has("axes") {
                let v = p.ints("axes");
                (v[0] as isize, v[1] as isize)
            } else {
                (0, 1)
            };
            one(np::rot90(x0()?, p.i_or("k", 1), axes)?)
        }
        "tile" => {
            let reps: Vec<usize> = p.ints("reps").iter().map(|&r| r as usize).collect();
            one(np::tile(x0()?, &reps)?)
        }
        "repeat" => {
            if p.has("total_repeat_length") {
                return unsupported("repeat's total_repeat_length");
            }
            let reps: np::Repeats = if let Some(r) = a.get("repeats") {
                r.to_vec::<i32>()?
                    .iter()
                    .map(|&r| r as usize)
                    .collect::<Vec<_>>()
                    .into()
            } else {
                (p.i("repeats") as usize).into()
            };
            one(np::repeat(x0()?, reps, axis_opt(p, "axis"))?)
        }
        "resize" => {
            let shape: Vec<usize> = p.ints("new_shape").iter().map(|&d| d as usize).collect();
            one(np::resize(x0()?, &shape)?)
        }
        "pad" => {
            let mode = match p.s_or("mode", "constant") {
                "constant" => {
                    let v = if p.has("constant_values") {
                        match p.raw("constant_values") {
                            "True" => 1.0,
                            "False" => 0.0,
                            v => num(v),
                        }
                    } else {
                        0.0
                    };
                    PadMode::Constant(v)
                }
                "edge" => PadMode::Edge,
                m => return unsupported(&format!("pad mode {m}")),
            };
            one(np::pad(x0()?, &pad_width(p), mode)?)
        }
        "append" => one(np::append(x0()?, x1()?, axis_opt(p, "axis"))?),
        "trim_zeros" => one(np::trim_zeros(x0()?, p.s_or("trim", "fb"))?),
        // ---- cumulative ----
        "cumsum" | "cumprod" => {
            let axis = axis_opt(p, "axis");
            let r = match (name, p.dtype("dtype")) {
                ("cumsum", None) => np::cumsum(x0()?, axis)?,
                ("cumsum", d) => np::cumsum_with(x0()?, axis, d)?,
                (_, None) => np::cumprod(x0()?, axis)?,
                (_, d) => np::cumprod_with(x0()?, axis, d)?,
            };
            one(r)
        }
        "nancumsum" | "nancumprod" => {
            let f = if name == "nancumsum" {
                np::nancumsum_with
            } else {
                np::nancumprod_with
            };
            one(f(x0()?, axis_opt(p, "axis"), p.dtype("dtype"))?)
        }
        "cumulative_sum" | "cumulative_prod" => {
            let f = if name == "cumulative_sum" {
                np::cumulative_sum
            } else {
                np::cumulative_prod
            };
            one(f(
                x0()?,
                axis_opt(p, "axis"),
                p.dtype("dtype"),
                p.b_or("include_initial", false),
            )?)
        }
        // ---- sets ----
        "unique" => {
            let opts = UniqueOptions {
                return_index: p.b_or("return_index", false),
                return_inverse: p.b_or("return_inverse", false),
                return_counts: p.b_or("return_counts", false),
                equal_nan: p.b_or("equal_nan", true),
                size: p.has("size").then(|| p.i("size") as usize),
                fill_value: p.opt_f("fill_value"),
                axis: axis_opt(p, "axis"),
            };
            let u = np::unique_with(x0()?, opts)?;
            let mut out = vec![u.values];
            out.extend(u.indices);
            out.extend(u.inverse);
            out.extend(u.counts);
            Ok(out)
        }
        "unique_values" => one(np::unique_values(x0()?, size(p), p.opt_f("fill_value"))?),
        "unique_counts" => {
            let (v, c) = np::unique_counts(x0()?, size(p), p.opt_f("fill_value"))?;
            Ok(vec![v, c])
        }
        "unique_inverse" => {
            let (v, i) = np::unique_inverse(x0()?, size(p), p.opt_f("fill_value"))?;
            Ok(vec![v, i])
        }
        "unique_all" => {
            let u = np::unique_all(x0()?, size(p), p.opt_f("fill_value"))?;
            Ok(vec![u.values, u.indices, u.inverse_indices, u.counts])
        }
        "intersect1d" => {
            let (size, fill) = (
                p.has("size").then(|| p.i("size") as usize),
                p.opt_f("fill_value"),
            );
            let assume = p.b_or("assume_unique", false);
            if p.b_or("return_indices", false) {
                let (v, i1, i2) = np::intersect1d_indices(x0()?, x1()?, assume, size, fill)?;
                Ok(vec![v, i1, i2])
            } else {
                one(np::intersect1d(x0()?, x1()?, assume, size, fill)?)
            }
        }
        "union1d" => one(np::union1d(
            x0()?,
            x1()?,
            p.has("size").then(|| p.i("size") as usize),
            p.opt_f("fill_value"),
        )?),
        "setdiff1d" | "setxor1d" => {
            let f = if name == "setdiff1d" {
                np::setdiff1d
            } else {
                np::setxor1d
            };
            one(f(
                x0()?,
                x1()?,
                p.b_or("assume_unique", false),
                p.has("size").then(|| p.i("size") as usize),
                p.opt_f("fill_value"),
            )?)
        }
        "isin" => one(np::isin(x0()?, x1()?, p.b_or("invert", false))?),
        // ---- bits ----
        "packbits" => one(np::packbits(x0()?, axis_opt(p, "axis"), bit_order(p))?),
        "unpackbits" => one(np::unpackbits(
            x0()?,
            axis_opt(p, "axis"),
            p.has("count").then(|| p.i("count") as isize),
            bit_order(p),
        )?),
        // ---- clip, windows ----
        "clip" => {
            if a.has_pos(1) {
                one(np::clip(x0()?, x1()?, a.pos(2)?)?)
            } else {
                one(np::clip(x0()?, p.weak("min")?, p.weak("max")?)?)
            }
        }
        "hamming" => one(np::hamming(p.i("M") as usize)?),
        "hanning" => one(np::hanning(p.i("M") as usize)?),
        "blackman" => one(np::blackman(p.i("M") as usize)?),
        "bartlett" => one(np::bartlett(p.i("M") as usize)?),
        "kaiser" => one(np::kaiser(p.i("M") as usize, p.f("beta"))?),
        _ => unsupported("not in Olympus"),
    }
}

/// Whether JAX computes the case's floats exactly (selection, sorting, indexing, padding,
/// rounding, bit manipulation): those compare bit for bit.
pub(super) fn exact(name: &str, p: &Params) -> bool {
    match name {
        "interp"
        | "convolve"
        | "correlate"
        | "polyval"
        | "polymul"
        | "polyint"
        | "polydiv"
        | "poly"
        | "vander"
        | "gradient"
        | "unwrap"
        | "histogram"
        | "histogram_bin_edges"
        | "histogram2d"
        | "median"
        | "nanmedian"
        | "average"
        | "cov"
        | "corrcoef"
        | "var"
        | "std"
        | "nanvar"
        | "nanstd"
        | "trapezoid"
        | "cross"
        | "trace"
        | "linspace"
        | "logspace"
        | "geomspace"
        | "arange"
        | "cumsum"
        | "cumprod"
        | "nancumsum"
        | "nancumprod"
        | "cumulative_sum"
        | "cumulative_prod"
        | "i0"
        | "sinc"
        | "float_power"
        | "hamming"
        | "hanning"
        | "blackman"
        | "bartlett"
        | "kaiser" => false,
        "quantile" | "percentile" | "nanquantile" | "nanpercentile" => matches!(
            p.s_or("method", "linear"),
            "lower" | "higher" | "nearest" | "inverted_cdf"
        ),
        _ => true,
    }
}

/// Olympus's outputs against JAX's: `None` when they agree.
pub(super) fn compare(got: &[Words], want: &[Words], exact: bool) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} outputs, JAX has {}", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if g.dtype != w.dtype || g.shape != w.shape {
            return Some(format!(
                "output {k}: {} {:?}, JAX has {} {:?}",
                g.dtype.name(),
                g.shape,
                w.dtype.name(),
                w.shape
            ));
        }
        let nan_or_same =
            |i: usize| g.words[i] == w.words[i] || (g.value(i).is_nan() && w.value(i).is_nan());
        if (0..w.words.len()).all(nan_or_same) {
            continue;
        }
        if exact || !w.dtype.is_floating() {
            let i = (0..w.words.len()).find(|&i| !nan_or_same(i)).unwrap_or(0);
            return Some(format!("output {k} differs at element {i}"));
        }
        let eps = match w.dtype {
            DType::Float16 => 2f64.powi(-10),
            DType::BFloat16 => 2f64.powi(-7),
            _ => 2f64.powi(-23),
        };
        let scale = (0..w.words.len())
            .map(|i| w.value(i).abs())
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max);
        for i in 0..w.words.len() {
            let (gv, wv) = (g.value(i), w.value(i));
            let ok = if wv.is_nan() || gv.is_nan() {
                wv.is_nan() && gv.is_nan()
            } else if wv.is_infinite() || gv.is_infinite() {
                wv == gv
            } else {
                let mag = gv.abs().max(wv.abs()).max(scale / SCALE_SHARE);
                (gv - wv).abs() <= ULPS * eps * mag
            };
            if !ok {
                return Some(format!("output {k} differs at element {i}"));
            }
        }
    }
    None
}

/// `outputs` read back as words.
pub(super) fn read_back(outputs: &[Array]) -> Vec<Words> {
    outputs
        .iter()
        .map(Words::of)
        .collect::<Result<_>>()
        .expect("read back")
}

/// A failure's report: the case, why, its inputs, then `lines` (Olympus's and JAX's).
pub(super) fn report(c: &Case, why: &str, lines: impl IntoIterator<Item = String>) -> String {
    let mut s = format!("line {}: {} ({}) {why}\n", c.line, c.name, c.params_raw);
    for (n, w) in &c.inputs {
        let _ = writeln!(s, "    in  {n} = {}", w.show());
    }
    for l in lines {
        let _ = writeln!(s, "    {l}");
    }
    s
}

/// A case line for the lists of skipped and excepted cases.
pub(super) fn case_line(c: &Case, why: &str) -> String {
    format!("line {}: {} ({}): {why}", c.line, c.name, c.params_raw)
}

#[test]
fn numpy_functions_give_jax_values() {
    let cases = parse_cases();
    assert!(cases.len() > 500, "{} cases", cases.len());
    check_values(&cases);
}

/// The cases of tests/data/jnp_eager_derivatives.txt (see [`parse_eager_derivative_cases`])
/// give JAX's values, eagerly and, where JAX jitted them (`size`), under `jit`.
#[test]
fn eager_derivative_cases_give_jax_values() {
    let cases = parse_eager_derivative_cases();
    assert!(cases.len() > 80, "{} cases", cases.len());
    check_values(&cases);
}

/// The values of `cases` against JAX's (see [`numpy_functions_give_jax_values`]).
fn check_values(cases: &[Case]) {
    let (mut failures, mut documented, mut skipped) = (vec![], vec![], vec![]);
    let (mut ran, mut jitted) = (0, 0);
    let mut names = std::collections::BTreeSet::new();
    for c in cases {
        let inputs: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        let in_names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let describe = |why: &str, got: Option<&[Words]>| {
            let ours = got
                .into_iter()
                .flatten()
                .map(|g| format!("olympus {}", g.show()));
            report(
                c,
                why,
                ours.chain(c.want.iter().map(|w| format!("jax     {}", w.show()))),
            )
        };
        let documented_as = DOCUMENTED_EXCEPTIONS
            .iter()
            .find(|(n, p, i, _)| *n == c.name && *p == c.params_raw && c.inputs_raw.contains(i));
        let eager = call(&c.name, &c.params, &in_names, &inputs);
        let got = match eager {
            Ok(outs) => read_back(&outs),
            Err(Fail::Unsupported(why)) => {
                skipped.push(case_line(c, &why));
                continue;
            }
            Err(Fail::Err(e)) => {
                failures.push(describe(&format!("eager error: {e}"), None));
                continue;
            }
        };
        ran += 1;
        names.insert(c.name.clone());
        let ex = exact(&c.name, &c.params);
        if let Some(why) = compare(&got, &c.want, ex) {
            match documented_as {
                Some((_, _, _, reason)) if compare_meta(&got, &c.want) => {
                    documented.push(format!("{}: {reason}", c.name))
                }
                _ => failures.push(describe(&format!("eager: {why}"), Some(&got))),
            }
        }
        if c.jit {
            let (name, params, nm) = (c.name.clone(), &c.params, in_names.clone());
            let jitted_out = jit(move |xs: Vec<Array>| {
                call(&name, params, &nm, &xs).map_err(|f| match f {
                    Fail::Err(e) => e,
                    Fail::Unsupported(_) => unreachable!("ran eagerly"),
                })
            })
            .call(inputs.clone());
            jitted += 1;
            match jitted_out {
                Ok(outs) => {
                    let got_jit = read_back(&outs);
                    if let Some(why) = compare(&got_jit, &c.want, ex) {
                        if documented_as.is_none() {
                            failures.push(describe(&format!("under jit: {why}"), Some(&got_jit)));
                        }
                    }
                }
                Err(e) => failures.push(describe(&format!("jit error: {e}"), None)),
            }
        }
    }
    eprintln!(
        "{ran} cases of {} functions ran ({jitted} also under jit), {} documented exceptions, {} skipped:",
        names.len(),
        documented.len(),
        skipped.len()
    );
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from JAX:\n{}",
        failures.len(),
        cases.len(),
        failures.join("")
    );
}

/// Whether the outputs agree in count, dtype and shape (what a documented exception must
/// still match).
pub(super) fn compare_meta(got: &[Words], want: &[Words]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| g.dtype == w.dtype && g.shape == w.shape)
}

/// Cases whose gradient differs from JAX's (by the documented subnormal policy, or to be
/// fixed in Olympus, as each reason says): (name, parameters as
/// written in the data file (empty: any), a piece of the case's inputs as written there (empty: any),
/// reason). The gradient test skips them and prints them.
const GRADIENT_DIFFERENCES: &[(&str, &str, &str, &str)] = &[
    (
        "ldexp",
        "-",
        "_0 float32 [13]",
        "subnormals are kept (README): d/dx1 at (2^0, -126) is the subnormal 2^-126 * w \
         (XLA:CPU: -0), and at (3e38, 1) frexp's 2^-128 stays subnormal, so its product \
         with 2^128 = inf is inf (XLA flushes it: 0 * inf, NaN)",
    ),
    (
        "ldexp",
        "-",
        "_0 float32 [6] 3f800000 3f400000",
        "subnormals are kept (README): the derivative 2^x2 at x2 <= -130 is subnormal, \
         which XLA:CPU flushes to 0",
    ),
    (
        "ptp",
        "-",
        "_0 float32 [3] 3f800000 7fc00000",
        "NaN in the data: Olympus's gradient is all NaN, as JAX's eager one; JAX's jitted one \
         is 0, since XLA turns the max/min rule's product by a mask into a select",
    ),
    (
        "setxor1d",
        "assume_unique=False size=6",
        "7fc00000",
        "NaN in the data, padding without fill_value: JAX pads with max then min of the \
         result, whose rule gives NaN eagerly (Olympus, and JAX's eager grad) and finite values \
         under JAX's jit (XLA turns the rule's product by a mask into a select, as for ptp)",
    ),
    (
        "var",
        "axis=0 ddof=2",
        "",
        "signed zeros only: where x equals the mean, Olympus's gradient is +0, JAX's -0 \
         (a negative weight times 0)",
    ),
    (
        "var",
        "ddof=3",
        "",
        "signed zeros only (ddof past the count): Olympus [0, 0], JAX [0, -0]",
    ),
    (
        "corrcoef",
        "-",
        "_0 float32 [3,4] 3f800000 40000000",
        "probably not a bug: rounding noise at an element whose derivative is 0 (float64: \
         8e-17): Olympus 1.49e-7, JAX 3.7e-8, over the 1e-7 floor (1e-6 of the mean 0.1)",
    ),
];

/// Relative tolerance of the gradient comparison.
const GRAD_RTOL: f64 = 1e-5;
/// Absolute floor of the gradient comparison, as a share of the gradient's mean finite
/// magnitude (rounding noise of derivatives that are mathematically zero).
const GRAD_ATOL_SHARE: f64 = 1e-6;

/// The generator's weights of output `k`: `float32(cos(1.3 * i + k))` in row-major order.
pub(super) fn grad_weights(shape: &[usize], k: usize) -> Array {
    let n: usize = shape.iter().product();
    let w: Vec<f32> = (0..n)
        .map(|i| (1.3 * i as f64 + k as f64).cos() as f32)
        .collect();
    Array::from_slice(&w, shape).expect("upload")
}

/// The weighted sum of the float32 outputs (JAX's positions `fouts`) of case `name` with
/// the float32 inputs (positions `wrt`) replaced by `v`.
#[allow(clippy::too_many_arguments)]
pub(super) fn grad_loss(
    name: &str,
    p: &Params,
    names: &[String],
    inputs: &[Array],
    wrt: &[usize],
    fouts: &[(usize, Array)],
    v: Vec<Array>,
) -> Result<Array> {
    let mut xs = inputs.to_vec();
    for (&k, a) in wrt.iter().zip(v) {
        xs[k] = a;
    }
    let outs = call(name, p, names, &xs).map_err(|f| match f {
        Fail::Err(e) => e,
        Fail::Unsupported(why) => Error::InvalidArgument {
            func: name.to_string(),
            reason: why,
        },
    })?;
    let mut total: Option<Array> = None;
    for (k, w) in fouts {
        let o = outs.get(*k).ok_or_else(|| Error::InvalidArgument {
            func: name.to_string(),
            reason: format!("no output {k}"),
        })?;
        let term = np::sum(np::multiply(o, w)?, None, false)?;
        total = Some(match total {
            Some(t) => np::add(&t, &term)?,
            None => term,
        });
    }
    Ok(total.expect("a float output"))
}

/// Olympus's gradients against JAX's: `None` when they agree.
fn compare_grads(got: &[Words], want: &[(String, Words)]) -> Option<String> {
    compare_derivatives("gradient", got, want)
}

/// Olympus's derivatives (`what`: gradients or tangents) against JAX's, within [`GRAD_RTOL`]
/// and [`GRAD_ATOL_SHARE`]: `None` when they agree.
pub(super) fn compare_derivatives(
    what: &str,
    got: &[Words],
    want: &[(String, Words)],
) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} {what}s, JAX has {}", got.len(), want.len()));
    }
    for (g, (n, w)) in got.iter().zip(want) {
        if g.dtype != w.dtype || g.shape != w.shape {
            return Some(format!(
                "{what} of {n}: {} {:?}, JAX has {} {:?}",
                g.dtype.name(),
                g.shape,
                w.dtype.name(),
                w.shape
            ));
        }
        let finite: Vec<f64> = (0..w.words.len())
            .map(|i| w.value(i).abs())
            .filter(|v| v.is_finite())
            .collect();
        let mean = if finite.is_empty() {
            0.0
        } else {
            finite.iter().sum::<f64>() / finite.len() as f64
        };
        for i in 0..w.words.len() {
            let (gv, wv) = (g.value(i), w.value(i));
            let ok = if wv.is_nan() || gv.is_nan() {
                wv.is_nan() && gv.is_nan()
            } else if wv.is_infinite() || gv.is_infinite() {
                wv == gv
            } else if gv == 0.0 && wv == 0.0 {
                gv.is_sign_negative() == wv.is_sign_negative()
            } else {
                (gv - wv).abs() <= GRAD_RTOL * gv.abs().max(wv.abs()) + GRAD_ATOL_SHARE * mean
            };
            if !ok {
                return Some(format!("{what} of {n} differs at element {i}"));
            }
        }
    }
    None
}

#[test]
fn numpy_functions_give_jax_gradients() {
    check_gradients(&parse_cases(), 300);
}

/// JAX's eager gradients of functions whose results depend on their values
/// (tests/data/jnp_eager_derivatives.txt: the set functions on floats, bincount's weights,
/// repeat by an array, ...): constants where JAX's source makes the data concrete
/// (`core.concrete_or_error`), derivatives through the sort and gathers elsewhere; jitted
/// too where JAX jitted the case (`size`).
#[test]
fn eager_derivative_cases_give_jax_gradients() {
    check_gradients(&parse_eager_derivative_cases(), 80);
}

/// The gradients of `cases` against JAX's (at least `min_ran` of them run).
fn check_gradients(cases: &[Case], min_ran: usize) {
    let (mut failures, mut listed, mut skipped) = (vec![], vec![], vec![]);
    let (mut ran, mut jitted) = (0, 0);
    let mut names = std::collections::BTreeSet::new();
    for c in cases {
        let Some(want) = &c.grads else { continue };
        let inputs: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        let in_names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let wrt: Vec<usize> = want
            .iter()
            .map(|(n, _)| in_names.iter().position(|m| m == n).expect("input"))
            .collect();
        let fouts: Vec<(usize, Array)> = c
            .want
            .iter()
            .enumerate()
            .filter(|(_, w)| w.dtype == DType::Float32)
            .map(|(k, w)| (k, grad_weights(&w.shape, k)))
            .collect();
        let describe = |why: &str, got: Option<&[Words]>| {
            let ours = got
                .into_iter()
                .flat_map(|g| g.iter().zip(want))
                .map(|(g, (n, _))| format!("olympus d/d{n} {}", g.show()));
            let theirs = want
                .iter()
                .map(|(n, w)| format!("jax     d/d{n} {}", w.show()));
            report(c, why, ours.chain(theirs))
        };
        if let Some((_, _, _, reason)) = GRADIENT_DIFFERENCES.iter().find(|(n, p, i, _)| {
            *n == c.name && (p.is_empty() || *p == c.params_raw) && c.inputs_raw.contains(i)
        }) {
            listed.push(case_line(c, reason));
            continue;
        }
        if let Err(Fail::Unsupported(why)) = call(&c.name, &c.params, &in_names, &inputs) {
            skipped.push(case_line(c, &why));
            continue;
        }
        let params = &c.params;
        let wrt_in: Vec<Array> = wrt.iter().map(|&k| inputs[k].clone()).collect();
        let eager =
            grad(|v: Vec<Array>| grad_loss(&c.name, params, &in_names, &inputs, &wrt, &fouts, v))(
                wrt_in.clone(),
            );
        ran += 1;
        names.insert(c.name.clone());
        match eager {
            Ok(g) => {
                let got = read_back(&g);
                if let Some(why) = compare_grads(&got, want) {
                    failures.push(describe(&format!("eager: {why}"), Some(&got)));
                    continue;
                }
            }
            Err(e) => {
                failures.push(describe(&format!("eager grad error: {e}"), None));
                continue;
            }
        }
        if c.jit {
            jitted += 1;
            let (inputs, in_names, wrt, fouts) = (&inputs, &in_names, &wrt, &fouts);
            let name = c.name.clone();
            let out = jit(move |v: Vec<Array>| {
                grad(|v: Vec<Array>| grad_loss(&name, params, in_names, inputs, wrt, fouts, v))(v)
            })
            .call(wrt_in);
            match out {
                Ok(g) => {
                    let got = read_back(&g);
                    if let Some(why) = compare_grads(&got, want) {
                        failures.push(describe(&format!("under jit: {why}"), Some(&got)));
                    }
                }
                Err(e) => failures.push(describe(&format!("jit grad error: {e}"), None)),
            }
        }
    }
    let counts = (ran, jitted, names.len());
    finish("gradient", counts, min_ran, &listed, &skipped, &failures);
}

/// Cases whose forward-mode tangents differ from JAX's, by a documented Olympus behaviour:
/// (name, parameters as written in the data file (empty: any), a piece of the case's inputs
/// as written there (empty: any), reason). The tangent test skips them and prints them.
const TANGENT_DIFFERENCES: &[(&str, &str, &str, &str)] = &[
    (
        "ldexp",
        "-",
        "_0 float32 [13]",
        "subnormals are kept (README), as in GRADIENT_DIFFERENCES: at (1, -126) the tangent \
         t * 2^-126 is subnormal (XLA:CPU: 0), and at (3e38, 1) JAX's `m * 2 ** e` \
         (jax/_src/numpy/ufuncs.py ldexp) multiplies frexp's subnormal mantissa derivative \
         2^-128 by 2^128 = inf: inf, where XLA flushes it (0 * inf, NaN)",
    ),
    (
        "ldexp",
        "-",
        "_0 float32 [6] 3f800000 3f400000",
        "subnormals are kept (README): the tangents t * 2^x2 at x2 <= -130 are subnormal, \
         which XLA:CPU flushes to 0",
    ),
    (
        "sinc",
        "-",
        "_0 float32 [12] 00000000 80000000",
        "not a bug: at x = 1e-8 the tangent is JAX's div rule `g / y + (-g * x) * y^-2` \
         (jax/_src/lax/lax.py `ad.defjvp(div_p, ...)`, y = pi x) whose terms (-+8.8e7) cancel \
         (the true tangent is -2.9e-8): Olympus rounds each operation as NumPy's float32 does \
         (8), where XLA:CPU contracts the last product and sum into an FMA (4.934, \
         reproduced by an f64 product rounded once)",
    ),
    (
        "corrcoef",
        "-",
        "_0 float32 [4] 3f800000 40000000 40800000 40e00000",
        "not a bug: rounding noise of a tangent that cancels from O(1) terms to 1.19266e-4 \
         (float64 JAX): Olympus's [1.19239e-4, 1.19269e-4] and JAX's float32 [1.19234e-4, \
         1.19228e-4] are both ~3e-8 off, past the 1e-5 relative tolerance",
    ),
];

/// The outputs of case `name` with the float32 inputs (positions `wrt`) replaced by `v`.
pub(super) fn with_inputs(
    name: &str,
    p: &Params,
    names: &[String],
    inputs: &[Array],
    wrt: &[usize],
    v: Vec<Array>,
) -> Result<Vec<Array>> {
    let mut xs = inputs.to_vec();
    for (&k, a) in wrt.iter().zip(v) {
        xs[k] = a;
    }
    call(name, p, names, &xs).map_err(|f| match f {
        Fail::Err(e) => e,
        Fail::Unsupported(why) => Error::InvalidArgument {
            func: name.to_string(),
            reason: why,
        },
    })
}

/// `jvp`'s outputs and tangents against the case's outputs and JAX's tangents of its
/// float32 outputs (`want`, named `out<k>`); the tangents of integer and bool outputs must be
/// zeros of the output's dtype and shape. `None` when they agree.
fn compare_jvp(
    c: &Case,
    outs: &[Array],
    touts: &[Array],
    want: &[(String, Words)],
) -> Option<String> {
    let (got, tgot) = (read_back(outs), read_back(touts));
    let documented = DOCUMENTED_EXCEPTIONS
        .iter()
        .any(|(n, p, i, _)| *n == c.name && *p == c.params_raw && c.inputs_raw.contains(i));
    if let Some(why) = compare(&got, &c.want, exact(&c.name, &c.params)) {
        if !(documented && compare_meta(&got, &c.want)) {
            return Some(format!("primal outputs: {why}"));
        }
    }
    if tgot.len() != got.len() {
        return Some(format!("{} tangents of {} outputs", tgot.len(), got.len()));
    }
    let mut mine = vec![];
    for (n, _) in want {
        let k: usize = n.trim_start_matches("out").parse().expect("out<k>");
        mine.push(tgot[k].clone());
    }
    for (k, (t, o)) in tgot.iter().zip(&got).enumerate() {
        if !o.dtype.is_floating()
            && (t.dtype != o.dtype || t.shape != o.shape || t.words.iter().any(|&w| w != 0))
        {
            return Some(format!(
                "output {k} ({}) has the tangent {}",
                o.dtype.name(),
                t.show()
            ));
        }
    }
    compare_derivatives("tangent", &mine, want)
}

#[test]
fn numpy_functions_give_jax_tangents() {
    check_tangents(&parse_cases(), 300);
}

/// JAX's eager forward mode of the cases of tests/data/jnp_eager_derivatives.txt (see
/// [`eager_derivative_cases_give_jax_gradients`]).
#[test]
fn eager_derivative_cases_give_jax_tangents() {
    check_tangents(&parse_eager_derivative_cases(), 80);
}

/// The tangents of `cases` against JAX's (at least `min_ran` of them run).
fn check_tangents(cases: &[Case], min_ran: usize) {
    let (mut failures, mut listed, mut skipped) = (vec![], vec![], vec![]);
    let (mut ran, mut jitted) = (0, 0);
    let mut names = std::collections::BTreeSet::new();
    for c in cases {
        let Some((tin, tout)) = &c.tangents else {
            continue;
        };
        let inputs: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        let in_names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let wrt: Vec<usize> = tin
            .iter()
            .map(|(n, _)| in_names.iter().position(|m| m == n).expect("input"))
            .collect();
        let describe = |why: &str, got: Option<&[Array]>| {
            let ours = got.into_iter().flatten().enumerate().map(|(k, t)| {
                let t = Words::of(t).expect("read back");
                format!("olympus out{k}' {}", t.show())
            });
            let tangents = tin
                .iter()
                .map(|(n, w)| format!("tangent {n}' {}", w.show()));
            let theirs = tout
                .iter()
                .map(|(n, w)| format!("jax     {n}' {}", w.show()));
            report(c, why, tangents.chain(ours).chain(theirs))
        };
        if let Some((_, _, _, reason)) = TANGENT_DIFFERENCES.iter().find(|(n, p, i, _)| {
            *n == c.name && (p.is_empty() || *p == c.params_raw) && c.inputs_raw.contains(i)
        }) {
            listed.push(case_line(c, reason));
            continue;
        }
        if let Err(Fail::Unsupported(why)) = call(&c.name, &c.params, &in_names, &inputs) {
            skipped.push(case_line(c, &why));
            continue;
        }
        let params = &c.params;
        let primals: Vec<Array> = wrt.iter().map(|&k| inputs[k].clone()).collect();
        let tangents: Vec<Array> = tin.iter().map(|(_, w)| w.array()).collect();
        let f = |v: Vec<Array>| with_inputs(&c.name, params, &in_names, &inputs, &wrt, v);
        ran += 1;
        names.insert(c.name.clone());
        match jvp(f, primals.clone(), tangents.clone()) {
            Ok((outs, touts)) => {
                if let Some(why) = compare_jvp(c, &outs, &touts, tout) {
                    failures.push(describe(&format!("eager: {why}"), Some(&touts)));
                    continue;
                }
            }
            Err(e) => {
                failures.push(describe(&format!("eager jvp error: {e}"), None));
                continue;
            }
        }
        if c.jit {
            jitted += 1;
            let (inputs, in_names, wrt) = (&inputs, &in_names, &wrt);
            let name = c.name.clone();
            let out = jit(move |(p, t): (Vec<Array>, Vec<Array>)| {
                jvp(
                    |v: Vec<Array>| with_inputs(&name, params, in_names, inputs, wrt, v),
                    p,
                    t,
                )
            })
            .call((primals, tangents));
            match out {
                Ok((outs, touts)) => {
                    if let Some(why) = compare_jvp(c, &outs, &touts, tout) {
                        failures.push(describe(&format!("under jit: {why}"), Some(&touts)));
                    }
                }
                Err(e) => failures.push(describe(&format!("jit jvp error: {e}"), None)),
            }
        }
    }
    let counts = (ran, jitted, names.len());
    finish(
        "forward-mode",
        counts,
        min_ran,
        &listed,
        &skipped,
        &failures,
    );
}

/// Prints a derivative test's counts, listed differences and skips, and fails on any other
/// difference from JAX (`kind`: "gradient", "forward-mode"); at least `min_ran` cases must
/// have run.
fn finish(
    kind: &str,
    (ran, jitted, functions): (usize, usize, usize),
    min_ran: usize,
    listed: &[String],
    skipped: &[String],
    failures: &[String],
) {
    eprintln!(
        "{ran} {kind} cases of {functions} functions ran ({jitted} also under jit), {} listed \
         differences, {} skipped:",
        listed.len(),
        skipped.len()
    );
    for s in listed {
        eprintln!("  listed difference {s}");
    }
    for s in skipped {
        eprintln!("  skipped {s}");
    }
    assert!(ran > min_ran, "{ran} {kind} cases ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} {kind} cases differ from JAX:\n{}",
        failures.len(),
        failures.join("")
    );
}

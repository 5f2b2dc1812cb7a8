//! A sweep of jax.numpy functions over every dtype and the edge cases the other JAX
//! comparisons leave out (0-d, empty, broadcast and non-contiguous inputs, negative axes,
//! `dtype=` arguments, weak Python scalars, special values), against JAX 0.10.2's answers
//! in tests/data/jnp_more.txt (written by tests/data/gen_jnp_more.py, whose docstring gives
//! the format: that of tests/data/jnp_cases.txt, read by `jnp_cases`'s parser).
//!
//! Each case runs eagerly and, where JAX jitted it, under `jit` too, and must give JAX's
//! output count, dtypes and shapes. Values compare bit for bit (NaN matches any NaN) for
//! the functions JAX computes exactly; elementwise transcendental functions within
//! [`ELEMENT_ULPS`] ulps of each element; reductions and products as `jnp_cases` compares
//! its rounding functions. Python scalars go in as Rust scalars (as weak 0-d arrays to
//! the functions `jnp_cases::call` runs). Where JAX's jitted and eager values differ,
//! either is accepted in either mode. Elements of elementwise functions that differ only
//! by the documented subnormal policy are counted, not failed ([`excuse_subnormals`]).
//! Differences from JAX that are known are listed in [`KNOWN_DIFFERENCES`].

use std::collections::BTreeMap;
use std::time::Duration;

use olympus::numpy as np;
use olympus::numpy::overrides::Arg;
use olympus::{jit, s, Array, DType, Result};

use super::jnp_cases::{
    axes_opt, call, compare, compare_meta, exact, index_mode, parse_cases_in, read_back, report,
    Args, Case, Fail, Params, Words,
};

/// Tolerance of the elementwise comparison of transcendental functions, in ulps of the
/// output's dtype at the element (subnormal results: of the smallest normal).
const ELEMENT_ULPS: f64 = 4.0;

/// Known differences from JAX: (name, the case's parameters as written in the data file
/// (empty: any; a trailing `*` matches any rest), pieces of the case's inputs as written
/// there, separated by ` | ` (the entry applies where the inputs contain one; empty: any),
/// reason). The cases still run; the test prints those that differ, and the entries that
/// no case shows any more.
const KNOWN_DIFFERENCES: &[(&str, &str, &str, &str)] = &[
    // ---- documented choices ----
    (
        "logspace",
        "start=-12.8 stop=12.7 num=7 endpoint=True dtype=int32",
        "",
        "as jnp_cases' documented logspace exception (linspace in f64, rounded once): \
         10^8.45 is 281838176 in Olympus, 281838784 in JAX (exact 281838293)",
    ),
    (
        "power",
        "",
        "_0 int | _0 uint | _1 int16",
        "documented (np::power): integer powers are the full modular power, where JAX's bit \
         loop reads the low 6 bits of the exponent (2 ** 64 is 1 in JAX, 0 in Olympus) and \
         gives other values for negative exponents (Olympus: 0)",
    ),
    (
        "pow",
        "",
        "_0 int | _0 uint | _1 int16",
        "as power (documented integer powers)",
    ),
    (
        "pad",
        "pad_width=[1,2] constant_values=300",
        "_0 int8",
        "documented (PadMode::Constant): an out-of-range constant saturates (127), where \
         JAX's integer 300 wraps to 44",
    ),
    (
        "pad",
        "pad_width=[1,2] constant_values=-1",
        "_0 uint16",
        "documented (PadMode::Constant): -1 saturates to 0 in uint16, JAX wraps it to 65535",
    ),
    // ---- JAX's values are less accurate ----
    (
        "exp2",
        "",
        "",
        "JAX's exp2 is XLA:CPU's exp(x * ln 2): 2^100 is 18 ulps off in float32, and \
         bfloat16 rounds x * ln 2 first (2^100 = 9.26e29); Olympus's is exact at integers",
    ),
    (
        "sinh",
        "",
        "_0 float32 | _0 int8 | _0 uint8",
        "JAX's float32 sinh is up to ~25 ulps off for |x| > 9 (sinh(63): JAX \
         1.1468933e27, Olympus 1.1468916e27, exact 1.14689156e27)",
    ),
    (
        "cosh",
        "",
        "_0 float32 | _0 int8 | _0 uint8",
        "JAX's float32 cosh is up to ~25 ulps off for |x| > 9, as sinh",
    ),
    (
        "arcsin",
        "",
        "0000 8000",
        "at the smallest normal (float32 1.1754944e-38, bfloat16 1.2e-38) JAX's arcsin \
         gives 0 (an intermediate is subnormal and flushed); Olympus gives x",
    ),
    ("asin", "", "0000 8000", "as arcsin at the smallest normal"),
    (
        "logaddexp2",
        "",
        "",
        "JAX's logaddexp2 (max + log1p(exp2(-|d|)) / ln 2, in the dtype) is less accurate: \
         logaddexp2(-1, -1) is -1.06e-8 (Olympus 0), bfloat16 logaddexp2(0, -18.75) is \
         3.47e-6 (Olympus 3.278e-6, exact 3.272e-6)",
    ),
    (
        "nanmean",
        "-",
        "_0 float16 [3] | _0 bfloat16 [12]",
        "JAX's nanmean does not upcast float16 and bfloat16 as mean does: float16 \
         nanmean([60000, 60000, 1000]) overflows to inf (Olympus 40320, JAX's mean 40320), \
         and a bfloat16 sum of 12 values rounds to bfloat16 along the way (JAX 0.0757, \
         Olympus 0.0786, exact 0.07878)",
    ),
    // ---- the documented subnormal policy, inside an operation ----
    (
        "divide",
        "",
        "_1 float32 [28,1] | _1 bfloat16 [28,1]",
        "subnormals kept (README): XLA divides by a broadcast divisor as x * (1 / y), and \
         1 / 3e38 is subnormal: XLA flushes it (inf / 3e38 = NaN, 3e38 / 3e38 = 0), \
         Olympus keeps it (inf, 0.99999994)",
    ),
    (
        "true_divide",
        "",
        "_1 float32 [28,1] | _1 bfloat16 [28,1]",
        "as divide: 1 / 3e38 is subnormal (README: kept)",
    ),
    (
        "floor_divide",
        "",
        "_1 float32 [28,1] | _1 bfloat16 [28,1]",
        "documented (README, subnormals are kept): a broadcast divisor divides by its \
         reciprocal, as in XLA, but 1 / 3e38 is subnormal and XLA:CPU flushes it, so JAX's \
         3e38 // 3e38 is 0 and Olympus's 1",
    ),
    (
        "divmod",
        "",
        "_1 float32 [28,1] | _1 bfloat16 [28,1]",
        "as floor_divide: JAX's 3e38 // 3e38 is 0 (a flushed reciprocal), Olympus's 1",
    ),
    (
        "prod",
        "-",
        "_0 float32 [8] c3966000 80800000",
        "subnormals kept (README): the partial product -300.75 * -1.1754944e-38 * 1e-3 is \
         subnormal, which XLA flushes (JAX -0.0, Olympus -5.26)",
    ),
    (
        "nanprod",
        "-",
        "_0 float32 [8] c3966000 80800000",
        "as prod: a subnormal partial product (JAX 0.0, Olympus 0.75)",
    ),
];

fn cases() -> Vec<Case> {
    parse_cases_in(include_str!("../data/jnp_more.txt"))
}

/// How a function's outputs compare.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tolerance {
    /// Bit for bit (NaN matches NaN).
    Exact,
    /// Within [`ELEMENT_ULPS`] ulps, element by element.
    Ulps,
    /// `jnp_cases`'s comparison of rounding functions.
    Rounding,
}

fn tolerance(name: &str, p: &Params) -> Tolerance {
    match name {
        "cbrt" | "exp" | "exp2" | "expm1" | "log" | "log2" | "log10" | "log1p" | "sin" | "cos"
        | "tan" | "arcsin" | "arccos" | "arctan" | "sinh" | "cosh" | "tanh" | "arcsinh"
        | "arccosh" | "arctanh" | "acos" | "acosh" | "asin" | "asinh" | "atan" | "atanh"
        | "sinc" | "i0" | "power" | "pow" | "float_power" | "arctan2" | "atan2" | "hypot"
        | "logaddexp" | "logaddexp2" => Tolerance::Ulps,
        // Reductions and products (the others of jnp_cases: its `exact`).
        "sum" | "prod" | "mean" | "nansum" | "nanprod" | "nanmean" | "dot" | "vdot" | "inner"
        | "matmul" | "matvec" | "vecmat" | "vecdot" | "tensordot" => Tolerance::Rounding,
        _ if !exact(name, p) => Tolerance::Rounding,
        _ => Tolerance::Exact,
    }
}

type Unary = fn(Arg) -> Result<Array>;
type Binary = fn(Arg, Arg) -> Result<Array>;

/// The elementwise functions of one argument, by name.
fn unary(name: &str) -> Option<Unary> {
    Some(match name {
        "abs" => np::abs as Unary,
        "absolute" => np::absolute,
        "fabs" => np::fabs,
        "negative" => np::negative,
        "positive" => np::positive,
        "sign" => np::sign,
        "square" => np::square,
        "sqrt" => np::sqrt,
        "cbrt" => np::cbrt,
        "floor" => np::floor,
        "ceil" => np::ceil,
        "trunc" => np::trunc,
        "rint" => np::rint,
        "isfinite" => np::isfinite,
        "isinf" => np::isinf,
        "isnan" => np::isnan,
        "isneginf" => np::isneginf,
        "isposinf" => np::isposinf,
        "signbit" => np::signbit,
        "logical_not" => np::logical_not,
        "bitwise_not" => np::bitwise_not,
        "invert" => np::invert,
        "bitwise_invert" => np::bitwise_invert,
        "bitwise_count" => np::bitwise_count,
        "reciprocal" => np::reciprocal,
        "deg2rad" => np::deg2rad,
        "rad2deg" => np::rad2deg,
        "degrees" => np::degrees,
        "radians" => np::radians,
        "spacing" => np::spacing,
        "exp" => np::exp,
        "exp2" => np::exp2,
        "expm1" => np::expm1,
        "log" => np::log,
        "log2" => np::log2,
        "log10" => np::log10,
        "log1p" => np::log1p,
        "sin" => np::sin,
        "cos" => np::cos,
        "tan" => np::tan,
        "arcsin" => np::arcsin,
        "arccos" => np::arccos,
        "arctan" => np::arctan,
        "sinh" => np::sinh,
        "cosh" => np::cosh,
        "tanh" => np::tanh,
        "arcsinh" => np::arcsinh,
        "arccosh" => np::arccosh,
        "arctanh" => np::arctanh,
        "acos" => np::acos,
        "acosh" => np::acosh,
        "asin" => np::asin,
        "asinh" => np::asinh,
        "atan" => np::atan,
        "atanh" => np::atanh,
        "sinc" => np::sinc,
        "i0" => np::i0,
        _ => return None,
    })
}

/// The elementwise functions of two arguments, by name.
fn binary(name: &str) -> Option<Binary> {
    Some(match name {
        "add" => np::add as Binary,
        "subtract" => np::subtract,
        "multiply" => np::multiply,
        "divide" => np::divide,
        "true_divide" => np::true_divide,
        "floor_divide" => np::floor_divide,
        "remainder" => np::remainder,
        "mod" => np::r#mod,
        "fmod" => np::fmod,
        "maximum" => np::maximum,
        "minimum" => np::minimum,
        "fmax" => np::fmax,
        "fmin" => np::fmin,
        "copysign" => np::copysign,
        "nextafter" => np::nextafter,
        "heaviside" => np::heaviside,
        "gcd" => np::gcd,
        "lcm" => np::lcm,
        "bitwise_and" => np::bitwise_and,
        "bitwise_or" => np::bitwise_or,
        "bitwise_xor" => np::bitwise_xor,
        "left_shift" => np::left_shift,
        "right_shift" => np::right_shift,
        "bitwise_left_shift" => np::bitwise_left_shift,
        "bitwise_right_shift" => np::bitwise_right_shift,
        "equal" => np::equal,
        "not_equal" => np::not_equal,
        "less" => np::less,
        "less_equal" => np::less_equal,
        "greater" => np::greater,
        "greater_equal" => np::greater_equal,
        "logical_and" => np::logical_and,
        "logical_or" => np::logical_or,
        "logical_xor" => np::logical_xor,
        "power" => np::power,
        "pow" => np::pow,
        "float_power" => np::float_power,
        "arctan2" => np::arctan2,
        "atan2" => np::atan2,
        "hypot" => np::hypot,
        "logaddexp" => np::logaddexp,
        "logaddexp2" => np::logaddexp2,
        "ldexp" => np::ldexp,
        _ => return None,
    })
}

/// The function's input `name`, with the view the case asks for (`view_<name>`).
fn with_view(p: &Params, name: &str, a: Array) -> Result<Array> {
    let key = format!("view_{name}");
    if !p.has(&key) {
        return Ok(a);
    }
    match p.raw(&key) {
        "T" => np::transpose(&a, None),
        "S" => a.slice(s![np::Ellipsis, ..;2]),
        "R" => a.slice(s![..;-1]),
        v => panic!("view {v}"),
    }
}

fn one(a: Array) -> std::result::Result<Vec<Array>, Fail> {
    Ok(vec![a])
}

/// Runs case `name`: Olympus's outputs in JAX's order (the functions of `jnp_cases::call`
/// go there).
fn call_more(
    name: &str,
    p: &Params,
    names: &[String],
    xs: &[Array],
) -> std::result::Result<Vec<Array>, Fail> {
    let a = Args { p, names, xs };
    let x0 = || a.pos(0);
    let x1 = || a.pos(1);
    // An argument (positional `_k` or keyword) given as an array or as a Python scalar,
    // which goes in as a Rust scalar (weak, and literal: `power`'s literal integer
    // exponent is JAX's `integer_pow`, as a Python int's is).
    let kw = |n: &str| -> Arg {
        match a.get(n) {
            Some(x) => Arg::new(x.clone()),
            None => match p.raw(n) {
                "True" => Arg::new(true),
                "False" => Arg::new(false),
                v => match v.parse::<i64>() {
                    Ok(i) => Arg::new(i),
                    Err(_) => Arg::new(p.f(n)),
                },
            },
        }
    };
    let lit = |k: usize| kw(&format!("_{k}"));
    if let Some(f) = unary(name) {
        return one(f(lit(0))?);
    }
    if let Some(f) = binary(name) {
        return one(f(lit(0), lit(1))?);
    }
    let keepdims = p.b_or("keepdims", false);
    let axes = axes_opt(p, "axis");
    let axes = axes.as_deref();
    let axis = || p.has("axis").then(|| p.i("axis") as isize);
    let dtype = p.dtype("dtype");
    let mode = || index_mode(p.s_or("mode", "fill"));
    let usizes = |k: &str| -> Vec<usize> { p.ints(k).iter().map(|&v| v as usize).collect() };
    let isizes = |k: &str| -> Vec<isize> { p.ints(k).iter().map(|&v| v as isize).collect() };
    let opt_usize = |k: &str| p.has(k).then(|| p.i(k) as usize);
    let sections = |k: &str| -> np::Sections {
        let v = p.raw(k);
        if v.starts_with('[') {
            np::Sections::Indices(isizes(k))
        } else {
            np::Sections::Count(p.i(k) as usize)
        }
    };
    let pair = |(r, c): (Array, Array)| Ok(vec![r, c]);
    // The reductions' `dtype=`, `initial=` and `where=`.
    let masked_or_initial = p.has("initial") || a.get("where").is_some();
    // The products' `preferred_element_type=`.
    let dot_options = np::DotOptions {
        precision: np::Precision::Default,
        preferred_element_type: p.dtype("preferred_element_type"),
    };
    let with_options = masked_or_initial || a.get("mean").is_some() || dtype.is_some();
    let options = || {
        let mut o = np::ReduceOptions::from(dtype);
        if p.has("initial") {
            o = o.initial(p.f("initial"));
        }
        if let Some(w) = a.get("where") {
            o = o.where_(w);
        }
        if let Some(m) = a.get("mean") {
            o = o.mean(m);
        }
        o
    };
    match name {
        "astype" => one(np::astype(x0()?, dtype.expect("dtype"))?),
        "copy" => one(np::copy(x0()?)?),
        // ---- reductions ----
        "sum" => one(np::sum_with(x0()?, axes, keepdims, options())?),
        "prod" => one(np::prod_with(x0()?, axes, keepdims, options())?),
        "mean" => one(np::mean_with(x0()?, axes, keepdims, options())?),
        "nansum" => one(np::nansum_with(x0()?, axes, keepdims, options())?),
        "nanprod" => one(np::nanprod_with(x0()?, axes, keepdims, options())?),
        "nanmean" => one(np::nanmean_with(x0()?, axes, keepdims, options())?),
        "max" | "min" | "amax" | "amin" | "nanmax" | "nanmin" | "all" | "any"
            if masked_or_initial =>
        {
            let f = match name {
                "max" => np::max_with,
                "min" => np::min_with,
                "amax" => np::amax_with,
                "amin" => np::amin_with,
                "nanmax" => np::nanmax_with,
                "nanmin" => np::nanmin_with,
                "all" => np::all_with,
                _ => np::any_with,
            };
            one(f(x0()?, axes, keepdims, options())?)
        }
        "var" | "std" | "nanvar" | "nanstd" if with_options => {
            let f = match name {
                "var" => np::var_with,
                "std" => np::std_with,
                "nanvar" => np::nanvar_with,
                _ => np::nanstd_with,
            };
            let ddof = p.i_or("ddof", 0) as usize;
            one(f(x0()?, axes, ddof, keepdims, options())?)
        }
        "max" => one(np::max(x0()?, axes, keepdims)?),
        "min" => one(np::min(x0()?, axes, keepdims)?),
        "amax" => one(np::amax(x0()?, axes, keepdims)?),
        "amin" => one(np::amin(x0()?, axes, keepdims)?),
        "nanmax" => one(np::nanmax(x0()?, axes, keepdims)?),
        "nanmin" => one(np::nanmin(x0()?, axes, keepdims)?),
        "all" => one(np::all(x0()?, axes, keepdims)?),
        "any" => one(np::any(x0()?, axes, keepdims)?),
        // ---- creation ----
        "full" => one(np::full(&usizes("shape"), kw("fill_value"), dtype)?),
        "zeros" => one(np::zeros(&usizes("shape"), dtype.expect("dtype"))?),
        "ones" => one(np::ones(&usizes("shape"), dtype.expect("dtype"))?),
        "empty" => one(np::empty(&usizes("shape"), dtype.expect("dtype"))?),
        "empty_like" => one(np::empty_like_with(
            x0()?,
            dtype,
            p.shape("shape").as_deref(),
        )?),
        // ---- shapes ----
        "reshape" => one(np::reshape(x0()?, &isizes("shape")[..])?),
        "ravel" => one(np::ravel(x0()?)?),
        "transpose" => {
            let ax = axes_opt(p, "axes");
            one(np::transpose(x0()?, ax.as_deref())?)
        }
        "permute_dims" => one(np::permute_dims(x0()?, &isizes("axes"))?),
        "matrix_transpose" => one(np::matrix_transpose(x0()?)?),
        "moveaxis" => one(np::moveaxis(
            x0()?,
            &isizes("source"),
            &isizes("destination"),
        )?),
        "swapaxes" => one(np::swapaxes(
            x0()?,
            p.i("axis1") as isize,
            p.i("axis2") as isize,
        )?),
        "rollaxis" => one(np::rollaxis(
            x0()?,
            p.i("axis") as isize,
            p.i_or("start", 0) as isize,
        )?),
        "squeeze" => one(np::squeeze(x0()?, axes)?),
        "expand_dims" => one(np::expand_dims(x0()?, &isizes("axis"))?),
        "atleast_1d" => one(np::atleast_1d(x0()?)?),
        "atleast_2d" => one(np::atleast_2d(x0()?)?),
        "atleast_3d" => one(np::atleast_3d(x0()?)?),
        "broadcast_to" => one(np::broadcast_to(x0()?, &usizes("shape"))?),
        "broadcast_arrays" => Ok(np::broadcast_arrays(a.positional())?),
        "flip" => one(np::flip(x0()?, axes)?),
        "fliplr" => one(np::fliplr(x0()?)?),
        "flipud" => one(np::flipud(x0()?)?),
        "unstack" => Ok(np::unstack(x0()?, p.i_or("axis", 0) as isize)?),
        "concatenate" => one(np::concatenate_with(
            a.positional(),
            p.i_or("axis", 0) as isize,
            dtype,
        )?),
        "concat" => one(np::concatenate(a.positional(), p.i_or("axis", 0) as isize)?),
        "stack" => one(np::stack_with(
            a.positional(),
            p.i_or("axis", 0) as isize,
            dtype,
        )?),
        "hstack" => one(np::hstack_with(a.positional(), dtype)?),
        "vstack" => one(np::vstack_with(a.positional(), dtype)?),
        "dstack" => one(np::dstack_with(a.positional(), dtype)?),
        "column_stack" => one(np::column_stack(a.positional())?),
        "split" => Ok(np::split(
            x0()?,
            sections("indices_or_sections"),
            p.i_or("axis", 0) as isize,
        )?),
        "array_split" => Ok(np::array_split(
            x0()?,
            sections("indices_or_sections"),
            p.i_or("axis", 0) as isize,
        )?),
        "hsplit" => Ok(np::hsplit(x0()?, sections("indices_or_sections"))?),
        "vsplit" => Ok(np::vsplit(x0()?, sections("indices_or_sections"))?),
        "dsplit" => Ok(np::dsplit(x0()?, sections("indices_or_sections"))?),
        "delete" => one(np::delete(x0()?, &isizes("obj"), axis())?),
        "insert" => one(np::insert(x0()?, &isizes("obj"), kw("values"), axis())?),
        // ---- products ----
        "dot" => one(np::dot_with(x0()?, x1()?, dot_options)?),
        "vdot" => one(np::vdot_with(x0()?, x1()?, dot_options)?),
        "inner" => one(np::inner_with(x0()?, x1()?, dot_options)?),
        "matmul" => one(np::matmul_with(x0()?, x1()?, dot_options)?),
        "matvec" => one(np::matvec(x0()?, x1()?)?),
        "vecmat" => one(np::vecmat(x0()?, x1()?)?),
        "vecdot" => one(np::vecdot_with(
            x0()?,
            x1()?,
            p.i_or("axis", -1) as isize,
            dot_options,
        )?),
        "tensordot" => one(np::tensordot_with(
            x0()?,
            x1()?,
            &isizes("axes_a"),
            &isizes("axes_b"),
            dot_options,
        )?),
        // ---- indexing ----
        "put" => one(np::put(x0()?, x1()?, lit(2), mode())?),
        "put_along_axis" => one(np::put_along_axis(x0()?, x1()?, lit(2), axis(), mode())?),
        "place" => one(np::place(x0()?, x1()?, lit(2))?),
        "choose" => {
            let xs = a.positional();
            let m = index_mode(p.s_or("mode", "raise"));
            one(np::choose(xs[0].clone(), xs[1..].to_vec(), m)?)
        }
        "select" => {
            let xs = a.positional();
            let n = xs.len() / 2;
            let default = match a.get("default") {
                Some(d) => d.clone(),
                None => np::asarray(0i64)?,
            };
            one(np::select(xs[..n].to_vec(), xs[n..].to_vec(), default)?)
        }
        "where" => one(np::r#where(lit(0), lit(1), lit(2))?),
        "ravel_multi_index" => one(np::ravel_multi_index_with(
            a.positional(),
            &usizes("dims"),
            index_mode(p.s_or("mode", "raise")),
            np::Order::C,
            None,
        )?),
        "tril_indices" => pair(np::tril_indices(
            p.i("n") as usize,
            p.i_or("k", 0) as isize,
            opt_usize("m"),
        )?),
        "triu_indices" => pair(np::triu_indices(
            p.i("n") as usize,
            p.i_or("k", 0) as isize,
            opt_usize("m"),
        )?),
        "tril_indices_from" => pair(np::tril_indices_from(x0()?, p.i_or("k", 0) as isize)?),
        "triu_indices_from" => pair(np::triu_indices_from(x0()?, p.i_or("k", 0) as isize)?),
        "diag_indices" => Ok(np::diag_indices(
            p.i("n") as usize,
            p.i_or("ndim", 2) as usize,
        )?),
        "diag_indices_from" => Ok(np::diag_indices_from(x0()?)?),
        "mask_indices" => {
            let f = if p.raw("mask_func") == "triu" {
                |m: &Array, k: isize| np::triu(m, k)
            } else {
                |m: &Array, k: isize| np::tril(m, k)
            };
            pair(np::mask_indices(
                p.i("n") as usize,
                f,
                p.i_or("k", 0) as isize,
                None,
            )?)
        }
        "ix_" => Ok(np::ix_(a.positional())?),
        _ => call(name, p, names, xs),
    }
}

/// Olympus's outputs against JAX's under `tol`: `None` when they agree.
fn compare_as(got: &[Words], want: &[Words], tol: Tolerance) -> Option<String> {
    match tol {
        Tolerance::Exact => compare(got, want, true),
        Tolerance::Rounding => compare(got, want, false),
        Tolerance::Ulps => {
            if !compare_meta(got, want) {
                return compare(got, want, true);
            }
            for (k, (g, w)) in got.iter().zip(want).enumerate() {
                if !w.dtype.is_floating() {
                    if let Some(why) =
                        compare(std::slice::from_ref(g), std::slice::from_ref(w), true)
                    {
                        return Some(format!("output {k}: {why}"));
                    }
                    continue;
                }
                let (eps, tiny) = match w.dtype {
                    DType::Float16 => (2f64.powi(-10), 2f64.powi(-14)),
                    DType::BFloat16 => (2f64.powi(-7), 2f64.powi(-126)),
                    _ => (2f64.powi(-23), 2f64.powi(-126)),
                };
                for i in 0..w.words.len() {
                    let (gv, wv) = (g.value(i), w.value(i));
                    let ok = if wv.is_nan() || gv.is_nan() {
                        wv.is_nan() && gv.is_nan()
                    } else if wv.is_infinite() || gv.is_infinite() || wv == 0.0 {
                        g.words[i] == w.words[i]
                    } else {
                        let mag = wv.abs().max(tiny);
                        (gv - wv).abs() <= ELEMENT_ULPS * eps * mag
                    };
                    if !ok {
                        return Some(format!("output {k} differs at element {i}"));
                    }
                }
            }
            None
        }
    }
}

/// The elements where Olympus's outputs differ most from JAX's (relatively), with the
/// first input's element where it has the output's size.
fn differing(c: &Case, got: &[Words]) -> Vec<String> {
    let mut diffs = vec![];
    for (k, (g, w)) in got.iter().zip(&c.want).enumerate() {
        if g.dtype != w.dtype || g.words.len() != w.words.len() {
            continue;
        }
        for i in 0..w.words.len() {
            let (gv, wv) = (g.value(i), w.value(i));
            if g.words[i] == w.words[i] || (gv.is_nan() && wv.is_nan()) {
                continue;
            }
            let rel = if gv.is_finite() && wv.is_finite() {
                (gv - wv).abs() / wv.abs().max(f64::MIN_POSITIVE)
            } else {
                f64::INFINITY
            };
            diffs.push((rel, k, i, gv, wv, g.words[i], w.words[i]));
        }
    }
    diffs.sort_by(|a, b| b.0.total_cmp(&a.0));
    diffs
        .iter()
        .take(6)
        .map(|&(_, k, i, gv, wv, gw, ww)| {
            let input = c
                .inputs
                .first()
                .filter(|(n, x)| {
                    x.words.len() == c.want[k].words.len() && !c.params.has(&format!("view_{n}"))
                })
                .map(|(_, x)| format!(" at input {:e}", x.value(i)))
                .unwrap_or_default();
            format!("output {k}[{i}]{input}: olympus {gv:e} ({gw:#x}), jax {wv:e} ({ww:#x})")
        })
        .collect()
}

/// Whether `name` is an elementwise function, whose outputs the subnormal policy excuses
/// element by element (see [`excuse_subnormals`]).
fn elementwise(name: &str) -> bool {
    unary(name).is_some()
        || binary(name).is_some()
        || matches!(
            name,
            "astype" | "nan_to_num" | "round" | "around" | "frexp" | "modf" | "divmod"
        )
}

/// Whether element `i` of `w` is a nonzero float below the dtype's smallest normal.
fn subnormal(w: &Words, i: usize) -> bool {
    let tiny = match w.dtype {
        DType::Float16 => 2f64.powi(-14),
        DType::BFloat16 | DType::Float32 => 2f64.powi(-126),
        _ => return false,
    };
    let v = w.value(i).abs();
    v != 0.0 && v < tiny
}

/// README: "Subnormal operands and results are kept ... where XLA:CPU flushes them". For
/// an elementwise function, Olympus's element `i` of `got` is replaced by JAX's where an
/// input element it reads (through broadcasting) is subnormal, or where Olympus's result is
/// subnormal and JAX's a zero of its sign: the number of elements so excused.
fn excuse_subnormals(inputs: &[Words], got: &mut [Words], want: &[Words]) -> usize {
    let mut excused = 0;
    for (g, w) in got.iter_mut().zip(want) {
        if g.dtype != w.dtype || g.shape != w.shape {
            continue;
        }
        let shape = &w.shape;
        for i in 0..w.words.len() {
            if g.words[i] == w.words[i] {
                continue;
            }
            // The multi-index of output element i, then each input's element under it.
            let mut rest = i;
            let mut idx = vec![0; shape.len()];
            for (d, &n) in shape.iter().enumerate().rev() {
                idx[d] = rest % n.max(1);
                rest /= n.max(1);
            }
            let reads_subnormal = inputs.iter().any(|x| {
                if x.shape.len() > shape.len() {
                    return false;
                }
                let off = shape.len() - x.shape.len();
                let mut flat = 0;
                for (d, &n) in x.shape.iter().enumerate() {
                    flat = flat * n + if n == 1 { 0 } else { idx[off + d] };
                }
                flat < x.words.len() && subnormal(x, flat)
            });
            let flushed = subnormal(g, i)
                && w.value(i) == 0.0
                && g.value(i).is_sign_negative() == w.value(i).is_sign_negative();
            if reads_subnormal || flushed {
                g.words[i] = w.words[i];
                excused += 1;
            }
        }
    }
    excused
}

/// Whether case `k` is the eager twin of the case before it (see the generator's
/// docstring: `jax_jit_differs`).
fn twin_of(cases: &[Case], k: usize) -> Option<&Case> {
    let c = &cases[k];
    let prev = cases.get(k.checked_sub(1)?)?;
    (c.params.has("jax_jit_differs")
        && !c.jit
        && prev.jit
        && prev.name == c.name
        && prev.params_raw == c.params_raw
        && prev.inputs_raw == c.inputs_raw)
        .then_some(prev)
}

/// The entry of [`KNOWN_DIFFERENCES`] that lists case `c`, by position.
fn known(c: &Case) -> Option<usize> {
    KNOWN_DIFFERENCES.iter().position(|(n, p, i, _)| {
        *n == c.name
            && (p.is_empty()
                || *p == c.params_raw
                || p.strip_suffix('*')
                    .is_some_and(|q| c.params_raw.starts_with(q)))
            && i.split(" | ").any(|piece| c.inputs_raw.contains(piece))
    })
}

#[test]
fn more_numpy_functions_give_jax_values() {
    let cases = cases();
    assert!(cases.len() > 100, "{} cases", cases.len());
    let (mut failures, mut listed, mut skipped) = (vec![], vec![], vec![]);
    let mut used = vec![false; KNOWN_DIFFERENCES.len()];
    let (mut ran, mut jitted, mut excused) = (0, 0, 0);
    let (mut eager_time, mut jit_time) = (Duration::ZERO, Duration::ZERO);
    let mut per_function: BTreeMap<String, usize> = BTreeMap::new();
    for (k, c) in cases.iter().enumerate() {
        if twin_of(&cases, k).is_some() {
            continue; // (compared with its jitted line, as an alternative)
        }
        // JAX's values: the case's, and where JAX's jitted and eager values differ, the
        // eager twin's too (Olympus may give either).
        let mut wants: Vec<&[Words]> = vec![&c.want];
        if let Some(t) = cases
            .get(k + 1)
            .filter(|_| twin_of(&cases, k + 1).is_some())
        {
            wants.push(&t.want);
        }
        let raw: Vec<Array> = c.inputs.iter().map(|(_, w)| w.array()).collect();
        let in_names: Vec<String> = c.inputs.iter().map(|(n, _)| n.clone()).collect();
        let inputs: Vec<Array> = raw
            .into_iter()
            .zip(&in_names)
            .map(|(a, n)| with_view(&c.params, n, a).expect("view"))
            .collect();
        let describe = |why: &str, got: Option<&[Words]>| {
            let ours = got
                .into_iter()
                .flatten()
                .map(|g| format!("olympus {}", g.show()));
            let firsts = got.map(|g| differing(c, g)).unwrap_or_default();
            report(
                c,
                why,
                ours.chain(
                    wants
                        .iter()
                        .flat_map(|w| w.iter())
                        .map(|w| format!("jax     {}", w.show())),
                )
                .chain(firsts),
            )
        };
        let tol = tolerance(&c.name, &c.params);
        let entry = known(c);
        let reason = entry.map(|e| KNOWN_DIFFERENCES[e].3);
        let mut differs = false;
        // The inputs as the function saw them, read back only where an elementwise
        // function's outputs differ (for `excuse_subnormals`).
        let viewed = std::cell::OnceCell::new();
        let inputs_seen = |got: &[Words], want: &[Words]| -> Vec<Words> {
            let differ = got.iter().zip(want).any(|(g, w)| g.words != w.words);
            if elementwise(&c.name) && differ {
                viewed.get_or_init(|| read_back(&inputs)).clone()
            } else {
                vec![]
            }
        };
        let mut check = |mode: &str, out: std::result::Result<Vec<Words>, String>| match out {
            Ok(got) => {
                let mut verdicts = wants.iter().map(|w| {
                    let mut got = got.clone();
                    let n = excuse_subnormals(&inputs_seen(&got, w), &mut got, w);
                    (compare_as(&got, w, tol), n, got)
                });
                let first = verdicts.next().expect("a JAX value");
                let (verdict, n, got) = if first.0.is_none() {
                    first
                } else {
                    verdicts.find(|v| v.0.is_none()).unwrap_or(first)
                };
                excused += n;
                if let Some(why) = verdict {
                    differs = true;
                    if reason.is_none() {
                        failures.push(describe(&format!("{mode}: {why}"), Some(&got)));
                    }
                }
            }
            Err(e) => {
                differs = true;
                if reason.is_none() {
                    failures.push(describe(&format!("{mode} error: {e}"), None));
                }
            }
        };
        let t0 = std::time::Instant::now();
        let eager = match call_more(&c.name, &c.params, &in_names, &inputs) {
            Ok(outs) => Ok(read_back(&outs)),
            Err(Fail::Err(e)) => Err(e.to_string()),
            Err(Fail::Unsupported(why)) => {
                skipped.push(format!(
                    "line {}: {} ({}): {why}",
                    c.line, c.name, c.params_raw
                ));
                continue;
            }
        };
        ran += 1;
        *per_function.entry(c.name.clone()).or_default() += 1;
        check("eager", eager);
        eager_time += t0.elapsed();
        let t1 = std::time::Instant::now();
        if c.jit {
            jitted += 1;
            let (name, params, nm) = (c.name.clone(), &c.params, in_names.clone());
            let out = jit(move |xs: Vec<Array>| {
                call_more(&name, params, &nm, &xs).map_err(|f| match f {
                    Fail::Err(e) => e,
                    Fail::Unsupported(why) => olympus::Error::InvalidArgument {
                        func: name.clone(),
                        reason: why,
                    },
                })
            })
            .call(inputs.clone());
            check(
                "under jit",
                out.map(|o| read_back(&o)).map_err(|e| e.to_string()),
            );
        }
        jit_time += t1.elapsed();
        if let (Some(e), true) = (entry, differs) {
            used[e] = true;
            listed.push(format!(
                "line {}: {} ({}): {}",
                c.line, c.name, c.params_raw, KNOWN_DIFFERENCES[e].3
            ));
        }
    }
    let counts: Vec<String> = per_function
        .iter()
        .map(|(n, k)| format!("{n} {k}"))
        .collect();
    eprintln!(
        "{ran} cases of {} functions ran ({jitted} also under jit), {} known differences, \
         {} skipped:",
        per_function.len(),
        listed.len(),
        skipped.len()
    );
    eprintln!("  {}", counts.join(", "));
    eprintln!(
        "  eager {:.1} s, jit {:.1} s",
        eager_time.as_secs_f64(),
        jit_time.as_secs_f64()
    );
    eprintln!(
        "  {excused} elements (eager and jitted) differ only by the documented subnormal \
         policy (README: subnormals are kept where XLA:CPU flushes them)"
    );
    for l in &listed {
        eprintln!("  known difference {l}");
    }
    for l in &skipped {
        eprintln!("  skipped {l}");
    }
    for (e, (n, p, i, _)) in KNOWN_DIFFERENCES.iter().enumerate() {
        if !used[e] {
            eprintln!("  known difference that no case shows any more: {n} ({p}) [{i}]");
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} cases differ from JAX:\n{}",
        failures.len(),
        failures.join("")
    );
}

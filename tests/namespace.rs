//! Coverage of `jax.numpy`'s namespace (issue #30): every public function of JAX 0.10.2's
//! `jax.numpy` (`tests/data/jnp_names.txt`, made by `tests/data/gen_jnp_names.py`) is in
//! exactly one of the lists below. An implemented name is imported from `olympus::numpy`,
//! so a missing one fails to compile; the others say why they are absent. The test prints
//! the coverage: implemented / applicable.

use std::collections::BTreeMap;

macro_rules! implemented {
    ($($name:ident),* $(,)?) => {
        #[allow(unused_imports)]
        mod imported {
            $(pub use olympus::numpy::$name;)*
        }
        const IMPLEMENTED: &[&str] = &[$(stringify!($name)),*];
    };
}

implemented![
    abs,
    absolute,
    acos,
    acosh,
    add,
    all,
    allclose,
    amax,
    amin,
    any,
    append,
    apply_along_axis,
    apply_over_axes,
    arange,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    argmax,
    argmin,
    argpartition,
    argsort,
    argwhere,
    around,
    array,
    array_equal,
    array_equiv,
    array_split,
    asarray,
    asin,
    asinh,
    astype,
    atan,
    atan2,
    atanh,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    average,
    bartlett,
    bincount,
    bitwise_and,
    bitwise_count,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    blackman,
    block,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    can_cast,
    cbrt,
    ceil,
    choose,
    clip,
    column_stack,
    compress,
    concat,
    concatenate,
    convolve,
    copy,
    copysign,
    corrcoef,
    correlate,
    cos,
    cosh,
    count_nonzero,
    cov,
    cross,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    deg2rad,
    degrees,
    delete,
    diag,
    diag_indices,
    diag_indices_from,
    diagflat,
    diagonal,
    diff,
    digitize,
    divide,
    divmod,
    dot,
    dsplit,
    dstack,
    ediff1d,
    einsum,
    einsum_path,
    empty,
    empty_like,
    equal,
    exp,
    exp2,
    expand_dims,
    expm1,
    extract,
    eye,
    fabs,
    fill_diagonal,
    flatnonzero,
    flip,
    fliplr,
    flipud,
    float_power,
    floor,
    floor_divide,
    fmax,
    fmin,
    fmod,
    frexp,
    frombuffer,
    fromfile,
    fromfunction,
    fromiter,
    full,
    full_like,
    gcd,
    geomspace,
    get_printoptions,
    gradient,
    greater,
    greater_equal,
    hamming,
    hanning,
    heaviside,
    histogram,
    histogram2d,
    histogram_bin_edges,
    histogramdd,
    hsplit,
    hstack,
    hypot,
    i0,
    identity,
    indices,
    inner,
    insert,
    interp,
    intersect1d,
    invert,
    isclose,
    isdtype,
    isfinite,
    isin,
    isinf,
    isnan,
    isneginf,
    isposinf,
    isscalar,
    issubdtype,
    ix_,
    kaiser,
    kron,
    lcm,
    ldexp,
    left_shift,
    less,
    less_equal,
    lexsort,
    linspace,
    load,
    log,
    log10,
    log1p,
    log2,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    logspace,
    mask_indices,
    matmul,
    matrix_transpose,
    matvec,
    max,
    maximum,
    mean,
    median,
    meshgrid,
    min,
    minimum,
    r#mod,
    modf,
    moveaxis,
    multiply,
    nan_to_num,
    nanargmax,
    nanargmin,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmedian,
    nanmin,
    nanpercentile,
    nanprod,
    nanquantile,
    nanstd,
    nansum,
    nanvar,
    ndim,
    negative,
    nextafter,
    nonzero,
    not_equal,
    ones,
    ones_like,
    outer,
    packbits,
    pad,
    partition,
    percentile,
    permute_dims,
    piecewise,
    place,
    poly,
    polyadd,
    polyder,
    polydiv,
    polyint,
    polymul,
    polysub,
    polyval,
    positive,
    pow,
    power,
    printoptions,
    prod,
    promote_types,
    ptp,
    put,
    put_along_axis,
    quantile,
    rad2deg,
    radians,
    ravel,
    ravel_multi_index,
    reciprocal,
    remainder,
    repeat,
    reshape,
    resize,
    result_type,
    right_shift,
    rint,
    roll,
    rollaxis,
    rot90,
    round,
    save,
    savez,
    searchsorted,
    select,
    set_printoptions,
    setdiff1d,
    setxor1d,
    shape,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    size,
    sort,
    spacing,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    std,
    subtract,
    sum,
    swapaxes,
    take,
    take_along_axis,
    tan,
    tanh,
    tensordot,
    tile,
    trace,
    transpose,
    trapezoid,
    tri,
    tril,
    tril_indices,
    tril_indices_from,
    trim_zeros,
    triu,
    triu_indices,
    triu_indices_from,
    true_divide,
    trunc,
    union1d,
    unique,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
    unpackbits,
    unravel_index,
    unstack,
    unwrap,
    vander,
    var,
    vdot,
    vecdot,
    vecmat,
    vectorize,
    vsplit,
    vstack,
    r#where,
    zeros,
    zeros_like,
];

/// Names that do not apply to a Rust library, with the reason.
const NOT_APPLICABLE: &[(&str, &str)] = &[
    ("array_repr", "Rust prints arrays with `Debug` (`format!(\"{x:?}\")`)"),
    ("array_str", "Rust prints arrays with `Display` (`x.to_string()`)"),
    ("from_dlpack", "DLPack exchanges host and CUDA pointers; wgpu buffers are shared with `Array::from_wgpu_buffer`"),
    ("frompyfunc", "wraps a Python callable as a ufunc; Rust closures over arrays need no wrapper"),
    ("fromstring", "parses NumPy's deprecated string format; parse with Rust and use `Array::from_slice`"),
    ("iterable", "asks whether a Python object supports iteration; Rust's types say so at compile time"),
];

/// Names that come with the complex dtype (complex64 and `numpy.fft`).
const WITH_COMPLEX: &[&str] = &[
    "angle",
    "conj",
    "conjugate",
    "imag",
    "iscomplex",
    "iscomplexobj",
    "isreal",
    "isrealobj",
    "real",
    "sort_complex",
];

/// Names that come with `numpy.linalg` on the device.
const WITH_LINALG: &[&str] = &["polyfit", "roots"];

/// Names not implemented yet (issue #30): the list only shrinks.
const PENDING: &[&str] = &[];

#[test]
fn every_jax_numpy_function_is_accounted_for() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jnp_names.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/jnp_names.txt");
    let jax: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    let implemented: Vec<&str> = IMPLEMENTED
        .iter()
        .map(|n| n.trim_start_matches("r#"))
        .collect();
    let lists: [(&str, Vec<&str>); 5] = [
        ("implemented", implemented),
        (
            "not applicable",
            NOT_APPLICABLE.iter().map(|(n, _)| *n).collect(),
        ),
        ("with complex", WITH_COMPLEX.to_vec()),
        ("with linalg", WITH_LINALG.to_vec()),
        ("pending", PENDING.to_vec()),
    ];
    let mut place: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (list, names) in &lists {
        for n in names {
            place.entry(n).or_default().push(list);
        }
    }
    let mut problems = Vec::new();
    for n in &jax {
        match place.get(n).map(Vec::as_slice) {
            Some([_]) => {}
            Some(lists) => problems.push(format!("{n} is in several lists: {lists:?}")),
            None => problems.push(format!("{n} is in no list")),
        }
    }
    for n in place.keys() {
        if !jax.contains(n) {
            problems.push(format!("{n} is not a jax.numpy function"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let applicable = jax.len() - NOT_APPLICABLE.len();
    println!(
        "jax.numpy coverage: {} / {applicable} applicable functions ({:.0}%); {} pending, {} with complex, {} with linalg, {} not applicable",
        IMPLEMENTED.len(),
        100.0 * IMPLEMENTED.len() as f64 / applicable as f64,
        PENDING.len(),
        WITH_COMPLEX.len(),
        WITH_LINALG.len(),
        NOT_APPLICABLE.len()
    );
}

/// JAX keyword parameters no Olympus function takes, by design, with the reason: `(the
/// functions, or "*" for every one; the parameter; why)`. They are left out of the
/// parameter coverage. Where JAX raises for every value but the default, there is
/// nothing to port.
const PARAMS_NOT_APPLICABLE: &[(&str, &str, &str)] = &[
    (
        "*",
        "out",
        "JAX accepts only `None` (arrays are immutable): the result is returned",
    ),
    (
        "*",
        "device",
        "arrays live on the device of `with_device` or of their operands",
    ),
    ("*", "out_sharding", "one device, no sharding"),
    (
        "*",
        "**kwargs",
        "Rust has no keyword arguments; options structs name each one",
    ),
    (
        "*",
        "copy",
        "arrays are immutable: a copy and a view cannot be told apart",
    ),
    (
        "*",
        "like",
        "array creation dispatches on its arguments' types (duck arrays)",
    ),
    ("*", "subok", "there are no array subclasses"),
    (
        "*",
        "order",
        "arrays are C-ordered (JAX accepts only \"C\", \"K\" or \"A\")",
    ),
    (
        "gradient",
        "edge_order",
        "JAX raises NotImplementedError for any value",
    ),
    (
        "median nanmedian percentile nanpercentile quantile nanquantile",
        "overwrite_input",
        "JAX raises for `True`",
    ),
    (
        "sort argsort",
        "kind",
        "JAX raises for it (`stable` chooses)",
    ),
    (
        "fill_diagonal place put put_along_axis",
        "inplace",
        "JAX raises unless `False`: arrays are immutable",
    ),
    ("einsum", "_dot_general", "a private hook of JAX's"),
];

/// Whether `param` of `function` is in [`PARAMS_NOT_APPLICABLE`], or is the `where` of a
/// ufunc (JAX's signature `*args | out where`), for which JAX raises NotImplementedError.
fn param_not_applicable(function: &str, param: &str, jax_params: &str) -> bool {
    let ufunc_where = param == "where" && jax_params.trim() == "*args | out where";
    ufunc_where
        || PARAMS_NOT_APPLICABLE
            .iter()
            .any(|&(fs, p, _)| p == param && (fs == "*" || fs.split(' ').any(|f| f == function)))
}

/// JAX parameters Olympus takes under another name: `(function, JAX's parameter, the
/// Rust name)`, where the Rust name is a parameter of the function (or of its `_with`
/// variant), or a function of its own (JAX's `returned=True` is `average_returned`). The
/// test fails if the Rust name is neither.
const PARAMS_NAMED_OTHERWISE: &[(&str, &str, &str)] = &[
    ("average", "returned", "average_returned"),
    ("intersect1d", "return_indices", "intersect1d_indices"),
    ("arange", "stop", "spec"),
    ("arange", "step", "spec"),
    ("clip", "arr", "x"),
    ("clip", "min", "a_min"),
    ("clip", "max", "a_max"),
    ("tensordot", "axes", "axes_a"),
    ("std", "correction", "ddof"),
    ("var", "correction", "ddof"),
    ("nanstd", "correction", "ddof"),
    ("nanvar", "correction", "ddof"),
    // JAX's one-argument `where(condition, size=, fill_value=)` is `nonzero`.
    ("where", "size", "nonzero"),
    ("where", "fill_value", "nonzero"),
];

/// The parameters `#46` asked for: the test fails if any is missing (its `gradient`
/// `edge_order` is one JAX raises for, see [`PARAMS_NOT_APPLICABLE`]).
const PARAMS_REQUIRED: &[(&str, &[&str])] = &[
    (
        "unique",
        &[
            "return_index",
            "return_inverse",
            "return_counts",
            "axis",
            "equal_nan",
            "size",
            "fill_value",
        ],
    ),
    ("intersect1d", &["return_indices"]),
    ("average", &["returned"]),
    ("cov", &["fweights", "aweights"]),
    ("cross", &["axisa", "axisb", "axisc", "axis"]),
    ("logspace", &["dtype"]),
    ("polymul", &["trim_leading_zeros"]),
    ("ravel_multi_index", &["order"]),
    ("sum", &["dtype"]),
    ("prod", &["dtype"]),
    ("mean", &["dtype"]),
    ("cumsum", &["dtype"]),
    ("cumprod", &["dtype"]),
    ("nansum", &["dtype"]),
    ("nanprod", &["dtype"]),
    ("nanmean", &["dtype"]),
    ("trim_zeros", &["trim"]),
];

/// The parameter names of every `pub fn` in `src`, and the fields of every `pub struct`,
/// read from the source text (Rust has no reflection): `(functions, structs)`, each a map
/// from the name to its parameters or fields, `r#` and a trailing `_` (`where_`) removed.
#[allow(clippy::type_complexity)]
fn rust_signatures(
    src: &str,
) -> (
    BTreeMap<String, Vec<(String, String)>>,
    BTreeMap<String, Vec<String>>,
) {
    let clean = |s: &str| {
        s.trim()
            .trim_start_matches("mut ")
            .trim_start_matches("r#")
            .trim_end_matches('_')
            .to_string()
    };
    // Splits at commas outside brackets.
    let split = |s: &str| -> Vec<String> {
        let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
        for c in s.chars() {
            match c {
                '(' | '<' | '[' | '{' => depth += 1,
                ')' | '>' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        if !cur.trim().is_empty() {
            out.push(cur);
        }
        out
    };
    // The text from `open` (an opening bracket at `at`) to its match.
    let enclosed = |s: &str, at: usize, open: char, close: char| -> Option<String> {
        let mut depth = 0;
        for (i, c) in s[at..].char_indices() {
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return Some(s[at + 1..at + i].to_string());
                }
            }
        }
        None
    };
    let mut fns: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut structs = BTreeMap::new();
    for (at, _) in src.match_indices("pub fn ") {
        let rest = &src[at + 7..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '#')
            .collect();
        let mut i = at + 7 + name.len();
        if src[i..].starts_with('<') {
            let generics = enclosed(src, i, '<', '>').unwrap_or_default();
            i += generics.len() + 2;
        }
        let Some(params) = src[i..]
            .starts_with('(')
            .then(|| enclosed(src, i, '(', ')'))
            .flatten()
        else {
            continue;
        };
        if params.contains("self") {
            continue; // a method (`at[...].max(values)`), not a function
        }
        let params: Vec<(String, String)> = split(&params)
            .iter()
            .filter_map(|p| {
                p.split_once(':')
                    .map(|(n, t)| (clean(n), t.trim().to_string()))
            })
            .collect();
        fns.entry(clean(&name)).or_default().extend(params);
    }
    for (at, _) in src.match_indices("pub struct ") {
        let rest = &src[at + 11..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(open) = rest.find(['{', ';', '(']) else {
            continue;
        };
        if !rest[open..].starts_with('{') {
            continue;
        }
        let body = enclosed(src, at + 11 + open, '{', '}').unwrap_or_default();
        let fields = body
            .lines()
            .filter_map(|l| {
                l.trim()
                    .strip_prefix("pub ")
                    .and_then(|f| f.split_once(':'))
                    .map(|(n, _)| clean(n))
            })
            .collect();
        structs.insert(name, fields);
    }
    (fns, structs)
}

/// Coverage of JAX's keyword parameters (`tests/data/jnp_params.txt`, made by
/// `tests/data/gen_jnp_params.py`): for each implemented function, the optional
/// parameters of `jax.numpy`'s that Olympus takes, as a parameter of the function or of
/// its `_with` variant (or of the options struct that variant takes), or under another
/// name ([`PARAMS_NAMED_OTHERWISE`]). Prints the coverage and the parameters not taken;
/// fails if one #46 asked for is missing.
#[test]
fn jax_keyword_parameters_are_accounted_for() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/jnp_params.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/jnp_params.txt");
    let mut src = String::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/numpy");
    for entry in std::fs::read_dir(dir).expect("src/numpy") {
        let p = entry.expect("a file").path();
        src.push_str(&std::fs::read_to_string(&p).expect("a source file"));
    }
    let (fns, structs) = rust_signatures(&src);
    let implemented: Vec<&str> = IMPLEMENTED
        .iter()
        .map(|n| n.trim_start_matches("r#"))
        .collect();
    let (mut total, mut taken) = (0, 0);
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((name, params)) = line.split_once(": ") else {
            continue;
        };
        if !implemented.contains(&name) {
            continue;
        }
        let optional = params.split_once('|').map_or("", |(_, o)| o);
        // What Olympus's function and its `_with` variant take, options fields included.
        let mut ours: Vec<String> = Vec::new();
        for f in [name.to_string(), format!("{name}_with")] {
            for (p, ty) in fns.get(&f).into_iter().flatten() {
                ours.push(p.clone());
                for (s, fields) in &structs {
                    if ty
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .any(|w| w == s)
                    {
                        ours.extend(fields.iter().cloned());
                    }
                }
            }
        }
        for p in optional.split_whitespace() {
            if param_not_applicable(name, p, params) {
                continue;
            }
            total += 1;
            // JAX's `M` and `N` (`eye`, `tri`, `vander`) are lower case in Rust.
            let plain = ours.iter().any(|o| o.eq_ignore_ascii_case(p));
            let renamed = PARAMS_NAMED_OTHERWISE.iter().any(|&(f, q, r)| {
                f == name && q == p && (fns.contains_key(r) || ours.iter().any(|o| o == r))
            });
            if plain || renamed {
                taken += 1;
            } else {
                missing.entry(name).or_default().push(p);
            }
        }
    }
    for &(f, q, r) in PARAMS_NAMED_OTHERWISE {
        let ours: Vec<&String> = [f.to_string(), format!("{f}_with")]
            .iter()
            .flat_map(|g| fns.get(g).into_iter().flatten().map(|(p, _)| p))
            .collect();
        assert!(
            fns.contains_key(r) || ours.contains(&&r.to_string()),
            "PARAMS_NAMED_OTHERWISE: {f}'s `{q}` is said to be `{r}`, which is neither a function nor a parameter of {f}"
        );
    }
    let listed: Vec<String> = missing
        .iter()
        .map(|(f, ps)| format!("{f}({})", ps.join(", ")))
        .collect();
    println!(
        "jax.numpy keyword parameters: {taken} / {total} of the implemented functions' ({:.0}%); not taken: {}",
        100.0 * taken as f64 / total as f64,
        listed.join(", ")
    );
    let required: Vec<String> = PARAMS_REQUIRED
        .iter()
        .flat_map(|(f, ps)| ps.iter().map(move |p| (*f, *p)))
        .filter(|(f, p)| missing.get(f).is_some_and(|m| m.contains(p)))
        .map(|(f, p)| format!("{f}({p})"))
        .collect();
    assert!(
        required.is_empty(),
        "parameters #46 asked for are missing: {}",
        required.join(", ")
    );
}

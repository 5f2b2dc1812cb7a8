"""JAX 0.10.2's answers for `jnp_more::more_numpy_functions_give_jax_values`
(tests/core/jnp_more.rs): a sweep of jax.numpy functions over every dtype (bool, int8,
uint8, int16, uint16, int32, uint32, bfloat16, float16, float32) with edge cases that the
other generators leave out: 0-d, empty and broadcast shapes, non-contiguous inputs,
negative axes, `dtype=` arguments, weak Python scalars and special values (+-0, +-inf,
NaN, +-3e38; subnormals in cases of their own).

Run: `python3 tests/data/gen_jnp_more.py > tests/data/jnp_more.txt` (CPU, deterministic:
every random input comes from a seeded generator of its section; about 40 minutes, as
every case is compiled by `jax.jit`). `python3 tests/data/gen_jnp_more.py SECTION...`
writes only those sections (the `sec_*` functions, in the file's order: alphabetical),
and the counts of cases per function go to stderr, with the cases JAX rejects.

The lines have the format of tests/data/jnp_cases.txt (see gen_jnp_cases.py's docstring):

    NAME | JIT | PARAMS | INPUTS | OUTPUTS

with int16 and uint16 words as 4 hex digits (u16 bits) and no gradient lines. JIT is `jit`
where JAX evaluated the case under `jax.jit` (the value written is the jitted one; the
generator also runs the case eagerly and checks that JAX gives the same bits), `eager`
where the function needs concrete values. Where JAX's jitted and eager values differ (XLA
fuses the jitted function and skips the roundings of narrow floats between its
operations, or JAX folds a constant with NumPy's casts under `jit`), the case is written
twice with the parameter `jax_jit_differs=True`: a `jit` line with the jitted value, then
an `eager` line with the eager one; Olympus may give either, in either mode. One
parameter is added: `view_<INPUT>=T|S|R` says that the written array is a base from which
the function's input is a view: `T` its transpose (all axes reversed), `S` every second
element of its last axis (`x[..., ::2]`), `R` its first axis reversed (`x[::-1]`), so both
sides call the function on a non-contiguous array.
"""
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

assert jax.__version__ == "0.10.2", jax.__version__
jax.config.update("jax_platforms", "cpu")
warnings.simplefilter("ignore")

BF16 = jnp.bfloat16
F32, F16, I32, U32 = np.float32, np.float16, np.int32, np.uint32
I8, U8, I16, U16, B = np.int8, np.uint8, np.int16, np.uint16, np.bool_
inf, nan = float("inf"), float("nan")
DT = {np.dtype(F32): "float32", np.dtype(I32): "int32", np.dtype(U32): "uint32",
      np.dtype(U8): "uint8", np.dtype(I8): "int8", np.dtype(B): "bool",
      np.dtype(F16): "float16", np.dtype(BF16): "bfloat16", np.dtype(I16): "int16",
      np.dtype(U16): "uint16"}
ALL = [B, I8, U8, I16, U16, I32, U32, BF16, F16, F32]
INTS = [I8, U8, I16, U16, I32, U32]
FLOATS = [BF16, F16, F32]
NUMERIC = INTS + FLOATS


def words(a):
    a = np.asarray(a)
    d = DT[a.dtype]
    flat = a.ravel()
    if d in ("float32", "int32", "uint32"):
        w = [f"{x:08x}" for x in flat.view(np.uint32)]
    elif d in ("float16", "bfloat16", "int16", "uint16"):
        w = [f"{x:04x}" for x in flat.view(np.uint16)]
    elif d in ("uint8", "int8"):
        w = [f"{x:02x}" for x in flat.view(np.uint8)]
    else:
        w = [str(int(x)) for x in flat]
    shape = ",".join(str(s) for s in a.shape)
    return f"{d} [{shape}]" + "".join(" " + x for x in w)


def lit(v):
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(lit(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (type, np.dtype)):
        return np.dtype(v).name
    return str(v)


VIEWS = {"T": lambda x: x.T, "S": lambda x: x[..., ::2], "R": lambda x: x[::-1]}
LINES = []
COUNT = {}


def same_bits(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f" or x.dtype == np.dtype(BF16):
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        both_nan = np.isnan(xf) & np.isnan(yf)
        bits = np.dtype(f"u{x.dtype.itemsize}")
        return bool(np.all(both_nan | (x.view(bits) == y.view(bits))))
    return bool(np.array_equal(x, y))


class _Eager(Exception):
    """A case JAX should evaluate eagerly."""


def case(name, *args, jnp_name=None, call=None, kw=None, view=None, eager=False, **params):
    """Evaluates `jnp.<jnp_name or name>(*args, **kw, **params)` (or `call(...)`) in JAX,
    jitted unless `eager` (or unless it cannot be), and records the line. `view` maps an
    input's name (`_0`, ...) to `T`, `S` or `R` (see the docstring): that input is then
    given as its base."""
    kw = kw or {}
    view = view or {}
    fn = call or getattr(jnp, jnp_name or name)
    scalar = [isinstance(a, (bool, int, float)) and not isinstance(a, np.generic) for a in args]
    arr_pos = [k for k, s in enumerate(scalar) if not s]
    names = [f"_{k}" for k in arr_pos] + list(kw)
    arrays = [np.asarray(args[k]) for k in arr_pos] + [np.asarray(a) for a in kw.values()]
    pparams = {f"_{k}": a for k, a in enumerate(args) if scalar[k]}
    vparams = {f"view_{n}": v for n, v in view.items()}
    vfns = [VIEWS[view[n]] if n in view else (lambda x: x) for n in names]

    def run(*xs):
        xs = [g(x) for g, x in zip(vfns, xs)]
        it = iter(xs[:len(arr_pos)])
        pos = [a if scalar[k] else next(it) for k, a in enumerate(args)]
        kws = dict(zip(kw, xs[len(arr_pos):]))
        return fn(*pos, **kws, **params)

    arrays_j = [jnp.asarray(a) for a in arrays]
    try:
        try:
            if eager:
                raise _Eager
            out = jax.jit(run)(*arrays)
            mode = "jit"
        except (_Eager, jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError,
                jax.errors.TracerIntegerConversionError, jax.errors.NonConcreteBooleanIndexError,
                jax.errors.TracerArrayConversionError):
            out = run(*arrays_j)
            mode = "eager"
    except Exception as e:  # noqa: BLE001  (a case JAX rejects: reported, not written)
        print(f"CASE ERROR {name} {params} {[a.dtype.name for a in arrays]}: "
              f"{type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    outs = [np.asarray(o) for o in outs]
    if mode == "jit":
        e = run(*arrays_j)
        es = list(e) if isinstance(e, (tuple, list)) else [e]
        if len(es) != len(outs) or not all(same_bits(a, b) for a, b in zip(es, outs)):
            # JAX's jitted and eager values differ (XLA fuses the jitted computation and
            # skips the narrow floats' roundings between operations, or folds constants
            # with NumPy): both are written, the jitted line first.
            print(f"JAX JIT != EAGER {name} {params} {[a.dtype.name for a in arrays]}",
                  file=sys.stderr)
            eager_outs = [np.asarray(o) for o in es]
            params = {**params, "jax_jit_differs": True}
    ps = " ".join(f"{k}={lit(v)}" for k, v in {**pparams, **params, **vparams}.items()) or "-"
    ins = " ; ".join(f"{n} {words(a)}" for n, a in zip(names, arrays)) or "-"
    LINES.append(f"{name} | {mode} | {ps} | {ins} | " + (" ; ".join(words(o) for o in outs) or "-"))
    if params.get("jax_jit_differs"):
        LINES.append(f"{name} | eager | {ps} | {ins} | "
                     + (" ; ".join(words(o) for o in eager_outs) or "-"))
    COUNT[name] = COUNT.get(name, 0) + 1


# ---- inputs ----

def edge(dt):
    """Edge values of dtype `dt` (no subnormals)."""
    d = np.dtype(dt)
    if d == np.dtype(B):
        return np.array([True, False, True, True, False, False, True, False], B)
    if d.kind in "iu":
        info = np.iinfo(d)
        v = [0, 1, 2, 3, 7, info.max, info.max - 1, info.max // 2, info.max // 2 + 1, 100]
        if d.kind == "i":
            v += [-1, -2, -7, info.min, info.min + 1, -100]
        if d.itemsize >= 2:
            v += [255, 256, -256 if d.kind == "i" else 257]
        if d.itemsize >= 4:
            v += [65535, 65536, 16777217, -65537 if d.kind == "i" else 2**31 + 5]
        return np.array(v, d)
    big = {np.dtype(F16): 65504.0, np.dtype(BF16): 3.3e38, np.dtype(F32): 3.4028235e38}[d]
    small = {np.dtype(F16): 6.1035156e-05, np.dtype(BF16): 1.2e-38, np.dtype(F32): 1.1754944e-38}[d]
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.0, -7.0, 0.25, 100.0, -300.75,
         inf, -inf, nan, big, -big, small, -small, 1e-3, 255.5, 65519.0, 70000.0, 3e9, -3e9]
    return np.array(v, np.float32).astype(d)


SUBNORMAL = {np.dtype(F32): [1e-40, -1e-40, 1e-45, -1e-45, 1.1754942e-38, 5e-39],
             np.dtype(F16): [6e-8, -6e-8, 3e-5, -3e-5, 6.097e-05, 1e-6],
             np.dtype(BF16): [1e-39, -1e-39, 1e-40, -5e-39, 9.2e-41, 1.1e-38]}


def subnormals(dt):
    return np.array(SUBNORMAL[np.dtype(dt)], np.float32).astype(np.dtype(dt))


def rand(rng, dt, shape, lo=None, hi=None):
    """Random values of dtype `dt`, in [lo, hi] where given."""
    d = np.dtype(dt)
    if d == np.dtype(B):
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        info = np.iinfo(d)
        lo = info.min if lo is None else lo
        hi = info.max if hi is None else hi
        return rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int64).astype(d)
    lo = -10.0 if lo is None else lo
    hi = 10.0 if hi is None else hi
    return rng.uniform(lo, hi, size=shape).astype(np.float32).astype(d)


def isf(dt):
    return np.dtype(dt) in (np.dtype(F32), np.dtype(F16), np.dtype(BF16))


def isint(dt):
    return np.dtype(dt).kind in "iu"


# ---- sections ----

def sec_astype():
    rng = np.random.default_rng(1)
    for src in ALL:
        x = np.concatenate([edge(src), rand(rng, src, 8)])
        for dst in ALL:
            case("astype", x, dtype=dst, call=lambda x, dtype: x.astype(dtype))
        if isf(src):
            for dst in ALL:
                case("astype", subnormals(src), dtype=dst, call=lambda x, dtype: x.astype(dtype))
    # float -> integer rounding near the ranges' ends and halfway points
    x = np.array([127.5, 127.9, 128.0, -128.5, -128.9, -129.0, 255.5, 255.99, 256.0, -0.99, -1.0,
                  32767.5, 32768.0, -32768.9, -32769.0, 65535.5, 65536.0, 2147483520.0,
                  2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0,
                  0.5, -0.5, 1.5, 2.5], F32)
    for dst in INTS + [B]:
        case("astype", x, dtype=dst, call=lambda x, dtype: x.astype(dtype))
    # non-contiguous and 0-d and empty
    case("astype", rand(rng, F32, (3, 4), -200, 200), dtype=I8, view={"_0": "T"},
         call=lambda x, dtype: x.astype(dtype))
    case("astype", rand(rng, I32, (4, 6)), dtype=F16, view={"_0": "S"},
         call=lambda x, dtype: x.astype(dtype))
    case("astype", np.array(-3.7, F32), dtype=U8, call=lambda x, dtype: x.astype(dtype))
    case("astype", np.zeros((0, 3), U16), dtype=BF16, call=lambda x, dtype: x.astype(dtype))


UNARY_EXACT = ["abs", "absolute", "fabs", "negative", "positive", "sign", "square", "sqrt",
               "floor", "ceil", "trunc", "rint", "isfinite", "isinf", "isnan", "isneginf",
               "isposinf", "signbit", "logical_not", "bitwise_not", "invert", "bitwise_invert",
               "bitwise_count", "reciprocal", "deg2rad", "rad2deg", "degrees", "radians",
               "spacing", "nan_to_num", "frexp", "modf"]
UNARY_ULPS = ["cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
              "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
              "arctanh", "acos", "acosh", "asin", "asinh", "atan", "atanh", "sinc", "i0"]


# Aliases, swept over every dtype only.
UNARY_ALIASES = ["absolute", "fabs", "invert", "bitwise_invert", "degrees", "radians", "acos",
                 "acosh", "asin", "asinh", "atan", "atanh"]


def unary_inputs(rng, dt, fname):
    x = edge(dt)
    if isf(dt):
        if fname in ("arcsin", "arccos", "arctanh", "asin", "acos", "atanh"):
            extra = rand(rng, dt, 12, -1.0, 1.0)
        elif fname in ("arccosh", "acosh"):
            extra = rand(rng, dt, 12, 1.0, 20.0)
        elif fname in ("exp", "exp2", "expm1", "sinh", "cosh", "i0"):
            extra = rand(rng, dt, 12, -12.0, 12.0)
        else:
            extra = rand(rng, dt, 12, -50.0, 50.0)
        return np.concatenate([x, extra])
    return np.concatenate([x, rand(rng, dt, 8)])


def sec_unary():
    rng = np.random.default_rng(2)
    for fname in UNARY_EXACT + UNARY_ULPS:
        if fname == "i0":  # (a long series: slow, and swept by jnp_cases.txt too)
            for dt in [U8, BF16, F16, F32]:
                case(fname, unary_inputs(rng, dt, fname))
            continue
        for dt in ALL:
            case(fname, unary_inputs(rng, dt, fname))
        if fname in UNARY_ALIASES:
            continue
        for dt in FLOATS:
            case(fname, subnormals(dt))
        # 0-d, empty, non-contiguous
        case(fname, np.array(0.75, F32))
        case(fname, np.array(-3, I16))
        case(fname, np.zeros((2, 0), F16))
        case(fname, rand(rng, F32, (3, 5), 0.1, 5.0), view={"_0": "T"})
        case(fname, rand(rng, I8, (2, 6)), view={"_0": "S"})
        case(fname, rand(rng, BF16, (4, 2), 0.1, 0.9), view={"_0": "R"})
    for dt in FLOATS:
        x = np.concatenate([edge(dt), subnormals(dt)])
        case("nan_to_num", x, nan=-1.0, posinf=7.0, neginf=-7.0)
        case("nan_to_num", x, posinf=1e30, neginf=-1e30)
        case("nan_to_num", x, nan=inf)
    for dt in INTS + [B]:
        case("nan_to_num", edge(dt), nan=5.0, posinf=300.0)
    for dt in ALL:
        for d in [-2, -1, 0, 1, 3]:
            x = unary_inputs(rng, dt, "round")
            case("round", x, decimals=d)
        case("around", unary_inputs(rng, dt, "round"), decimals=1)


BINARY_EXACT = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
                "remainder", "mod", "fmod", "maximum", "minimum", "fmax", "fmin", "copysign",
                "nextafter", "heaviside", "gcd", "lcm", "bitwise_and", "bitwise_or",
                "bitwise_xor", "left_shift", "right_shift", "bitwise_left_shift",
                "bitwise_right_shift", "equal", "not_equal", "less", "less_equal", "greater",
                "greater_equal", "logical_and", "logical_or", "logical_xor", "divmod"]
BINARY_ULPS = ["power", "pow", "float_power", "arctan2", "atan2", "hypot", "logaddexp",
               "logaddexp2"]


def binary_values(dt):
    d = np.dtype(dt)
    if isf(d):
        return np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, -7.0, 100.0, inf, -inf, nan,
                         {np.dtype(F16): 65504.0}.get(d, 3e38), -0.75, 2.0, 1e-3], np.float32).astype(d)
    if d == np.dtype(B):
        return np.array([True, False], B)
    info = np.iinfo(d)
    v = [0, 1, 2, 3, 7, 8, info.bits - 1, info.bits, info.bits + 1, info.max, info.max // 2 + 1]
    if d.kind == "i":
        v += [-1, -2, -7, -8, info.min, info.min + 1]
    return np.array(v, d)


# Aliases, swept over fewer cases (JAX's aliases can differ: `atan2` promotes its operands
# with `promote_args` first, so weak integers wrap into narrow integer dtypes).
BINARY_ALIASES = ["true_divide", "mod", "pow", "atan2", "bitwise_left_shift",
                  "bitwise_right_shift"]


def sec_binary():
    rng = np.random.default_rng(3)
    for fname in BINARY_EXACT + BINARY_ULPS:
        alias = fname in BINARY_ALIASES
        for dt in ALL:
            v = binary_values(dt)
            gcd = fname in ("gcd", "lcm") and isint(dt)
            if gcd:  # (JAX's gcd loop never ends for the dtype's minimum and an odd partner)
                v = v[v != np.iinfo(dt).min]
            a = rand(rng, dt, 12) if not isf(dt) else rand(rng, dt, 12, -20, 20)
            b = rand(rng, dt, 12) if not isf(dt) else rand(rng, dt, 12, -20, 20)
            if isint(dt) and fname in ("left_shift", "right_shift",
                                       "bitwise_left_shift", "bitwise_right_shift"):
                b = rand(rng, dt, 12, 0, 2 * np.iinfo(dt).bits if np.dtype(dt).kind == "u"
                         else np.iinfo(dt).bits + 3)
            if gcd:
                a, b = np.maximum(a, np.iinfo(dt).min + 1), np.maximum(b, np.iinfo(dt).min + 1)
            # every pair of edge and random values: a row against a column (broadcast)
            case(fname, np.concatenate([v, a]), np.concatenate([v, b]).reshape(-1, 1))
        if not alias:
            for dt in FLOATS:
                sub = subnormals(dt)
                other = np.array([1.0, -1.0, 0.0, 2.0, 0.5, -0.0], np.float32).astype(dt)
                case(fname, sub, np.concatenate([sub[::-1], other]).reshape(-1, 1))
        # mixed dtypes, weak scalars, 0-d, views
        for x, y in [(rand(rng, I8, 6), rand(rng, U8, 6)), (rand(rng, I32, 6), rand(rng, U32, 6)),
                     (rand(rng, U8, 6), rand(rng, BF16, 6)), (rand(rng, F16, 6), rand(rng, BF16, 6)),
                     (rand(rng, B, 6), rand(rng, I16, 6)), (rand(rng, U32, 6), rand(rng, I8, 6))]:
            if fname in ("gcd", "lcm") and np.dtype(U32) in (x.dtype, y.dtype):
                continue  # (int32 minimums: see above)
            case(fname, x, y)
        for dt, w in [(I8, 300), (U8, -1), (U16, 2.5), (BF16, 300), (F16, 2.5), (F16, -1)]:
            x = binary_values(dt)
            if fname in ("gcd", "lcm") and isint(dt):
                x = x[x != np.iinfo(dt).min]
            case(fname, x, w)
        i16 = binary_values(I16)
        case(fname, 3, i16[i16 != -32768] if fname in ("gcd", "lcm") else i16)
        case(fname, True, binary_values(B))
        if alias:
            continue
        case(fname, np.array(5, I32), np.array(3, I32))
        case(fname, np.array(2.5, F32), rand(rng, F32, (2, 3), 0.5, 4))
        case(fname, rand(rng, F32, (3, 4), 0.5, 4), rand(rng, F32, (4, 3), 0.5, 4),
             view={"_0": "T"})
        case(fname, rand(rng, I16, (2, 8), 1, 9), rand(rng, I16, (2, 4), 1, 9),
             view={"_0": "S", "_1": "R"})
        case(fname, np.zeros((0, 3), F32), np.ones((1, 3), F32))


def mat(rng, dt, shape, special=False):
    """Random values of `dt` in `shape` (floats in [-10, 10]), with `dt`'s edge values in
    random places where `special`."""
    n = int(np.prod(shape))
    if isf(dt):
        v = rand(rng, dt, n, -10, 10)
    elif np.dtype(dt) == np.dtype(B):
        v = rand(rng, dt, n)
    else:
        v = rand(rng, dt, n)
    if special:
        e = edge(dt)
        v[: min(n, len(e))] = e[: min(n, len(e))]
        v = v[rng.permutation(n)]
    return v.reshape(shape)


REDUCE = ["sum", "prod", "mean", "max", "min", "amax", "amin", "all", "any", "nansum", "nanprod",
          "nanmean", "nanmax", "nanmin", "ptp", "count_nonzero", "median", "nanmedian", "var",
          "std", "nanvar", "nanstd"]
ARG = ["argmax", "argmin", "nanargmax", "nanargmin"]
SCAN = ["cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"]


def sec_reductions():
    rng = np.random.default_rng(4)
    for fname in REDUCE + ARG + SCAN:
        for dt in ALL:
            if fname.startswith("nan") and dt in (U8, I16, U16, I32, U32):
                continue  # (no NaN to skip: int8 stands for the integers)
            x = mat(rng, dt, (3, 4))
            xs = mat(rng, dt, (4, 5), special=True)
            if fname in ARG:
                case(fname, xs)
                case(fname, xs, axis=0)
                case(fname, xs, axis=-1, keepdims=True)
                case(fname, x, view={"_0": "T"}, axis=1)
                continue
            if fname in SCAN:
                ax = {"axis": -1} if fname.startswith("cumulative") else {}
                case(fname, x, **({"axis": 0} if ax else {}))
                case(fname, xs, axis=-1)
                case(fname, x, view={"_0": "T"}, axis=1)
                continue
            if fname in ("amax", "amin") and dt not in (I8, BF16):
                continue  # (aliases of max and min)
            x3 = mat(rng, dt, (2, 3, 4), special=True)
            case(fname, x3)
            case(fname, x3, axis=(0, 2))
            case(fname, xs, axis=-1, keepdims=True)
            if dt in (B, I8, U32, BF16, F32):
                case(fname, mat(rng, dt, (3, 8)), view={"_0": "S"}, axis=0)
        # 0-d and empty
        for dt in [F32, I8, B]:
            case(fname, np.array(3, dt) if dt != B else np.array(True))
            if fname in ARG or fname in ("max", "min", "amax", "amin", "nanmax", "nanmin", "ptp"):
                continue
            case(fname, np.zeros((0, 3), dt), axis=0)
            case(fname, np.zeros((0, 3), dt))
    for fname in ["var", "std", "nanvar", "nanstd"]:
        for dt in [F32, F16, BF16, I16, U8]:
            case(fname, mat(rng, dt, (3, 5), special=dt != U8), axis=1, ddof=1)
            case(fname, mat(rng, dt, (3, 5)), ddof=4, axis=0)
    # dtype= arguments
    for fname in ["sum", "prod", "mean", "nansum", "nanprod", "nanmean", "cumsum", "cumprod",
                  "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod"]:
        for src, dst in [(I8, I8), (U8, U8), (I8, F32), (B, I32), (F32, F16), (F16, F32), (BF16, F32),
                         (I32, BF16), (U16, I16), (F32, I32), (U32, F16), (B, B)]:
            x = mat(rng, src, (3, 4)) if not isint(src) else rand(rng, src, (3, 4), 0, 60)
            case(fname, x, axis=1, dtype=dst)
            if fname not in SCAN:
                case(fname, x, dtype=dst)
    for dt in [I8, U8, B, F16, U32]:
        case("cumulative_sum", mat(rng, dt, (2, 3)), axis=0, include_initial=True)
        case("cumulative_prod", mat(rng, dt, (2, 3)), axis=1, include_initial=True)


def sec_creation():
    rng = np.random.default_rng(5)
    for spec in [(0, 10, 3), (10, 0, -3), (-5, 5, 2), (0, 0, 1), (3, 1, 1), (0, 200, 37), (250, 260, 1)]:
        for dt in ALL:
            case("arange", start=spec[0], stop=spec[1], step=spec[2], dtype=dt)
        case("arange", start=spec[0], stop=spec[1], step=spec[2])
    for spec in [(0.0, 1.0, 0.1), (0.5, 3.0, 0.5), (-1.0, 1.0, 0.3), (0.0, 2.0, 0.7), (10.0, 0.0, -1.5),
                 (1e6, 1e6 + 1, 0.125), (0.0, -0.0, 1.0), (-2.5, 2.5, 1.25), (0.1, 0.9, 0.2)]:
        for dt in ALL:
            if dt == B:
                continue
            case("arange", start=spec[0], stop=spec[1], step=spec[2], dtype=dt)
        case("arange", start=spec[0], stop=spec[1], step=spec[2])
    for start, stop, num, endpoint in [(0.0, 1.0, 5, True), (0.0, 1.0, 5, False), (-3.0, 7.0, 11, True),
                                       (2.0, 2.0, 1, False), (0.0, 100.0, 1, True), (5.0, -5.0, 6, False),
                                       (0.0, 255.0, 4, True), (0.0, 1.0, 0, False), (-128.0, 127.0, 7, True),
                                       (0.5, 10.5, 3, False)]:
        for dt in ALL:
            case("linspace", start=start, stop=stop, num=num, endpoint=endpoint, dtype=dt)
        for dt in [F16, BF16, F32, I32]:
            case("logspace", start=start / 10, stop=stop / 10, num=num, endpoint=endpoint, dtype=dt)
        case("logspace", start=start / 4, stop=stop / 4, num=num, endpoint=endpoint, base=2.0)
    for start, stop, num, endpoint in [(1.0, 1000.0, 4, True), (1.0, 1000.0, 4, False), (2.0, 64.0, 6, True),
                                       (-1.0, -100.0, 3, True), (100.0, 1.0, 5, False), (3.0, 3.0, 2, True)]:
        for dt in [F16, BF16, F32, I32, U8, I8, U16]:
            case("geomspace", start=start, stop=stop, num=num, endpoint=endpoint, dtype=dt)
    for dt in ALL:
        for n, m, k in [(3, None, 0), (3, 5, 2), (4, 2, -1), (2, 3, -5), (0, 3, 0), (3, 3, 4)]:
            case("eye", N=n, M=m, k=k, dtype=dt)
            case("tri", N=n, M=m, k=k, dtype=dt)
        case("identity", n=3, dtype=dt)
        case("identity", n=0, dtype=dt)
        for fill in [-1, 300, -0.5, True, 1e10]:
            case("full", shape=(2, 3), fill_value=fill, dtype=dt)
        for fill in [-1, 2.5, -1e10]:
            case("full_like", mat(rng, F32, (2, 2)), fill, dtype=dt)
        case("full", shape=(), fill_value=7, dtype=dt)
        case("full", shape=(0, 2), fill_value=7, dtype=dt)
        case("zeros_like", mat(rng, F16, (2, 3)), dtype=dt)
        case("ones_like", mat(rng, I8, (3,)), dtype=dt)
        case("empty_like", mat(rng, U8, (2, 2)), dtype=dt)
        case("zeros", shape=(2, 3), dtype=dt)
        case("ones", shape=(3,), dtype=dt)
        case("empty", shape=(2,), dtype=dt)
        x = mat(rng, dt, (2, 3))
        for fill in [-1, 300, 2.5, True]:
            case("full_like", x, fill)
        case("zeros_like", x)
        case("ones_like", x)
        case("empty_like", x)
        case("full", shape=(3,), kw={"fill_value": mat(rng, dt, ())})
    for fill in [nan, inf, -inf, 3e9]:
        for dt in INTS:
            case("full", shape=(2,), fill_value=fill, dtype=dt, eager=True)


def L(f):
    """`f` of the positional arrays as one list (concatenate, stack, ...)."""
    return lambda *xs, **k: f(list(xs), **k)


def sec_shapes():
    rng = np.random.default_rng(6)
    for dt in [B, I8, U16, BF16, F32]:
        x = mat(rng, dt, (3, 4))
        x3 = mat(rng, dt, (2, 3, 4))
        for shape in [(2, 6), (-1,), (4, -1), (1, 12, 1), (12,)]:
            case("reshape", x, shape=shape, view={"_0": "T"})
        case("reshape", mat(rng, dt, (2, 6)), shape=(3, -1), view={"_0": "S"})
        case("reshape", mat(rng, dt, ()), shape=(1, 1))
        case("reshape", np.zeros((0, 4), dt), shape=(2, 0, -1))
        case("ravel", x, view={"_0": "T"})
        case("ravel", x3, view={"_0": "S"})
        case("ravel", x3, view={"_0": "R"})
        for axes in [None, (1, 0, 2), (-1, 0, 1), (2, 1, 0)]:
            case("transpose", x3, axes=axes)
        case("transpose", x3, axes=(0, 2, 1), view={"_0": "T"})
        case("permute_dims", x3, axes=(2, 0, 1))
        case("matrix_transpose", x3, view={"_0": "R"})
        for src, dst in [(0, -1), (-1, 0), ([0, 1], [-1, -2]), ([2, 0], [0, 1])]:
            case("moveaxis", x3, source=src, destination=dst)
        for a1, a2 in [(0, -1), (-2, 2), (1, 1)]:
            case("swapaxes", x3, axis1=a1, axis2=a2)
        for ax, start in [(2, 0), (-1, 1), (0, 3), (1, -1)]:
            case("rollaxis", x3, axis=ax, start=start)
        y = mat(rng, dt, (1, 3, 1, 2))
        for ax in [None, 0, -2, (0, 2)]:
            case("squeeze", y, axis=ax)
        for ax in [0, -1, (0, 2), (1, -1), (-1, -3)]:
            case("expand_dims", x, axis=ax)
        for f in ["atleast_1d", "atleast_2d", "atleast_3d"]:
            for a in [mat(rng, dt, ()), mat(rng, dt, (3,)), x, x3]:
                case(f, a)
        case("broadcast_to", mat(rng, dt, (3, 1)), shape=(2, 3, 4))
        case("broadcast_to", mat(rng, dt, ()), shape=(0, 2))
        case("broadcast_to", x, shape=(2, 4, 3), view={"_0": "T"})
        case("broadcast_arrays", mat(rng, dt, (3, 1)), mat(rng, dt, (4,)),
             call=lambda a, b: jnp.broadcast_arrays(a, b))
        for ax in [None, 0, -1, (0, 2), (-1, -2)]:
            case("flip", x3, axis=ax)
        case("flip", x, axis=1, view={"_0": "T"})
        case("fliplr", x3)
        case("flipud", x)
        for k in [-1, 1, 2, 3]:
            case("rot90", x, k=k, view={"_0": "T"})
        case("rot90", x3, k=1, axes=(-1, 0))
        for shift, ax in [(1, None), (-2, 0), (5, -1), ((1, -1), (0, -1)), (3, (0, 0))]:
            case("roll", x3, shift=shift, axis=ax)
        case("roll", x, shift=2, axis=0, view={"_0": "T"})
        for reps in [2, (2, 1), (1, 0, 2), (2, 2, 1, 1)]:
            case("tile", x, reps=reps)
        case("tile", mat(rng, dt, ()), reps=(2, 3))
        for reps, ax in [(2, None), (3, 0), (0, 1), (2, -1)]:
            case("repeat", x, repeats=reps, axis=ax)
        case("repeat", x, kw={"repeats": np.array([1, 0, 3], I32)}, axis=0)
        case("resize", x, new_shape=(5, 3))
        case("resize", x, new_shape=(2,), view={"_0": "T"})
        case("unstack", x3, axis=-1)
        case("unstack", x3, axis=1)
        case("tril", x3, k=-1)
        case("triu", x, k=1, view={"_0": "T"})
        case("diagonal", x3, offset=-1, axis1=-1, axis2=0)
        case("diagonal", x, offset=1, view={"_0": "T"})
        case("diag", mat(rng, dt, (3,)), k=-1)
        case("diag", x, k=2, view={"_0": "T"})
        case("diagflat", x, k=-1)
        if dt != B:
            case("trace", x3, offset=1, axis1=-1, axis2=0)
            case("trace", x, view={"_0": "T"})
        for mode in ["constant", "edge"]:
            case("pad", x, pad_width=((1, 0), (2, 3)), mode=mode)
            case("pad", x, pad_width=1, mode=mode, view={"_0": "T"})
        for cv in [-1, 300, 2.5, True]:
            case("pad", x, pad_width=(1, 2), constant_values=cv)
    # joins and splits, mixed dtypes
    for da, db in [(I8, I8), (I8, U8), (U16, I16), (B, I8), (BF16, F16), (U32, I32), (F16, I32),
                   (B, B), (U8, BF16), (F32, BF16)]:
        a, b = mat(rng, da, (2, 3)), mat(rng, db, (2, 3))
        case("concatenate", a, b, axis=0, call=L(jnp.concatenate))
        case("concatenate", a, b, axis=-1, call=L(jnp.concatenate))
        case("concat", a, mat(rng, db, (1, 3)), axis=0, call=L(jnp.concat))
        case("stack", a, b, axis=-1, call=L(jnp.stack))
        case("stack", a, b, axis=1, call=L(jnp.stack))
        case("hstack", a, b, call=L(jnp.hstack))
        case("vstack", a, b, call=L(jnp.vstack))
        case("dstack", a, b, call=L(jnp.dstack))
        case("column_stack", mat(rng, da, (3,)), mat(rng, db, (3, 2)), call=L(jnp.column_stack))
        case("hstack", mat(rng, da, ()), mat(rng, db, (2,)), call=L(jnp.hstack))
        case("vstack", mat(rng, da, (3,)), mat(rng, db, (3,)), call=L(jnp.vstack))
        case("dstack", mat(rng, da, (3,)), mat(rng, db, (3,)), call=L(jnp.dstack))
        case("append", a, b, axis=None)
        case("append", a, mat(rng, db, (2, 1)), axis=1)
        case("concatenate", mat(rng, da, (3, 2)), b, axis=0, call=L(jnp.concatenate),
             view={"_0": "T", "_1": "R"})
    for dt in [I8, BF16, B, U32]:
        x = mat(rng, dt, (4, 6))
        x3 = mat(rng, dt, (2, 4, 6))
        for sec in [2, (1, 3), (-2, 10), (0, 0, 2)]:
            case("split", x, indices_or_sections=sec, axis=1 if sec != 2 else 0)
            case("array_split", x, indices_or_sections=sec, axis=-1)
        case("array_split", x, indices_or_sections=4, axis=1)
        case("array_split", x, indices_or_sections=5, axis=1)
        case("hsplit", x, indices_or_sections=3)
        case("vsplit", x, indices_or_sections=(1,))
        case("dsplit", x3, indices_or_sections=2)
        case("hsplit", mat(rng, dt, (6,)), indices_or_sections=2)
        case("split", x, indices_or_sections=2, axis=1, view={"_0": "T"})
        for obj, ax in [([1], None), ([0, -1], 0), ([1, 3, 5], 1), ([-1], -1), ([], 0)]:
            case("delete", x, obj=obj, axis=ax, call=lambda a, obj, axis: jnp.delete(
                a, np.array(obj, np.int32), axis=axis))
        for obj, ax in [([1], None), ([0], 0), ([2, 2], 1), ([-1], 1), ([6], 1)]:
            case("insert", x, obj=obj, values=7, axis=ax, call=lambda a, obj, values, axis: jnp.insert(
                a, np.array(obj, np.int32), values, axis=axis))
        case("insert", x, kw={"values": mat(rng, dt, (4, 1))}, obj=[1], axis=1,
             call=lambda a, obj, values, axis: jnp.insert(a, np.array(obj, np.int32), values, axis=axis))


def sec_linalg():
    rng = np.random.default_rng(7)
    for da, db in [(F32, F32), (I8, I8), (U8, U8), (I16, I16), (B, B), (BF16, BF16), (F16, F16),
                   (U32, U32), (I32, I32), (I8, U8), (B, F32), (F16, BF16), (I8, F16)]:
        m = lambda shape, d: mat(rng, d, shape) if (isf(d) or d == B) else rand(rng, d, shape, 0 if np.dtype(d).kind == "u" else -9, 9)
        big = lambda shape, d: mat(rng, d, shape)
        case("dot", m((4,), da), m((4,), db))
        case("dot", m((2, 3), da), m((3, 4), db))
        case("dot", m((2, 3), da), m((3,), db))
        case("dot", m((), da), m((2, 3), db))
        case("dot", big((3, 5), da), big((5, 2), db))
        case("vdot", m((2, 3), da), m((3, 2), db))
        case("inner", m((2, 3), da), m((4, 3), db))
        case("inner", m((3,), da), m((3,), db))
        case("outer", big((3,), da), big((2, 2), db))
        case("matmul", m((3,), da), m((3, 4), db))
        case("matmul", m((2, 3), da), m((3,), db))
        case("matmul", m((2, 1, 3, 4), da), m((3, 4, 2), db))
        case("matmul", m((4, 3), da), m((4, 2), db), view={"_0": "T"})
        case("matvec", m((2, 3, 4), da), m((4,), db))
        case("vecmat", m((4,), da), m((2, 4, 3), db))
        case("vecdot", m((2, 4), da), m((4,), db), axis=-1)
        case("vecdot", m((3, 2), da), m((3, 2), db), axis=0)
        case("tensordot", m((2, 3, 4), da), m((4, 5), db), axes_a=[2], axes_b=[0],
             call=lambda a, b, axes_a, axes_b: jnp.tensordot(a, b, axes=(axes_a, axes_b)))
        case("tensordot", m((2, 3, 4), da), m((3, 2), db), axes_a=[1, 0], axes_b=[0, 1],
             call=lambda a, b, axes_a, axes_b: jnp.tensordot(a, b, axes=(axes_a, axes_b)))
        case("tensordot", m((2, 3), da), m((4,), db), axes_a=[], axes_b=[],
             call=lambda a, b, axes_a, axes_b: jnp.tensordot(a, b, axes=(axes_a, axes_b)))
        case("tensordot", m((2, 3, 4), da), m((4, 3), db), axes_a=[-1, -2], axes_b=[0, 1],
             call=lambda a, b, axes_a, axes_b: jnp.tensordot(a, b, axes=(axes_a, axes_b)))
        case("kron", big((2, 2), da), big((3,), db))
        case("cross", m((2, 3), da), m((2, 3), db))
        case("cross", m((4, 2), da), m((4, 3), db))
        case("dot", np.zeros((0, 3), da), np.zeros((3, 2), db))
        case("matmul", np.zeros((2, 0), da), np.zeros((0, 3), db))


def sec_indexing():
    rng = np.random.default_rng(8)
    idx = np.array([0, 2, -1, -5, 4, 9, 3, -2], I32)
    for dt in ALL:
        x = mat(rng, dt, (3, 4), special=True)
        for mode in [None, "fill", "clip", "wrap"]:
            m = {} if mode is None else {"mode": mode}
            case("take", x, idx, axis=1, **m)
            case("take", x, idx[:3], axis=0, **m)
            case("take", x, idx, **m)
            if mode != "wrap":
                case("take_along_axis", x, np.array([[0, 3, -1], [2, 4, -6], [1, 1, 9]], I32), axis=1, **m)
        case("take", x, np.array([7, -9], I8), axis=1, mode="fill", fill_value=3)
        case("take", x, idx, axis=1, view={"_0": "T"})
        case("take_along_axis", x, np.array([[2, 0, 1, 5]], I32), axis=0, mode="fill", fill_value=-2)
        for mode in ["clip", "wrap", "fill"]:
            case("put", x, np.array([0, 5, -1, 13, -20], I32), mat(rng, dt, (3,)), mode=mode, inplace=False)
        case("put", x, np.array([1, 2], I32), 5, mode="clip", inplace=False)
        case("put_along_axis", x, np.array([[0], [3], [-1]], I32), mat(rng, dt, (3, 1)), axis=1,
             inplace=False)
        case("put_along_axis", x, np.array([[1, 2, 0, 2]], I32), 7, axis=0, inplace=False)
        case("put_along_axis", x, np.array([1, 11], I32), mat(rng, dt, (2,)), axis=None, inplace=False)
        case("place", x, (rng.random((3, 4)) < 0.5), mat(rng, dt, (3,)), inplace=False)
        c = rng.integers(0, 3, (3, 4)).astype(I8)
        case("choose", c, x, mat(rng, dt, (4,)), mat(rng, dt, (3, 1)),
             call=lambda a, *ch: jnp.choose(a, list(ch)))
        case("choose", np.array([0, 4, -1, 2], I32), mat(rng, dt, (4,)), mat(rng, dt, (4,)), mode="clip",
             call=lambda a, *ch, mode: jnp.choose(a, list(ch), mode=mode))
        case("choose", np.array([0, 4, -1, 2], I32), mat(rng, dt, (4,)), mat(rng, dt, (4,)), mode="wrap",
             call=lambda a, *ch, mode: jnp.choose(a, list(ch), mode=mode))
        case("select", rng.random((3, 4)) < 0.3, rng.random((3, 4)) < 0.5, x, mat(rng, dt, (4,)),
             call=lambda c1, c2, a, b: jnp.select([c1, c2], [a, b]))
        case("select", rng.random((3, 4)) < 0.3, x, kw={"default": mat(rng, dt, ())},
             call=lambda c1, a, default: jnp.select([c1], [a], default))
        case("select", rng.random((3, 4)) < 0.3, rng.random((3, 4)) < 0.5, x, x[::-1].copy(),
             kw={"default": mat(rng, I16, ())},
             call=lambda c1, c2, a, b, default: jnp.select([c1, c2], [a, b], default))
        case("where", rng.random((3, 4)) < 0.5, x, mat(rng, dt, (4,)))
        case("where", rng.random((4,)) < 0.5, x, 2)
        case("where", rng.random((4,)) < 0.5, -1, x)
        case("where", mat(rng, dt, (4,)), x, mat(rng, I8, (3, 1)))
        case("where", rng.random((4, 3)) < 0.5, x, x, view={"_0": "T", "_2": "R"})
        xs = mat(rng, dt, (3, 4), special=True)
        case("nonzero", xs)
        case("nonzero", xs, size=5, fill_value=-1)
        case("argwhere", xs, size=20)
        case("flatnonzero", xs, size=3)
        case("flatnonzero", xs, view={"_0": "T"})
        case("count_nonzero", xs, axis=0, view={"_0": "T"})
        case("compress", np.array([True, False, True]), x, axis=0)
        case("compress", np.array([1, 0, 2], I8), x, axis=-1)
        case("extract", rng.random((3, 4)) < 0.5, x)
        case("fill_diagonal", x, 300, inplace=False)
        case("fill_diagonal", x, -1.5, inplace=False, view={"_0": "T"})
    for idt in [I8, U8, I16, U16, U32, I32]:
        x = mat(rng, F32, (3, 4))
        case("take", x, np.array([0, 2, 3, 1, 1], idt), axis=1)
        case("take_along_axis", x, np.array([[0], [3], [1]], idt), axis=1)
        case("unravel_index", np.array([0, 5, 11, 13, 100], idt), shape=(3, 4))
        case("ravel_multi_index", np.array([0, 1, 2], idt), np.array([3, 0, 1], idt), dims=(3, 4),
             mode="clip", call=lambda a, b, **k: jnp.ravel_multi_index((a, b), **k))
        case("put", x, np.array([0, 3, 11], idt), 9.5, mode="clip", inplace=False)
    for dt in [F32, I8, U16, B, BF16]:
        case("indices", dimensions=(2, 3), dtype=dt)
        case("meshgrid", mat(rng, dt, (3,)), mat(rng, dt, (2,)), indexing="ij")
        case("meshgrid", mat(rng, dt, (3,)), mat(rng, I16, (2,)), mat(rng, dt, (2,)), sparse=True)
    for n, k, m in [(3, 0, None), (4, 1, 3), (3, -1, 5), (2, 5, None), (0, 0, None)]:
        case("tril_indices", n=n, k=k, m=m)
        case("triu_indices", n=n, k=k, m=m)
    for shape, k in [((3, 3), 0), ((3, 5), 1), ((4, 2), -1)]:
        case("tril_indices_from", np.zeros(shape, F32), k=k)
        case("triu_indices_from", np.zeros(shape, I8), k=k)
    for n, ndim in [(3, 2), (2, 3), (0, 2), (4, 1)]:
        case("diag_indices", n=n, ndim=ndim)
    case("diag_indices_from", np.zeros((3, 3, 3), F32))
    for n, k in [(3, 0), (4, 1), (3, -1)]:
        case("mask_indices", n=n, k=k, mask_func="triu",
             call=lambda n, k, mask_func: jnp.mask_indices(n, jnp.triu, k))
        case("mask_indices", n=n, k=k, mask_func="tril",
             call=lambda n, k, mask_func: jnp.mask_indices(n, jnp.tril, k))
    case("ix_", np.array([0, 2], I32), np.array([1, 3, 0], I8), call=lambda *a: jnp.ix_(*a))
    case("ix_", np.array([2], U8), np.array([], I16), np.array([1, 0], I32), call=lambda *a: jnp.ix_(*a))


def sec_sorting():
    rng = np.random.default_rng(9)
    for dt in ALL:
        xs = mat(rng, dt, (3, 9), special=True)
        x = mat(rng, dt, (4, 5))
        case("sort", xs)
        case("sort", xs, axis=0)
        case("sort", xs, axis=None)
        case("sort", xs, descending=True, stable=True)
        case("sort", x, axis=1, view={"_0": "T"})
        case("argsort", xs, stable=True)
        case("argsort", xs, axis=0, stable=True, descending=True)
        case("argsort", x, axis=-1, view={"_0": "T"}, stable=True)
        for kth in [0, 3, -1]:
            case("partition", xs, kth, axis=-1, call=lambda a, kth, axis: jnp.partition(a, kth, axis=axis))
        case("partition", xs, 1, axis=0, call=lambda a, kth, axis: jnp.partition(a, kth, axis=axis))
        case("lexsort", mat(rng, dt, (8,)), rand(rng, I8, 8, -2, 2), call=lambda *k: jnp.lexsort(k))
        srt = np.sort(mat(rng, dt, (10,), special=True).astype(np.float32)).astype(np.dtype(dt)) \
            if isf(dt) else np.sort(mat(rng, dt, (10,), special=True))
        q = mat(rng, dt, (2, 7), special=True)
        case("searchsorted", srt, q)
        case("searchsorted", srt, q, side="right")
        if dt != B:
            case("digitize", q, srt)
            case("digitize", q, srt[::-1].copy(), right=True)
        case("isin", xs, mat(rng, dt, (6,), special=True))
        case("isin", xs, q, invert=True)
        case("unique", xs, eager=True)
        case("unique", xs, return_index=True, return_inverse=True, return_counts=True, eager=True)
        case("unique", xs, size=30, eager=False)
        case("unique_values", xs, eager=True)
        case("unique_counts", xs, eager=True)
        if isint(dt) or dt == B:
            case("bincount", rand(rng, dt, 12, 0, 9) if dt != B else rand(rng, B, 12), length=12)
            case("bincount", rand(rng, dt, 12, 0, 9) if dt != B else rand(rng, B, 12), eager=True)
            case("bincount", rand(rng, dt, 8, 0, 5) if dt != B else rand(rng, B, 8),
                 kw={"weights": mat(rng, dt, (8,))}, length=6)
    for dt in [I8, U16, BF16]:
        case("setdiff1d", mat(rng, dt, (8,)), mat(rng, dt, (5,)), eager=True)
        case("union1d", mat(rng, dt, (5,)), mat(rng, dt, (4,)), eager=True)
        case("intersect1d", rand(rng, dt, 10, 0, 6), rand(rng, dt, 10, 0, 6), eager=True)
        case("setxor1d", rand(rng, dt, 10, 0, 6), rand(rng, dt, 10, 0, 6), eager=True)


def sec_misc():
    rng = np.random.default_rng(10)
    for dt in NUMERIC:
        x = mat(rng, dt, (3, 5), special=True)
        for lo, hi in [(-1, 2), (-300, 300), (0.5, 2.5), (2, -1), (nan, 1.0), (-inf, inf)]:
            case("clip", x, min=lo, max=hi, call=lambda x, **k: jnp.clip(x, k["min"], k["max"]))
        case("clip", x, mat(rng, dt, (5,)), mat(rng, dt, (3, 1)), call=lambda x, lo, hi: jnp.clip(x, lo, hi))
        case("clip", x, mat(rng, I8, (5,)), mat(rng, F16, (3, 1)), call=lambda x, lo, hi: jnp.clip(x, lo, hi))
        case("clip", x, mat(rng, dt, (5, 3)), mat(rng, dt, (3, 5)), call=lambda x, lo, hi: jnp.clip(x, lo, hi),
             view={"_1": "T"})
    for da, db in [(F16, F16), (BF16, BF16), (I8, I8), (U8, U8), (I16, F16), (U32, U32), (B, B), (BF16, F32)]:
        a = mat(rng, da, (12,), special=True)
        b = a.astype(np.float32) * np.float32(1.0001) if isf(da) else a
        b = np.asarray(b).astype(np.dtype(db)) if db != B else rng.random(12) < 0.5
        case("isclose", a, b)
        case("isclose", a, b, equal_nan=True, rtol=0.01, atol=0.5)
        case("allclose", a, b)
        case("allclose", a, a, equal_nan=True)
        case("array_equal", a, b)
        case("array_equal", a, a.astype(np.dtype(db)) if db != B else a, equal_nan=True)
        case("array_equiv", a.reshape(3, 4), a.reshape(3, 4)[1])
        case("array_equiv", a, np.ones((2, 1), np.dtype(db)))
    for dt in ALL:
        x = mat(rng, dt, (3, 6))
        case("diff", x)
        case("diff", x, n=2, axis=0)
        case("diff", x, axis=1, kw={"prepend": mat(rng, dt, (3, 1))}, view={"_0": "R"})
        case("ediff1d", x)
        case("ediff1d", x, kw={"to_begin": mat(rng, dt, (2,)), "to_end": mat(rng, dt, ())})
        if dt != B:
            case("gradient", x, axis=1)
            case("gradient", mat(rng, dt, (5,)), 2.0)
            case("trapezoid", x)
            case("trapezoid", x, dx=0.5, axis=0)
            case("average", x, axis=1)
            case("average", x, axis=0, kw={"weights": mat(rng, dt, (3,)) if not isint(dt)
                                           else rand(rng, dt, 3, 0, 5)}, returned=True)
            case("convolve", mat(rng, dt, (5,)), mat(rng, dt, (3,)))
            case("correlate", mat(rng, dt, (5,)), mat(rng, dt, (3,)), mode="full")
            case("polyval", mat(rng, dt, (3,)), mat(rng, dt, (4,)))
            case("polyadd", mat(rng, dt, (3,)), mat(rng, dt, (2,)))
            case("polymul", mat(rng, dt, (3,)), mat(rng, dt, (2,)))
            case("polyder", mat(rng, dt, (4,)), m=1)
            case("polyint", mat(rng, dt, (3,)), m=1)
            case("vander", mat(rng, dt, (3,)), N=4)
            case("cov", mat(rng, dt, (2, 5)))
            case("corrcoef", mat(rng, dt, (2, 5)))
            case("interp", mat(rng, dt, (6,)), np.sort(mat(rng, dt, (4,)).astype(np.float32)).astype(np.dtype(dt)),
                 mat(rng, dt, (4,)))
            case("cross", mat(rng, dt, (2, 3)), mat(rng, dt, (3,)))
            case("outer", mat(rng, dt, (3,)), mat(rng, dt, (2,)))
        if isint(dt) or dt == B:
            case("packbits", x != 0 if dt != B else x, axis=-1)
            case("packbits", x, bitorder="little")
        case("median", mat(rng, dt, (3, 6), special=True), axis=1)
        if dt != B:
            case("quantile", mat(rng, dt, (3, 6)), 0.3, axis=1)
            case("percentile", mat(rng, dt, (3, 6)), 75.0, axis=0, method="nearest")
            case("histogram", mat(rng, dt, (12,)), bins=3)
    for dt in FLOATS:
        for edt in [I8, I32, U8, I16]:
            case("ldexp", mat(rng, dt, (8,), special=True), rand(rng, edt, 8, -30 if np.dtype(edt).kind == "i" else 0, 30))
        case("ldexp", edge(dt), np.array(3, I32))
        case("frexp", edge(dt))
    case("unpackbits", rand(rng, U8, (2, 3)), axis=0, count=5)
    for dt in [U8, I16, U16, I32, B]:
        case("packbits", rand(rng, dt, (2, 9)) if dt != B else rand(rng, B, (2, 9)), axis=0)


def sec_more():
    """Functions of jnp_cases.txt over the other dtypes."""
    rng = np.random.default_rng(11)
    for dt in [I8, U8, I16, BF16, F16, F32]:
        x = mat(rng, dt, (3, 6))
        case("unwrap", x)
        case("unwrap", x, axis=0, period=4.0 if not isint(dt) else 4)
        case("unwrap", x, discont=5.0, view={"_0": "T"})
        case("argpartition", mat(rng, dt, (3, 7), special=True), 2, axis=-1,
             call=lambda a, kth, axis: jnp.argpartition(a, kth, axis=axis))
        case("piecewise", mat(rng, dt, (6,)), rng.random((2, 6)) < 0.4, funclist=[-1.0, 2.5, 7.0],
             call=lambda x, c, **k: jnp.piecewise(x, list(c), **k))
        case("trim_zeros", np.concatenate([np.zeros(2, dt), mat(rng, dt, (4,)), np.zeros(3, dt)]), eager=True)
        case("trim_zeros", np.concatenate([np.zeros(2, dt), mat(rng, dt, (4,))]), trim="b", eager=True)
        case("polysub", mat(rng, dt, (3,)), mat(rng, dt, (5,)))
        case("poly", mat(rng, dt, (3,)))
        if not isint(dt):
            case("nanquantile", mat(rng, dt, (3, 6), special=True), 0.25, axis=1)
            case("nanpercentile", mat(rng, dt, (3, 6), special=True), 60.0, axis=0, method="lower")
            case("polydiv", mat(rng, dt, (4,)), np.array([1.0, -2.0], np.float32).astype(dt))
            case("histogram_bin_edges", mat(rng, dt, (9,)), bins=4)
        case("copy", mat(rng, dt, (3, 4)), view={"_0": "T"})
        case("copy", mat(rng, dt, (2, 6)), view={"_0": "S"})
    # Reductions of narrow floats whose accumulation differs, and a product whose partial
    # product is subnormal.
    bf = np.array([6.59375, 8.375, -1.296875, 4.96875, -2.96875, -9.5, -8.5, -4.4375,
                   -1.8515625, -6.34375, 8.375, 7.53125], np.float32).astype(BF16)
    for fname in ["mean", "nanmean", "sum", "nansum"]:
        case(fname, bf)
        case(fname, np.array([60000.0, 60000.0, 1000.0], F16))
    case("prod", np.array([-300.75, -1.1754944e-38, 1e-3, 2.5, -1.0, 0.25, -3.4e38, -7.0], F32))
    case("nanprod", np.array([-300.75, -1.1754944e-38, nan, 1e-3, 2.5, -1.0, 0.25, -3.4e38], F32))


def sec_where_initial():
    """The reductions' `where=` and `initial=` (with `dtype=` where they take it)."""
    rng = np.random.default_rng(12)
    take_initial = ["sum", "prod", "max", "min", "amax", "amin", "nansum", "nanprod", "nanmax",
                    "nanmin"]
    need_initial = ["max", "min", "amax", "amin", "nanmax", "nanmin"]
    for fname in take_initial + ["mean", "nanmean", "all", "any"]:
        for dt in ALL:
            if fname in ("amax", "amin") and dt not in (I8, BF16):
                continue  # (aliases of max and min)
            x = mat(rng, dt, (3, 4), special=True)
            m = rng.random((3, 4)) < 0.6
            m[1] = False  # a row the mask leaves empty
            row = rng.random(4) < 0.5
            init = {}
            if fname in take_initial:
                init = {"initial": 2 if dt == B or not isf(dt) else -1.5}
            if fname not in need_initial:
                case(fname, x, kw={"where": m})
                case(fname, x, kw={"where": m}, axis=1)
                case(fname, x, kw={"where": row}, axis=0, keepdims=True)
                case(fname, x.T.copy(), view={"_0": "T"}, kw={"where": m}, axis=-1)
            if init:
                case(fname, x, **init)
                case(fname, x, kw={"where": m}, axis=1, **init)
                case(fname, x, kw={"where": row}, axis=(0, 1), keepdims=True, **init)
                if fname in need_initial:
                    case(fname, np.zeros((0, 3), dt), axis=0, initial=5)
        # dtype= with the mask
        if fname in ("sum", "prod", "mean", "nansum", "nanprod", "nanmean"):
            for src, dst in [(I8, I8), (I8, F32), (F32, I32), (F16, F32), (F32, F16), (B, I32)]:
                x = mat(rng, src, (3, 4)) if not isint(src) else rand(rng, src, (3, 4), 0, 60)
                m = rng.random((3, 4)) < 0.6
                case(fname, x, kw={"where": m}, axis=1, dtype=dst)
    # var and std: where=, mean= and dtype=
    for fname in ["var", "std", "nanvar", "nanstd"]:
        for dt in [F32, F16, BF16, I8, U8]:
            x = mat(rng, dt, (3, 5), special=isf(dt))
            m = rng.random((3, 5)) < 0.6
            m[1] = [True, False, False, False, False]  # one element: ddof=1 leaves none
            case(fname, x, kw={"where": m}, axis=1, ddof=1)
            case(fname, x, kw={"where": m})
            case(fname, x, kw={"where": m[0]}, axis=0, keepdims=True)
            mean = np.full((3, 1), 0.5, F32)
            case(fname, x, kw={"mean": mean}, axis=1)
            case(fname, x, kw={"mean": mean, "where": m}, axis=1, ddof=1)
            case(fname, x, axis=1, dtype=F16 if dt != F16 else F32)


def sec_with_dtype_shape():
    """`dtype=` and `shape=` of the `_like` functions, `dtype=` of the joins and `trace`."""
    rng = np.random.default_rng(13)
    for dt in ALL:
        x = mat(rng, dt, (2, 3), special=True)
        case("zeros_like", x, dtype=F16, shape=(3, 2))
        case("ones_like", x, shape=4)
        case("zeros_like", x, shape=())
        case("empty_like", x, dtype=I8, shape=(2,))
        case("full_like", x, 300, shape=(2, 2))
        case("full_like", x, 2.7, dtype=BF16, shape=(3,))
        case("full_like", x, -1, dtype=dt, shape=(1, 2))
    for src, other, dst in [(I8, F32, I32), (F32, I8, I16), (U8, I32, U16), (BF16, F16, F32),
                            (F32, F32, B), (I32, U32, F16), (F16, B, U8)]:
        a = mat(rng, src, (2, 3), special=True)
        b = mat(rng, other, (2, 3), special=True)
        case("concatenate", a, b, axis=0, dtype=dst, call=L(jnp.concatenate))
        case("stack", a, b, axis=-1, dtype=dst, call=L(jnp.stack))
        case("hstack", a, b, dtype=dst, call=L(jnp.hstack))
        case("vstack", a, b[0], dtype=dst, call=L(jnp.vstack))
        case("dstack", a, b, dtype=dst, call=L(jnp.dstack))
    for src, dst in [(I8, I8), (U8, U8), (I8, F32), (F32, I32), (B, I32), (F16, F16), (F32, BF16),
                     (I16, F32), (U32, F16)]:
        x = rand(rng, src, (3, 4), 0, 100) if isint(src) else mat(rng, src, (3, 4))
        case("trace", x, dtype=dst)
        case("trace", x, offset=1, dtype=dst)
        case("trace", x, view={"_0": "T"}, offset=-1, dtype=dst)


def sec_with_size():
    """`size=` and `fill_value=` of `compress` and `extract`, and their conditions shorter
    or longer than the array."""
    rng = np.random.default_rng(14)
    for dt in [F32, I8, B, BF16, U16]:
        x = mat(rng, dt, (3, 4), special=True)
        c4 = np.array([True, False, True, True])
        case("compress", c4, x, axis=1, size=2)
        case("compress", c4, x, axis=-1, size=4, fill_value=7)
        case("compress", np.array([0, 2, 0], I8), x, axis=0, size=3, fill_value=-1)
        case("compress", c4[:2], x, axis=1)  # shorter: the first columns
        case("compress", np.array([True, False, True, False, False, False]), x, axis=1)
        case("compress", c4[:3], x, size=2)  # flattened, shorter
        case("compress", np.array([False, True]), x, axis=0, size=1, fill_value=3)
        m = rng.random((3, 4)) < 0.5
        case("extract", m, x, size=5, fill_value=2)
        case("extract", m, x, size=12)
        case("extract", m[:2], x)  # shorter: the first elements
        case("extract", m[:2], x, size=3)


def sec_with_types():
    """The products' `preferred_element_type=`: integer accumulation past the narrow
    types, float inputs rounded once to a narrow result, ints through floats and back."""
    rng = np.random.default_rng(15)
    combos = [(I8, I8, I32), (I8, I8, I16), (I8, I8, U8), (I8, I8, F32), (I8, I8, BF16),
              (BF16, BF16, F32), (F16, F16, F32), (F32, F32, BF16), (F32, F32, F16),
              (BF16, BF16, I32), (F32, F32, I32), (B, B, I32), (I8, U8, I32), (U8, U8, F16),
              (I16, I16, F32), (I32, I32, F32), (U32, U32, I8)]

    def m(shape, dt):
        return mat(rng, dt, shape) if isf(dt) or dt == B else rand(rng, dt, shape)

    for da, db, p in combos:
        kw = {"preferred_element_type": p}
        case("matmul", m((3, 4), da), m((4, 2), db), **kw)
        case("dot", m((2, 5), da), m((5,), db), **kw)
        case("inner", m((3, 4), da), m((2, 4), db), **kw)
        case("vdot", m((2, 3), da), m((3, 2), db), **kw)
        case("vecdot", m((2, 4), da), m((4,), db), axis=-1, **kw)
        case("tensordot", m((2, 3, 4), da), m((4, 5), db), axes_a=[2], axes_b=[0],
             call=lambda a, b, axes_a, axes_b, **k: jnp.tensordot(a, b, axes=(axes_a, axes_b),
                                                                   **k), **kw)


def sec_with_widths():
    """Roundings and conversions of the options: `initial` on 16-bit float sums (applied
    before the one rounding), whole `initial`s that wrap, `dtype=float16` sums and means,
    `linspace`'s float32 bounds."""
    rng = np.random.default_rng(16)
    case("sum", np.ones(2048, F16), initial=1)
    case("sum", np.ones((3, 700), BF16), axis=1, initial=3)
    case("prod", np.full((3, 683), 1.0, F16), axis=1, initial=3)
    case("prod", mat(rng, F16, (2, 9)), axis=1, initial=1.5)
    case("min", rand(rng, U8, (2, 5)), axis=1, initial=-1)
    case("max", rand(rng, U32, (2, 5)), axis=0, initial=-1)
    case("sum", rand(rng, I8, (3, 4)), dtype=I8, initial=300)
    case("sum", rand(rng, I16, (3, 4)), axis=0, initial=70000)
    for dt, dst in [(F32, F16), (I32, F16), (F32, BF16), (F16, F16), (BF16, BF16)]:
        x = (rng.random((4, 7)) * 1000).astype(dt if dt != BF16 else F32)
        x = x.astype(dt) if dt == BF16 else x
        case("sum", x, axis=1, dtype=dst)
        case("mean", x, axis=1, dtype=dst)
        case("mean", x, dtype=dst)
    case("linspace", start=1.0 + 2.0 ** -11 + 2.0 ** -30, stop=3.0, num=1, dtype=F16)
    case("linspace", start=1.0 + 2.0 ** -11 + 2.0 ** -30, stop=3.0 + 2.0 ** -30, num=5,
         dtype=F16)


def main():
    sections = [v for k, v in sorted(globals().items()) if k.startswith("sec_")]
    only = sys.argv[1:]
    for s in sections:
        if not only or s.__name__[4:] in only:
            s()
    print("\n".join(LINES))
    print(" ".join(f"{k}:{v}" for k, v in sorted(COUNT.items())), file=sys.stderr)


if __name__ == "__main__":
    main()

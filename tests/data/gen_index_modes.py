# Generates tests/data/index_modes.txt: JAX's results for out-of-bounds and negative indices
# under each indexing mode (default/None, "fill", "clip", "wrap", "drop", "promise_in_bounds")
# for jnp.take, jnp.take_along_axis, x[idx] / x.at[idx].get(), and the .at[idx] scatters
# (set/add/multiply/min/max), plus whether jax.jit agrees with eager execution on each case.
# Run: pip install jax && python3 tests/data/gen_index_modes.py > tests/data/index_modes.txt
#
# Format: one case per line, whitespace-separated, first token the kind of case (see the
# '# <kind>:' comment lines printed before each section). Lists are comma-separated with no
# spaces and flattened in row-major order; floats are repr(float(v)) (nan, inf, -inf, -0.0),
# ints are ints, bools are true/false. 'default' in the mode column means mode=None (JAX's
# default); '_' in the fill column means no fill_value given. When JAX raises, the result
# columns (shape=, values, dtype) are replaced by 'error <message>' (first 80 characters,
# whitespace replaced by '_').
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", False)

MODES_TAKE = [None, "fill", "clip", "wrap"]
MODES_SCATTER = [None, "drop", "clip", "fill"]


def fmt_scalar(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(int(v))


def fmt_list(vs):
    return ",".join(fmt_scalar(v) for v in np.asarray(vs).ravel().tolist()) or "empty"


def fmt_shape(a):
    return "shape=" + ("x".join(str(d) for d in a.shape) if a.shape else "scalar")


def fmt_err(e):
    msg = "_".join(str(e).split()) or type(e).__name__
    return "error " + msg[:80]


def run(f, *args, shape=True):
    """Result columns for f(*args): '[shape=..] values dtype' or 'error msg'."""
    try:
        r = jnp.asarray(f(*args))
        r.block_until_ready()
        vals = fmt_list(np.asarray(r))
        cols = [fmt_shape(r)] if shape else []
        return " ".join(cols + [vals, r.dtype.name])
    except Exception as e:
        return fmt_err(e)


def mname(m):
    return "default" if m is None else m


def fname(f):
    return "_" if f is None else fmt_scalar(f)


jit_lines = []


def case(key, f, *args, shape=True):
    """Print key + eager result; record whether jax.jit(f) gives the same result."""
    eager = run(f, *args, shape=shape)
    print(" ".join(key), eager)
    jitted = run(jax.jit(f), *args, shape=shape)
    if eager.startswith("error") and jitted.startswith("error"):
        agree = True
    else:
        agree = eager == jitted
    name = ":".join(key)
    jit_lines.append(f"jit_agrees {name} true" if agree else f"jit_agrees {name} false {jitted}")


print(f"# jax {jax.__version__}: kind case-columns... result-columns "
      "(per-kind columns in the '# <kind>:' lines; 'error <msg>' replaces the result columns)")

# 1. jnp.take on 1-D arrays of each dtype.
vals5 = [10, 20, 30, 40, 50]
xs = {
    "float32": jnp.array(vals5, jnp.float32),
    "int32": jnp.array(vals5, jnp.int32),
    "uint32": jnp.array(vals5, jnp.uint32),
    "bool": jnp.array([True, False, True, True, False], jnp.bool_),
    "float16": jnp.array(vals5, jnp.float16),
}
take_idx = jnp.array([0, 4, -1, -5, 5, -6, 7, 100, -100, 2147483647, -2147483648], jnp.int32)
print("# take: dtype mode fill_value indices values result_dtype   "
      "(jnp.take(x, indices, mode=, fill_value=) on x=[10,20,30,40,50] "
      "(bool: [true,false,true,true,false]); int32 indices)")
for dt, x in xs.items():
    settings = [(m, None) for m in MODES_TAKE] + [("fill", 7)]
    if dt == "uint32":
        settings.append(("fill", -1))
    for m, fv in settings:
        case(["take", dt, mname(m), fname(fv), fmt_list(take_idx)],
             lambda x, i, m=m, fv=fv: jnp.take(x, i, mode=m, fill_value=fv),
             x, take_idx, shape=False)
print("# take: promise_in_bounds on in-range indices (the negative ones are in range only "
      "after normalization)")
for dt in ["float32", "int32"]:
    for idx in [[0, 2, 4, 1], [-1, -5, 3]]:
        i = jnp.array(idx, jnp.int32)
        case(["take", dt, "promise_in_bounds", "_", fmt_list(i)],
             lambda x, i: jnp.take(x, i, mode="promise_in_bounds"), xs[dt], i, shape=False)

# 1b. jnp.take on a 2-D array along axis 1, 0 and None.
x2 = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
idx2 = jnp.array([[0, -1], [4, -5]], jnp.int32)
print("# take2d: dtype axis mode fill_value indices shape=result_shape values result_dtype   "
      "(x=arange(12).reshape(3,4); indices have shape 2x2, listed flat)")
for axis in [1, 0, None]:
    for m, fv in [(m, None) for m in MODES_TAKE] + [("fill", 7)]:
        case(["take2d", "float32", f"axis={axis}", mname(m), fname(fv), fmt_list(idx2)],
             lambda x, i, m=m, fv=fv, axis=axis: jnp.take(x, i, axis=axis, mode=m, fill_value=fv),
             x2, idx2)

# 2. jnp.take_along_axis.
idx_ta = jnp.array([[0, -1], [4, -5], [3, 100]], jnp.int32)
print("# take_along_axis: dtype mode fill_value indices shape=result_shape values result_dtype   "
      "(x=arange(12).reshape(3,4), axis=1; indices have shape 3x2, listed flat)")
for dt in ["float32", "int32"]:
    x = jnp.arange(12, dtype=dt).reshape(3, 4)
    for m, fv in [(m, None) for m in MODES_TAKE] + [("fill", 7)]:
        case(["take_along_axis", dt, mname(m), fname(fv), fmt_list(idx_ta)],
             lambda x, i, m=m, fv=fv: jnp.take_along_axis(x, i, axis=1, mode=m, fill_value=fv),
             x, idx_ta)
print("# take_along_axis: promise_in_bounds on in-range, non-negative indices")
idx_ta_in = jnp.array([[0, 3], [1, 2], [3, 0]], jnp.int32)
for dt in ["float32", "int32"]:
    x = jnp.arange(12, dtype=dt).reshape(3, 4)
    case(["take_along_axis", dt, "promise_in_bounds", "_", fmt_list(idx_ta_in)],
         lambda x, i: jnp.take_along_axis(x, i, axis=1, mode="promise_in_bounds"), x, idx_ta_in)

# 3. Gather by indexing: x[idx] and x.at[idx].get(mode=, fill_value=).
xf = xs["float32"]
gidx = jnp.array([0, -1, 5, -6, 100], jnp.int32)
gidx_in = jnp.array([0, -1, 4, -5, 2], jnp.int32)
print("# index: form mode fill_value indices shape=result_shape values result_dtype   "
      "(x=[10.,20.,30.,40.,50.] float32; form getitem is x[idx], at_get is x.at[idx].get(...))")
case(["index", "getitem", "default", "_", fmt_list(gidx)], lambda x, i: x[i], xf, gidx)
for m, fv in [(None, None), ("fill", None), ("clip", None), ("fill", 7), (None, 7)]:
    case(["index", "at_get", mname(m), fname(fv), fmt_list(gidx)],
         lambda x, i, m=m, fv=fv: x.at[i].get(mode=m, fill_value=fv), xf, gidx)
case(["index", "at_get", "promise_in_bounds", "_", fmt_list(gidx_in)],
     lambda x, i: x.at[i].get(mode="promise_in_bounds"), xf, gidx_in)

# 4. Scatters through .at[idx].
sx = {"float32": jnp.array([1, 2, 3, 4, 5], jnp.float32),
      "int32": jnp.array([1, 2, 3, 4, 5], jnp.int32)}
sidx = jnp.array([0, -1, 5, -6, 100, 2], jnp.int32)
supd = [10, 20, 30, 40, 50, 60]
didx = jnp.array([1, 1, -4, 6], jnp.int32)
dupd = [1, 2, 3, 4]
print("# scatter: dtype op mode indices updates shape=result_shape values result_dtype   "
      "(x=[1,2,3,4,5]; x.at[indices].<op>(updates, mode=); updates have x's dtype)")
for dt, x in sx.items():
    u = jnp.array(supd, dt)
    for op in ["set", "add", "multiply", "min", "max"]:
        for m in MODES_SCATTER:
            case(["scatter", dt, op, mname(m), fmt_list(sidx), fmt_list(u)],
                 lambda x, i, op=op, m=m, u=u: getattr(x.at[i], op)(u, mode=m), x, sidx)
print("# scatter: duplicate indices with add")
for dt, x in sx.items():
    u = jnp.array(dupd, dt)
    for m in MODES_SCATTER:
        case(["scatter", dt, "add", mname(m), fmt_list(didx), fmt_list(u)],
             lambda x, i, m=m, u=u: x.at[i].add(u, mode=m), x, didx)

# 4b. Scalar (python int) indices, default mode. Eager uses the literal index; the jit
# variant passes the index as a traced argument.
print("# scalar: dtype expr shape=result_shape values result_dtype   "
      "(x=[1.,2.,3.,4.,5.] float32; python int index, default mode)")
exprs = [
    ("x.at[7].set(9.)", 7, lambda x, i: x.at[i].set(9.)),
    ("x.at[-7].set(9.)", -7, lambda x, i: x.at[i].set(9.)),
    ("x.at[-1].set(9.)", -1, lambda x, i: x.at[i].set(9.)),
    ("x.at[7].get()", 7, lambda x, i: x.at[i].get()),
    ("x.at[-7].get()", -7, lambda x, i: x.at[i].get()),
    ("x[7]", 7, lambda x, i: x[i]),
    ("x[-7]", -7, lambda x, i: x[i]),
    ("x[-1]", -1, lambda x, i: x[i]),
]
xs1 = sx["float32"]
for text, i, f in exprs:
    key = ["scalar", "float32", text]
    eager = run(lambda x, f=f, i=i: f(x, i), xs1)  # literal python int index
    print(" ".join(key), eager)
    jitted = run(jax.jit(f), xs1, i)  # traced index
    agree = (eager == jitted) or (eager.startswith("error") and jitted.startswith("error"))
    name = ":".join(key)
    jit_lines.append(f"jit_agrees {name} true" if agree else f"jit_agrees {name} false {jitted}")

# 5. jit vs eager, for every case above.
print("# jit_agrees: case true|false [jit result columns when false]   "
      "(case = the case's columns before the result, joined by ':'; jax.jit of a function of "
      "(x, idx), both traced; two errors count as agreeing)")
for line in jit_lines:
    print(line)

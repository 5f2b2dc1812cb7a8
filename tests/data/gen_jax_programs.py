"""Random programs evaluated by JAX 0.10.2 (jitted), for
`jit_programs::random_programs_give_jax_values`. The programs and their inputs come from
Olympus's generator (tests/core/jit_programs.rs), then JAX adds each output:

    cargo test --test core -- --ignored write_programs_for_jax
    python3 tests/data/gen_jax_programs.py < /tmp/jax_programs_in.txt > tests/data/jax_programs.txt

(`OLYMPUS_JAX_SEED=N` writes other programs, to look for differences beyond these.)

Each program: `input dtype shape | values`, one `op` line per value it makes (numbered
after the inputs), `outputs` (value numbers), then one `out dtype shape | words` line
per output (float32 and int32 as 32-bit words, float16 and bfloat16 as 16-bit ones,
hex; the shape `-` is 0-d), followed by an `alt` line with JAX's eager words where they
differ (XLA simplifies under `jit`: `x > x` is false there even for NaN operands'
products, and it contracts multiplies and adds). Programs over float32 inputs alone end
with one `grad` line per input: the jitted gradient of the outputs' sums, output `i`
weighted by `1 / (i + 1)`, and an `alt` line with the eager one where it differs (XLA
turns a mask's `x * convert(mask)` into a select under `jit`, so a minimum over a row
with a NaN gives 0, not NaN, to the other elements). Then one `hvp` line per input: the
jitted Hessian-vector product of the same weighted sum (`jax.jvp` of the gradient along
`cos(0.7 i + k)` for element `i` of input `k`, rounded to float32), with its `alt`; then
one `tangent` line per floating output: its jitted tangent by `jax.jvp` of the program
along the same directions, with its `alt`."""
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_platforms", "cpu")


def lst(s, f=int):
    return [] if s == "-" else [f(t) for t in s.split(",")]


UNARY = {
    "neg": jnp.negative,
    "exp": jnp.exp,
    "tanh": jnp.tanh,
    "sin": jnp.sin,
    "sqrt_abs": lambda x: jnp.sqrt(jnp.abs(x)),
    "log1p_abs": lambda x: jnp.log1p(jnp.abs(x)),
    "square": jnp.square,
    "cos": jnp.cos,
    "expm1": jnp.expm1,
    "floor": jnp.floor,
    "sign": jnp.sign,
    "arctan": jnp.arctan,
    "arcsinh": jnp.arcsinh,
    "sinh": jnp.sinh,
    "abs": jnp.abs,
    "reciprocal": jnp.reciprocal,
    "cbrt": jnp.cbrt,
    "sinc": jnp.sinc,
    "rint": jnp.rint,
    "exp2": jnp.exp2,
}
BINARY = {
    "add": jnp.add,
    "sub": jnp.subtract,
    "mul": jnp.multiply,
    "div": jnp.divide,
    "max": jnp.maximum,
    "min": jnp.minimum,
    "arctan2": jnp.arctan2,
    "hypot": jnp.hypot,
    "logaddexp": jnp.logaddexp,
    "copysign": jnp.copysign,
    "fmod": jnp.fmod,
    "remainder": jnp.remainder,
    "power_abs": lambda x, y: jnp.power(jnp.abs(x), y),
}
REDUCE = {"sum": jnp.sum, "max": jnp.max, "min": jnp.min, "mean": jnp.mean, "prod": jnp.prod}


def apply(t, v):
    a = v[int(t[1])]
    k = t[0]
    if k == "unary":
        return UNARY[t[2]](a)
    if k == "binary":
        return BINARY[t[3]](a, v[int(t[2])])
    if k == "where":
        return jnp.where(a > 0, v[int(t[2])], v[int(t[3])])
    if k == "reduce":
        return REDUCE[t[2]](a, axis=tuple(lst(t[3])), keepdims=t[4] == "1")
    if k == "transpose":
        return jnp.transpose(a, lst(t[2]))
    if k == "reshape":
        return jnp.reshape(a, lst(t[2]))
    if k == "broadcast":
        return jnp.broadcast_to(a, lst(t[2]))
    if k == "slice":
        return lax.slice(a, lst(t[2]), lst(t[3]), lst(t[4]))
    if k == "pad":
        w = [tuple(int(x) for x in p.split(":")) for p in ([] if t[2] == "-" else t[2].split(","))]
        if t[3] == "edge":
            return jnp.pad(a, w, mode="edge")
        return jnp.pad(a, w, constant_values=1.5)
    if k == "matmul":
        return jnp.matmul(a, v[int(t[2])])
    if k == "concat":
        return jnp.concatenate([a, v[int(t[2])]], axis=int(t[3]))
    if k == "cumsum":
        return jnp.cumsum(a, axis=int(t[2]))
    if k == "narrow":
        return a.astype(jnp.float16).astype(jnp.float32)
    if k == "scalar":
        c = float(t[3])
        f = BINARY[t[2]]
        return f(c, a) if t[4] == "left" else f(a, c)
    if k == "power":
        return jnp.power(a, float(t[2]))
    if k == "take":
        return jnp.take(a, jnp.array(lst(t[3]), jnp.int32), axis=int(t[2]))
    if k == "flip":
        return jnp.flip(a, axis=int(t[2]))
    if k == "greater":
        return (a > v[int(t[2])]).astype(jnp.float32)
    if k == "sort":
        return jnp.sort(a, axis=int(t[2]))
    if k == "argmax":
        return jnp.argmax(a, axis=int(t[2])).astype(jnp.float32)
    if k == "iota":
        return a + jnp.arange(float(a.shape[-1] if a.ndim else 1))
    if k == "update":
        idx = jnp.array(lst(t[2]), jnp.int32)
        src = v[int(t[4][1:])] if t[4][0] == "v" else jnp.float32(float(t[4]))
        return getattr(a.at[idx], t[3])(src)
    if k == "clip":
        return jnp.clip(a, float(t[2]), float(t[3]))
    if k == "roll":
        return jnp.roll(a, int(t[2]), axis=int(t[3]))
    if k == "diff":
        return jnp.diff(a, axis=int(t[2]))
    if k == "cumprod":
        return jnp.cumprod(a, axis=int(t[2]))
    if k == "quantile":
        return jnp.quantile(a, float(t[2]), axis=int(t[3]))
    if k in ("var", "std"):
        return getattr(jnp, k)(a, axis=int(t[2]), ddof=int(t[3]))
    if k == "logsumexp":
        return jax.scipy.special.logsumexp(a, axis=int(t[2]))
    if k == "sort_by_argsort":
        axis = int(t[2])
        return jnp.take_along_axis(a, jnp.argsort(a, axis=axis), axis=axis)
    if k == "median":
        return jnp.median(a, axis=int(t[2]))
    if k in ("nanmax", "nansum"):
        return getattr(jnp, k)(a, axis=int(t[2]))
    if k == "tril":
        return jnp.tril(a, int(t[2]))
    if k == "einsum":
        return jnp.einsum(t[3], a, v[int(t[2])])
    if k == "repeat":
        return jnp.repeat(a, 2, axis=int(t[2]))
    if k == "trace":
        return jnp.trace(a, offset=int(t[2]))
    raise ValueError(k)


def words(x):
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return " ".join(str(int(b)) for b in x.ravel())
    bits = {2: np.uint16, 4: np.uint32}[x.dtype.itemsize]
    w = 4 if bits is np.uint16 else 8
    return " ".join(f"{int(b):0{w}x}" for b in x.ravel().view(bits))


def run(lines):
    inputs, ops, outputs = [], [], []
    for line in lines:
        kind, _, rest = line.partition(" ")
        if kind == "input":
            head, _, vals = rest.partition(" | ")
            dt, shape = head.split(" ")
            vals = [float(x) for x in vals.split(" ")] if vals else []
            inputs.append(np.array(vals, np.float64).reshape(lst(shape)).astype(dt))
        elif kind == "op":
            ops.append(rest.split(" "))
        elif kind == "outputs":
            outputs = lst(rest)

    def f(*xs):
        v = list(xs)
        for t in ops:
            v.append(apply(t, v))
        return [v[i] for i in outputs]

    xs = [jnp.asarray(x) for x in inputs]
    grads, hvps = None, None
    if all(x.dtype == np.float32 for x in inputs):
        # The gradient of the outputs' weighted sums (`loss` in jit_programs.rs).
        def loss(*xs):
            total = jnp.float32(0)
            for i, o in enumerate(f(*xs)):
                total = total + jnp.sum(o) * (1.0 / (i + 1))
            return total

        g = jax.grad(loss, argnums=tuple(range(len(xs))))
        # Hessian-vector products along fixed directions (`hvp` lines in jit_programs.rs).
        vs = tuple(
            jnp.asarray(np.cos(np.arange(x.size) * 0.7 + k).astype(np.float32).reshape(x.shape))
            for k, x in enumerate(xs)
        )

        def hv(*xs):
            return jax.jvp(g, xs, vs)[1]

        try:
            grads = list(zip(jax.jit(g)(*xs), g(*xs)))
        except NotImplementedError:
            # JAX differentiates a scatter's product with respect to its updates only
            # for unique indices.
            grads = None
        try:
            hvps = list(zip(jax.jit(hv)(*xs), hv(*xs)))
        except NotImplementedError:
            hvps = None

        # Forward mode along the same directions: the floating outputs' tangents.
        def tangents(*xs):
            return jax.jvp(f, xs, vs)[1]

        tans = [(t, e) for t, e in zip(jax.jit(tangents)(*xs), tangents(*xs))
                if jnp.issubdtype(t.dtype, jnp.floating)]
        return jax.jit(f)(*xs), f(*xs), grads, hvps, tans
    return jax.jit(f)(*xs), f(*xs), grads, hvps, None


block = []
for line in sys.stdin.read().splitlines() + ["program end"]:
    if line.startswith("program") and block:
        outs, eagers, grads, hvps, tans = run(block[1:])
        for out, eager in zip(outs, eagers):
            shape = ",".join(map(str, out.shape)) or "-"
            block.append(f"out {out.dtype} {shape} | {words(out)}")
            if words(eager) != words(out):
                block.append(f"alt {eager.dtype} {shape} | {words(eager)}")
        for kind, pairs in (("grad", grads), ("hvp", hvps), ("tangent", tans)):
            for g, eager in pairs or []:
                shape = ",".join(map(str, g.shape)) or "-"
                block.append(f"{kind} {g.dtype} {shape} | {words(g)}")
                if words(eager) != words(g):
                    block.append(f"alt {eager.dtype} {shape} | {words(eager)}")
        print("\n".join(block))
        block = []
    block.append(line)

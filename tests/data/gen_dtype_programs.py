"""Random programs over every dtype evaluated by JAX 0.10.2, for
`dtype_programs::dtype_programs_give_jax_values`. The programs and their inputs come from
Olympus's generator (tests/core/dtype_programs.rs), then JAX adds each output:

    cargo test --test core -- --ignored write_dtype_programs_for_jax
    python3 tests/data/gen_dtype_programs.py < /tmp/dtype_programs_in.txt > tests/data/dtype_programs.txt

Each program: `input dtype shape | values`, one `op` line per value it makes (numbered
after the inputs), `outputs` (value numbers), then one `out dtype shape | values` line per
output of the jitted program (integers and booleans as integers, floats as Python's repr;
the shape `-` is 0-d) and an `alt` line with JAX's eager values where they differ. A
program JAX rejects gets a `skip` line with its error instead (the generator is meant to
draw none)."""
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_platforms", "cpu")


def lst(s, f=int):
    return [] if s == "-" else [f(t) for t in s.split(",")]


def lit(s):
    return int(s[1:]) if s[0] == "i" else float(s[1:])


RED = {
    "sum": jnp.sum,
    "prod": jnp.prod,
    "max": jnp.max,
    "min": jnp.min,
    "any": jnp.any,
    "all": jnp.all,
    "mean": jnp.mean,
}


def apply(t, v):
    a = v[int(t[1])]
    k = t[0]
    if k == "cast":
        return a.astype(t[2])
    if k == "binary":
        return getattr(jnp, t[3])(a, v[int(t[2])])
    if k == "scalar":
        f, c = getattr(jnp, t[2]), lit(t[3])
        return f(c, a) if t[4] == "left" else f(a, c)
    if k == "unary":
        return getattr(jnp, t[2])(a)
    if k == "where":
        return jnp.where(a.astype(bool), v[int(t[2])], v[int(t[3])])
    if k == "reduce":
        return RED[t[2]](a, axis=tuple(lst(t[3])), keepdims=t[4] == "1")
    if k == "arg":
        return (jnp.argmax if t[2] == "max" else jnp.argmin)(a, axis=int(t[3]))
    if k == "cum":
        return (jnp.cumprod if t[2] == "prod" else jnp.cumsum)(a, axis=int(t[3]))
    if k == "transpose":
        return jnp.transpose(a, lst(t[2]))
    if k == "reshape":
        return jnp.reshape(a, lst(t[2]))
    if k == "broadcast":
        return jnp.broadcast_to(a, lst(t[2]))
    if k == "slice":
        return lax.slice(a, lst(t[2]), lst(t[3]), lst(t[4]))
    if k == "flip":
        return jnp.flip(a, axis=int(t[2]))
    if k == "concat":
        return jnp.concatenate([a, v[int(t[2])]], axis=int(t[3]))
    if k == "pad":
        w = [tuple(int(x) for x in p.split(":")) for p in ([] if t[2] == "-" else t[2].split(","))]
        if t[3] == "edge":
            return jnp.pad(a, w, mode="edge")
        # A float constant, as `PadMode::Constant(f64)` is (saturating into integers).
        return jnp.pad(a, w, constant_values=float(t[3]))
    if k == "take":
        idx = jnp.array(lst(t[3]), jnp.int32)
        return jnp.take(a, idx, axis=int(t[2]), mode=t[4])
    if k == "update":
        idx = jnp.array(lst(t[2]), jnp.int32)
        src = v[int(t[4][1:])] if t[4][0] == "v" else lit(t[4])
        return getattr(a.at[idx], t[3])(src)
    if k == "matmul":
        return jnp.matmul(a, v[int(t[2])])
    if k == "sort":
        return jnp.sort(a, axis=int(t[2]), descending=t[3] == "1", stable=True)
    if k == "clip":
        return jnp.clip(a, int(t[2]), int(t[3]))
    if k == "argsort":
        return jnp.argsort(a, axis=int(t[2]), descending=t[3] == "1", stable=True)
    if k == "accumulate":
        f = [jnp.sum, jnp.mean, lambda x, dtype: jnp.cumsum(x, axis=-1, dtype=dtype)][int(t[2])]
        return f(a, dtype=t[3])
    if k == "unique":
        return jnp.unique(a, size=int(t[2]), fill_value=int(t[3]))
    if k == "nonzero":
        return jnp.nonzero(a, size=int(t[2]))[0]
    if k == "bincount":
        return jnp.bincount(a, length=int(t[2]))
    if k == "searchsorted":
        return jnp.searchsorted(jnp.sort(jnp.ravel(a)), v[int(t[2])], side=t[3])
    if k == "roll":
        return jnp.roll(a, int(t[2]), axis=int(t[3]))
    if k == "diff":
        return jnp.diff(a, axis=int(t[2]))
    if k == "count_nonzero":
        return jnp.count_nonzero(a, axis=tuple(lst(t[2])))
    raise ValueError(k)


def text(x):
    x = np.asarray(x)
    if x.dtype == np.bool_ or np.issubdtype(x.dtype, np.integer):
        return " ".join(str(int(e)) for e in x.ravel())
    return " ".join(repr(float(e)) for e in x.ravel())


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
    return jax.jit(f)(*xs), f(*xs)


block = []
for line in sys.stdin.read().splitlines() + ["program end"]:
    if line.startswith("program") and block:
        try:
            outs, eagers = run(block[1:])
        except Exception as e:  # noqa: BLE001 (any rejection is reported, not fatal)
            block.append("skip " + " ".join(str(e).split())[:200])
            print(f"{block[0]}: {block[-1]}", file=sys.stderr)
        else:
            for out, eager in zip(outs, eagers):
                shape = ",".join(map(str, out.shape)) or "-"
                block.append(f"out {out.dtype} {shape} | {text(out)}")
                if text(eager) != text(out):
                    block.append(f"alt {eager.dtype} {shape} | {text(eager)}")
        print("\n".join(block))
        block = []
    block.append(line)

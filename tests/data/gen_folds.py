"""Values a shader compiler could fold but JAX 0.10.2 computes as written, for
`jit_programs::operations_are_computed_as_written`: `python3 tests/data/gen_folds.py >
tests/data/folds.txt`. Each line: case | output words (float32 bits, hex), from the
jitted function (JAX gives the same words eagerly for every case here).

`expr` lines apply an expression to X (special values); `sum`/`cumsum`/`matmul` lines
reduce -0.0 arrays of the shape given (`axis` or `-` for all). Cases whose jitted and
eager values differ in JAX are left out, as comments: XLA folds `square(sqrt(x))` into
`|x|` and divides by a constant as a multiply under `jit` only; Olympus computes them as
written in both modes (the eager bits)."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

X = np.array([-1.5, 2.0, -0.0, 0.0, np.inf, -np.inf, np.nan, 3e38, 1e-30, -7.25], np.float32)

EXPRS = {
    "x-x": lambda x: x - x,
    "x*(x-x)": lambda x: x * (x - x),
    "(x+x)-x": lambda x: (x + x) - x,
    "x*x-x*x": lambda x: x * x - x * x,
    "(x*3)/3": lambda x: (x * 3.0) / 3.0,
    "sqrt(|x|)^2": lambda x: jnp.square(jnp.sqrt(jnp.abs(x))),
    "x/x": lambda x: x / x,
    "x+(-x)": lambda x: x + (-x),
    "min(x,x)-x": lambda x: jnp.minimum(x, x) - x,
    "exp(log(|x|))": lambda x: jnp.exp(jnp.log(jnp.abs(x))),
    "1/(1/x)": lambda x: 1.0 / (1.0 / x),
    "x*0": lambda x: x * 0.0,
    "x+0": lambda x: x + 0.0,
    "(x+1)-1": lambda x: (x + 1.0) - 1.0,
}


def words(a):
    return " ".join(f"{w:08x}" for w in np.asarray(a, np.float32).ravel().view(np.uint32))


for name, f in EXPRS.items():
    jitted = jax.jit(f)(X)
    eager = f(jnp.asarray(X))
    if words(jitted) != words(eager):
        # XLA simplified it under jit (as below for `square(sqrt(x))`).
        print(f"# {name}: jit and eager differ in JAX")
        continue
    print(f"expr {name} | {words(jitted)}")

Z = {
    "sum": lambda z, ax: jnp.sum(z, axis=ax),
    "mean": lambda z, ax: jnp.mean(z, axis=ax),
    "cumsum": lambda z, ax: jnp.cumsum(z, axis=ax),
}
SHAPES = [((1,), None), ((2,), None), ((5000,), None), ((2, 4), 0), ((2, 4), 1),
          ((1, 4), 0), ((4, 1), 1), ((1, 3), None), ((1, 1), None), ((3, 1), 0),
          ((64, 64), 0), ((5000, 4), 0)]
for op, f in Z.items():
    for shape, ax in SHAPES:
        if op == "cumsum" and ax is None and len(shape) > 1:
            continue
        z = -jnp.zeros(shape, jnp.float32)
        r = jax.jit(lambda z: f(z, ax))(z)
        assert words(r) == words(f(z, ax)), (op, shape)
        axis = "-" if ax is None else ax
        print(f"{op} {'x'.join(map(str, shape))} {axis} | {words(r)}")

for m, k, n in [(3, 2, 5), (64, 64, 64), (64, 64, 1), (4, 1, 2), (1, 7, 3)]:
    a = -jnp.zeros((m, k), jnp.float32)
    b = jnp.ones((k, n), jnp.float32)
    r = jax.jit(jnp.matmul)(a, b)
    assert words(r) == words(jnp.matmul(a, b))
    if m == 1 and k > 1:
        # XLA:CPU's vector-matrix product starts from its first product, where its
        # matrix-vector product and reductions add to +0.0; Olympus adds to +0.0 for both.
        print(f"# matmul {m}x{k}x{n} - | {words(r)}")
        continue
    print(f"matmul {m}x{k}x{n} - | {words(r)}")

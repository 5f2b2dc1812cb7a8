"""JAX 0.10.2's quotients by broadcast divisors, for `ufuncs::broadcast_divisors_divide_as_xla`:

    python3 tests/data/gen_divisions.py > tests/data/divisions.txt

XLA computes `x / broadcast(y)` as `x * broadcast(1 / y)` (its algebraic simplifier), so
dividing by a scalar, a row or a column, and `mean` (a sum divided by a count), give a
product by the rounded reciprocal: a last bit away from the quotient for about a third of
values. Lines: `input NAME | words` for the inputs, then `NAME | words`, the jitted result's
float words (float32 as 8 hex digits, float16/bfloat16 as 4). The inputs: `X`, 4096 float32 values
`sin(0.37 i) * 10^(i % 7 - 3)` with ±0, ±inf, NaN, 1e-30 and 3e38 at the front; `M`, `X`'s
first 3072 values as 48 x 64; `R`, 64 values `1 + 0.01 i`; `C`, 48 x 1 values `0.3 + 0.07 i`.
A line `NAME eager | words` follows where JAX's eager result differs (a reduction's order)."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

i = np.arange(4096)
X = (np.sin(0.37 * i) * 10.0 ** (i % 7 - 3)).astype(np.float32)
X[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3e38, -3e38]
M = X[:3072].reshape(48, 64)
R = (1 + 0.01 * np.arange(64)).astype(np.float32)
C = (0.3 + 0.07 * np.arange(48)).astype(np.float32).reshape(48, 1)
X, M, R, C = (jnp.asarray(a) for a in (X, M, R, C))


def words(a):
    a = np.asarray(a)
    if a.dtype == np.float32:
        return " ".join(f"{w:08x}" for w in a.ravel().view(np.uint32))
    return " ".join(f"{w:04x}" for w in a.ravel().view(np.uint16))


CASES = {
    "x/3": lambda X, M, R, C: X / 3.0,
    "x/0.1": lambda X, M, R, C: X / 0.1,
    "x/7": lambda X, M, R, C: X / jnp.float32(7.0),
    "x/-0": lambda X, M, R, C: X / -0.0,
    "x/inf": lambda X, M, R, C: X / jnp.inf,
    "3/x": lambda X, M, R, C: 3.0 / X,
    "x/x[::-1]": lambda X, M, R, C: X / X[::-1],
    "m/row": lambda X, M, R, C: M / R,
    "m/col": lambda X, M, R, C: M / C,
    "f16/3": lambda X, M, R, C: X.astype(jnp.float16) / 3.0,
    "bf16/3": lambda X, M, R, C: X.astype(jnp.bfloat16) / 3.0,
    "f16/row": lambda X, M, R, C: M.astype(jnp.float16) / R.astype(jnp.float16),
    "int/3": lambda X, M, R, C: jnp.arange(-50, 50) / 3,
}
# `mean` is its sum times the rounded reciprocal of the count (the Rust test checks the same
# of Olympus's mean and sum: their sums' orders differ from XLA's, by an ulp or two).
for axis, n in ((0, 48), (1, 56)):
    s, m = jax.jit(lambda a: (jnp.sum(a, axis=axis), jnp.mean(a, axis=axis)))(M[:, 8:])
    assert words(m) == words(s * (np.float32(1) / np.float32(n))), axis
for name, a in (("X", X), ("R", R), ("C", C)):
    print(f"input {name} | {words(a)}")
for name, f in CASES.items():
    # (Arguments, not closed-over constants, which XLA would fold with true divisions.)
    jitted, eager = jax.jit(f)(X, M, R, C), f(X, M, R, C)
    print(f"{name} | {words(jitted)}")
    if words(jitted) != words(eager):
        print(f"{name} eager | {words(eager)}")

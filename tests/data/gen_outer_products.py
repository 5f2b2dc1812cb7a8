"""Products over k = 1 (outer products) in JAX 0.10.2, eager and jitted, for
`linalg::products_over_one_keep_each_product_as_jax`: `python3 tests/data/gen_outer_products.py
> tests/data/outer_products.txt`. Each line: dtype | a [2, 3, 1] | b [2, 1, 4] | a @ b."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

FLOATS = [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3e38, -2.5, 1e-30, 1e-20, 7.0]
CASES = {
    "float32": FLOATS,
    "float16": [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 60000.0, -2.5, 1e-4, 6e-8, 7.0],
    "bfloat16": FLOATS,
    "int8": [0, -1, 127, -128, 3, -2, 100, 2, 11, -7, 5, 64],
    "uint8": [0, 1, 255, 128, 3, 2, 100, 7, 11, 200, 5, 64],
    "int32": [0, -1, 2**31 - 1, -(2**31), 3, -2, 65537, 65535, 11, -7, 5, 64],
    "bool": [True, False, True, True, False, True, False, False, True, True, True, False],
}


def fmt(x):
    return " ".join(repr(float(v)) for v in np.asarray(x, dtype=np.float64).ravel())


for name, vals in CASES.items():
    dt = jnp.dtype(name)
    a = jnp.array(vals[:6], dt).reshape(2, 3, 1)
    b = jnp.array((vals[6:] + vals[:2])[:8], dt).reshape(2, 1, 4)
    eager = jnp.matmul(a, b)
    jitted = jax.jit(jnp.matmul)(a, b)
    assert np.array_equal(np.asarray(eager, np.float64).view(np.int64), np.asarray(jitted, np.float64).view(np.int64)) or name == "bool" or np.isnan(np.asarray(eager, np.float64)).any()
    print(f"{name} | {fmt(a)} | {fmt(b)} | {fmt(jitted)}")

# Generates tests/data/int_edges.txt: JAX's results for integer edge cases of the binary
# ufuncs (division by zero, INT_MIN // -1, shifts past the width, mixed signs).
# Run: pip install jax && python3 tests/data/gen_int_edges.py > tests/data/int_edges.txt
import itertools
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", False)
ops = ["floor_divide", "remainder", "fmod", "left_shift", "right_shift", "power", "gcd", "lcm",
       "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor", "add", "subtract", "multiply",
       "true_divide", "arctan2", "hypot", "copysign"]
vals = {
    "int32": [0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 33, 2**31 - 1, -2**31],
    "uint32": [0, 1, 2, 3, 7, 31, 32, 33, 2**31, 2**32 - 1],
}
print(f"# jax {jax.__version__}: op dtype a b -> result (result dtype in the last column)")
for op in ops:
    f = getattr(jnp, op)
    for dt, vs in vals.items():
        for a, b in itertools.product(vs, vs):
            if op == "power" and dt == "int32" and b < 0:
                continue  # JAX raises for negative integer exponents
            x = jnp.array([a], dtype=dt)
            y = jnp.array([b], dtype=dt)
            r = f(x, y)
            v = r[0].item()
            print(op, dt, a, b, repr(v) if isinstance(v, float) else v, r.dtype.name)
# Unary integer edges.
for op in ["negative", "abs", "sign", "square", "invert"]:
    f = getattr(jnp, op)
    for dt, vs in vals.items():
        for a in vs:
            r = f(jnp.array([a], dtype=dt))
            print(op, dt, a, "-", r[0].item(), r.dtype.name)

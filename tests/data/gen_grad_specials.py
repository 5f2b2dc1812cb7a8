"""JAX 0.10.2's derivatives at special points, for
`autodiff::derivatives_at_special_points_are_jaxs` and
`autodiff::second_derivatives_at_special_points_are_jaxs`: `python3
tests/data/gen_grad_specials.py` writes tests/data/grad_specials.txt and
tests/data/grad_specials_2.txt. Each line of the first: `unary name | d/dx at each of X`
or `binary name | d/dx at each (x, y) of X x X, then d/dy`, as float32 words (hex), from
`jax.jit(jax.vmap(jax.grad(f)))`; of the second, `grad` of `grad`: `unary name | d2/dx2`
or `binary name | d2/dx2, then d2/dxdy, then d2/dy2`."""
import os

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

X = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-30, 3e38],
             np.float32)
UNARY = ["abs", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
         "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "arccosh", "arctanh", "square", "reciprocal", "sign", "floor", "ceil", "negative"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
          "power", "arctan2", "hypot", "copysign", "fmod", "remainder", "logaddexp",
          "logaddexp2", "float_power"]


def words(a):
    return " ".join(f"{w:08x}" for w in np.asarray(a, np.float32).ravel().view(np.uint32))


data = os.path.join(os.path.dirname(os.path.abspath(__file__)))
xs = np.repeat(X, len(X))
ys = np.tile(X, len(X))
with open(os.path.join(data, "grad_specials.txt"), "w") as out:
    for name in UNARY:
        f = getattr(jnp, name)
        g = jax.jit(jax.vmap(jax.grad(f)))(X)
        print(f"unary {name} | {words(g)}", file=out)
    for name in BINARY:
        f = getattr(jnp, name)
        gx, gy = jax.jit(jax.vmap(jax.grad(f, argnums=(0, 1))))(xs, ys)
        print(f"binary {name} | {words(gx)} {words(gy)}", file=out)
with open(os.path.join(data, "grad_specials_2.txt"), "w") as out:
    for name in UNARY:
        f = getattr(jnp, name)
        g = jax.jit(jax.vmap(jax.grad(jax.grad(f))))(X)
        print(f"unary {name} | {words(g)}", file=out)
    for name in BINARY:
        f = getattr(jnp, name)
        fx, fy = jax.grad(f, 0), jax.grad(f, 1)
        fxx, fxy = jax.jit(jax.vmap(jax.grad(fx, argnums=(0, 1))))(xs, ys)
        fyy = jax.jit(jax.vmap(jax.grad(fy, 1)))(xs, ys)
        print(f"binary {name} | {words(fxx)} {words(fxy)} {words(fyy)}", file=out)

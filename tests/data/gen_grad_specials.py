"""JAX 0.10.2's derivatives at special points, for
`autodiff::derivatives_at_special_points_are_jaxs`,
`autodiff::second_derivatives_at_special_points_are_jaxs` and
`autodiff::forward_derivatives_at_special_points_are_jaxs`: `python3
tests/data/gen_grad_specials.py` writes tests/data/grad_specials.txt,
tests/data/grad_specials_2.txt and tests/data/jvp_specials.txt. Each line of the first: `unary name | d/dx at each of X`
or `binary name | d/dx at each (x, y) of X x X, then d/dy`, as float32 words (hex), from
`jax.jit(jax.vmap(jax.grad(f)))`; of the second, `grad` of `grad`: `unary name | d2/dx2`
or `binary name | d2/dx2, then d2/dxdy, then d2/dy2`. The third holds forward mode's
(`jax.jvp` with unit tangents, jitted), where JAX's composites give other values than their
`grad` at some points: `unary name | d/dx, then d2/dx2 (jvp of jvp)` or `binary name |
d/dx (y held), d/dy (x held), the tangent with both (1, 1), then d2/dx2, d2/dxdy, d2/dy2`.
"""
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


def jvp_of(f, argnum):
    """`x, y -> d f / d argnum` by forward mode, the other operand held constant."""
    def d(*args):
        def g(a):
            return f(*[a if k == argnum else v for k, v in enumerate(args)])
        return jax.jvp(g, (args[argnum],), (jnp.ones_like(args[argnum]),))[1]
    return d


with open(os.path.join(data, "jvp_specials.txt"), "w") as out:
    for name in UNARY:
        f = getattr(jnp, name)
        d = jvp_of(f, 0)
        print(f"unary {name} | {words(jax.jit(d)(X))} {words(jax.jit(jvp_of(d, 0))(X))}",
              file=out)
    for name in BINARY:
        f = getattr(jnp, name)
        dx, dy = jvp_of(f, 0), jvp_of(f, 1)
        both = jax.jit(lambda x, y: jax.jvp(f, (x, y), (jnp.ones_like(x), jnp.ones_like(y)))[1])
        parts = [jax.jit(dx)(xs, ys), jax.jit(dy)(xs, ys), both(xs, ys),
                 jax.jit(jvp_of(dx, 0))(xs, ys), jax.jit(jvp_of(dx, 1))(xs, ys),
                 jax.jit(jvp_of(dy, 1))(xs, ys)]
        print(f"binary {name} | {' '.join(words(p) for p in parts)}", file=out)

"""JAX 0.10.2's gradients and Hessian-vector products of reductions, scans, sorts and
order statistics along the rows of a matrix of special cases, for
`autodiff::reduction_derivatives_at_special_rows_are_jaxs`:

    python3 tests/data/gen_reduction_specials.py > tests/data/reduction_specials.txt

Each function `f` is differentiated through `sum(f(X) * W)` (`W`: the first weights of
`cos(1.3 i)` in `f(X)`'s shape); the Hessian-vector product is the JVP of the gradient
along `sin(0.7 i + 0.3)`, and `jvp` is `f`'s own JVP along it, its outputs then their
tangents (JAX's rules for `prod` and `cumprod` compute the outputs themselves, by trees of
products). Lines: `NAME grad | words`, `NAME hvp | words` and `NAME jvp | words` (jitted,
float32 words in hex), each followed by `NAME KIND eager | words` where JAX's eager
values differ."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")
inf, nan = np.inf, np.nan
ROWS = np.array([
    [0, 0, 0, 0, 0, 0],
    [-0.0, 0, -0.0, 0, 1, -1],
    [1, 3, 3, -2, 3, 0.5],
    [1, nan, 2, -1, 0.5, 2],
    [1, inf, 2, -1, 0.5, 2],
    [1, -inf, 2, -1, 0.5, 2],
    [inf, inf, 1, 2, 0, -1],
    [-inf, -inf, -inf, -inf, -inf, -inf],
    [0, inf, 1, 2, 3, 4],
    [1e-30, -1e-30, 2e-30, 1e-30, 0, 0],
    [3e38, 3e38, -3e38, 1, 2, 3],
    [0.5, -1.5, 2.25, 3.0, -0.75, 1.0],
    [2, 2, 2, 2, 2, 2],
    [nan, nan, nan, nan, nan, nan],
], np.float32)
W = np.cos(np.arange(256) * 1.3).astype(np.float32)
FUNCS = {
 "sum": lambda x: jnp.sum(x, axis=1),
 "mean": lambda x: jnp.mean(x, axis=1),
 "prod": lambda x: jnp.prod(x, axis=1),
 "max": lambda x: jnp.max(x, axis=1),
 "min": lambda x: jnp.min(x, axis=1),
 "var": lambda x: jnp.var(x, axis=1),
 "std": lambda x: jnp.std(x, axis=1),
 "logsumexp": lambda x: jax.scipy.special.logsumexp(x, axis=1),
 "cumsum": lambda x: jnp.cumsum(x, axis=1),
 "cumprod": lambda x: jnp.cumprod(x, axis=1),
 "sort": lambda x: jnp.sort(x, axis=1),
 "median": lambda x: jnp.median(x, axis=1),
 "quantile": lambda x: jnp.quantile(x, 0.3, axis=1),
 "nanmax": lambda x: jnp.nanmax(x, axis=1),
 "nansum": lambda x: jnp.nansum(x, axis=1),
 "nanmean": lambda x: jnp.nanmean(x, axis=1),
 "norm": lambda x: jnp.sqrt(jnp.sum(x * x, axis=1)),
 "softmax": lambda x: jnp.exp(x - jax.scipy.special.logsumexp(x, axis=1, keepdims=True)),
 "ptp": lambda x: jnp.ptp(x, axis=1),
 "cumprod_reverse": lambda x: jax.lax.cumprod(x, axis=1, reverse=True),
 "prod_columns": lambda x: jnp.prod(x[8:12], axis=0),
 "prod_all": lambda x: jnp.prod(x[9:12], axis=(0, 1)),
 "cumprod_columns": lambda x: jnp.cumprod(x[8:12], axis=0),

}
def words(a):
    return " ".join(f"{w:08x}" for w in np.asarray(a, np.float32).ravel().view(np.uint32))
V = np.sin(np.arange(ROWS.size) * 0.7 + 0.3).astype(np.float32).reshape(ROWS.shape)
for name, f in FUNCS.items():
    def loss(x):
        y = f(x)
        w = jnp.asarray(W[: y.size].reshape(y.shape))
        return jnp.sum(y * w)
    hv = lambda x: jax.jvp(jax.grad(loss), (x,), (jnp.asarray(V),))[1]
    def jv(x):
        out, tangent = jax.jvp(f, (x,), (jnp.asarray(V),))
        return jnp.concatenate([out.ravel(), tangent.ravel()])
    for kind, fn in (("grad", jax.grad(loss)), ("hvp", hv), ("jvp", jv)):
        jitted, eager = jax.jit(fn)(ROWS), fn(ROWS)
        print(f"{name} {kind} | {words(jitted)}")
        if words(eager) != words(jitted):
            print(f"{name} {kind} eager | {words(eager)}")

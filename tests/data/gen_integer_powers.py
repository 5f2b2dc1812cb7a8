"""JAX 0.10.2's `x ** n` for literal integers `n` (`lax.integer_pow`: repeated squaring,
then a reciprocal for negative `n`) and its gradient, for
`ufuncs::literal_integer_powers_are_jaxs_integer_pow`:

    python3 tests/data/gen_integer_powers.py > tests/data/integer_powers.txt

Line `x | words` gives the inputs; then `N value | words` and `N grad | words` per power,
float32 words in hex, jitted."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

rng = np.random.default_rng(7)
special = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, np.nan, 1e-30, 3e38, 1e20,
           -1e-20, 7.0, 1.5]
x = np.concatenate([special, rng.uniform(-50, 50, 112), rng.uniform(0.1, 3, 128)]).astype(np.float32)


def words(a):
    return " ".join(f"{w:08x}" for w in np.asarray(a, np.float32).ravel().view(np.uint32))


print(f"x | {words(x)}")
for n in [-3, -2, -1, 0, 1, 2, 3, 4, 5, 7, 8, 13]:
    f = lambda v, n=n: v ** n
    print(f"{n} value | {words(jax.jit(f)(x))}")
    print(f"{n} grad | {words(jax.jit(jax.vmap(jax.grad(f)))(x))}")

"""The public functions of jax.numpy (callables that are not classes: dtypes, `ndarray`
and warnings are left out), one per line (tests/data/jnp_names.txt).

    pip install "jax[cpu]==0.10.2"
    python3 tests/data/gen_jnp_names.py > tests/data/jnp_names.txt
"""
import inspect

import jax
import jax.numpy as jnp

assert jax.__version__ == "0.10.2", jax.__version__
names = sorted(
    n
    for n in dir(jnp)
    if not n.startswith("_")
    and callable(getattr(jnp, n))
    and not inspect.ismodule(getattr(jnp, n))
    and not inspect.isclass(getattr(jnp, n))  # dtypes, ndarray, warnings
)
print(f"# jax.numpy {jax.__version__}: {len(names)} public functions")
for n in names:
    print(n)

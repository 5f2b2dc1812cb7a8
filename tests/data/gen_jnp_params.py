"""The parameters of each public function of jax.numpy (tests/data/jnp_params.txt): one
line per function, `name: required | optional`, where required parameters have no default
(and `*args` stands for a variadic one) and optional ones have a default.

    pip install "jax[cpu]==0.10.2"
    python3 tests/data/gen_jnp_params.py > tests/data/jnp_params.txt
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
    and not inspect.isclass(getattr(jnp, n))
)
print(f"# jax.numpy {jax.__version__}: name: required parameters | optional parameters")
for n in names:
    try:
        sig = inspect.signature(getattr(jnp, n))
    except (TypeError, ValueError):
        print(f"{n}: ? | ?")
        continue
    required, optional = [], []
    for p in sig.parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            required.append("*" + p.name)
        elif p.kind == p.VAR_KEYWORD:
            optional.append("**" + p.name)
        elif p.default is p.empty:
            required.append(p.name)
        else:
            optional.append(p.name)
    print(f"{n}: {' '.join(required)} | {' '.join(optional)}")

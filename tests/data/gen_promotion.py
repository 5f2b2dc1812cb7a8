# Generates tests/data/promotion.txt: JAX's result dtype and weak flag for every pair of
# Olympus types (strong dtypes and the two weak scalar kinds), in both orders.
# Run: pip install jax && python3 tests/data/gen_promotion.py > tests/data/promotion.txt
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", False)
strong = {"bool": jnp.bool_, "int8": jnp.int8, "uint8": jnp.uint8, "int16": jnp.int16, "uint16": jnp.uint16,
          "int32": jnp.int32, "uint32": jnp.uint32, "bfloat16": jnp.bfloat16, "float16": jnp.float16, "float32": jnp.float32}
def val(name):
    if name == "weak_int": return 1
    if name == "weak_float": return 1.0
    return jnp.zeros((), strong[name])
names = list(strong) + ["weak_int", "weak_float"]
print(f"# jax {jax.__version__}: lhs rhs -> dtype weak")
for a in names:
    for b in names:
        r = jnp.add(val(a), val(b)) if not (a == b == "bool") else jnp.logical_or(val(a), val(b))
        print(a, b, r.dtype.name, int(r.weak_type))
# Conversions (astype) of edge values, checked against our rules.
print("# astype: value dtype -> result")
vals = [float("nan"), float("inf"), float("-inf"), -1.5, -0.5, 0.5, 2.5, 3e9, -3e9, 65519.0, 65520.0, 1e-8,
        127.5, -128.5, 255.9, 300.0, -300.0, 32767.5, -32769.0, 65535.5, 70000.0, 3.4e38, 1.0 / 3.0,
        1.00390625, 1.01171875]
targets = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "bool", "bfloat16", "float16"]
for v in vals:
    for d in targets:
        r = jnp.asarray(np.float32(v)).astype(strong[d])
        print("astype", repr(float(np.float32(v))), d, float(r.astype(jnp.float32).item()) if d in ("bfloat16", "float16") else float(r.item()))
# Integer sources (int32 values) into every dtype: narrow integers wrap.
print("# astype_int: int32 value dtype -> result")
for v in [300, -300, -1, 128, -129, 65536 + 5, 2**31 - 1, -2**31, 16777217, 2**24 + 65537]:
    for d in targets:
        r = jnp.asarray(np.int32(v)).astype(strong[d])
        print("astype_int", v, d, float(r.astype(jnp.float32).item()) if d in ("bfloat16", "float16") else int(r.item()))

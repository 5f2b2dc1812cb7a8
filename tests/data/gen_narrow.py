# Generates tests/data/narrow.txt: JAX's results for operations on the 8- and 16-bit dtypes
# (int8, uint8, int16, uint16, bfloat16): elementwise arithmetic that wraps or rounds,
# conversions, reductions (with JAX's result dtypes), scans, sorts, matmul and scatter.
# Run: pip install "jax[cpu]==0.10.2" && python3 tests/data/gen_narrow.py > tests/data/narrow.txt
# Each line: name, dtype of the result, then its values (float32 text for floats).
import math, warnings
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", False)
warnings.simplefilter("ignore")

ints = {
    "int8": [-128, -127, -100, -7, -1, 0, 1, 2, 3, 7, 64, 100, 126, 127],
    "uint8": [0, 1, 2, 3, 7, 64, 100, 127, 128, 129, 200, 250, 254, 255],
    "int16": [-32768, -32767, -1000, -7, -1, 0, 1, 2, 3, 7, 300, 1000, 32766, 32767],
    "uint16": [0, 1, 2, 3, 7, 300, 1000, 32767, 32768, 40000, 60000, 65000, 65534, 65535],
}
other = {k: list(reversed(v)) for k, v in ints.items()}
shifts = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 1, 5, 6]
bf = [0.0, -0.0, 1.0, -1.5, 3.140625, 1e-3, 255.0, 65504.0, 3.0e38, -3.0e38, float("inf"), float("-inf"), float("nan"), 1e-30]
bf2 = [1.0, 3.0, 0.1, 7.0, -2.5, 1e-3, 256.0, 2.0, 2.0, 0.5, 1.0, 2.0, 1.0, 3.0]

def show(name, r):
    r = jnp.asarray(r)
    if r.dtype in (jnp.bfloat16, jnp.float16, jnp.float32):
        vals = " ".join(repr(float(v)) for v in np.asarray(r.astype(jnp.float32)).ravel())
    else:
        vals = " ".join(str(int(v)) for v in np.asarray(r).ravel())
    print(name, r.dtype.name, vals)

for d, v in ints.items():
    a = jnp.array(v, dtype=d)
    b = jnp.array(other[d], dtype=d)
    nz = jnp.where(b == 0, jnp.array(3, d), b)
    s = jnp.array(shifts, dtype=d)
    show(f"add_{d}", a + b)
    show(f"subtract_{d}", a - b)
    show(f"multiply_{d}", a * b)
    show(f"floor_divide_{d}", a // nz)
    show(f"remainder_{d}", a % nz)
    show(f"negative_{d}", -a)
    show(f"abs_{d}", jnp.abs(a))
    show(f"invert_{d}", ~a)
    show(f"left_shift_{d}", jnp.left_shift(a, s))
    show(f"right_shift_{d}", jnp.right_shift(a, s))
    show(f"maximum_{d}", jnp.maximum(a, b))
    show(f"power_{d}", jnp.power(a, jnp.array([2] * len(v), d)))
    show(f"add_weak_{d}", a + 1000)
    show(f"mul_weak_{d}", a * 3)
    show(f"true_divide_{d}", a / nz)
    show(f"sqrt_{d}", jnp.sqrt(jnp.abs(a)))
    show(f"sum_{d}", jnp.sum(a))
    show(f"prod_{d}", jnp.prod(a[1:6]))
    show(f"max_{d}", jnp.max(a))
    show(f"mean_{d}", jnp.mean(a))
    show(f"cumsum_{d}", jnp.cumsum(a))
    show(f"sort_{d}", jnp.sort(b * a))
    show(f"argsort_{d}", jnp.argsort(b * a, stable=True))
    m = a[:12].reshape(3, 4)
    n = b[:12].reshape(4, 3)
    show(f"matmul_{d}", m @ n)
    show(f"scatter_add_{d}", a.at[jnp.array([0, 1, 1, 13, 13, 13])].add(jnp.array([100, 100, 100, 50, 50, 50], d)))
    show(f"astype_float32_{d}", a.astype(jnp.float32))
    show(f"astype_bfloat16_{d}", a.astype(jnp.bfloat16))
    show(f"astype_int8_{d}", a.astype(jnp.int8))
    show(f"astype_uint8_{d}", a.astype(jnp.uint8))

a = jnp.array(bf, dtype=jnp.bfloat16)
b = jnp.array(bf2, dtype=jnp.bfloat16)
d = "bfloat16"
show(f"add_{d}", a + b)
show(f"subtract_{d}", a - b)
show(f"multiply_{d}", a * b)
show(f"true_divide_{d}", a / b)
show(f"sqrt_{d}", jnp.sqrt(jnp.abs(a)))
show(f"exp_{d}", jnp.exp(b))
show(f"sin_{d}", jnp.sin(b))
show(f"log_{d}", jnp.log(jnp.abs(b)))
show(f"tanh_{d}", jnp.tanh(b))
show(f"maximum_{d}", jnp.maximum(a, b))
show(f"add_weak_{d}", a + 0.1)
show(f"sum_{d}", jnp.sum(b))
show(f"mean_{d}", jnp.mean(b))
show(f"max_{d}", jnp.max(b))
show(f"cumsum_{d}", jnp.cumsum(b))
show(f"sort_{d}", jnp.sort(a))
show(f"matmul_{d}", b[:12].reshape(3, 4) @ b[:12].reshape(4, 3))
show(f"astype_float16_{d}", a.astype(jnp.float16))
show(f"astype_int8_{d}", a.astype(jnp.int8))
show(f"astype_uint16_{d}", a.astype(jnp.uint16))
show(f"scatter_add_{d}", b.at[jnp.array([0, 0, 0, 0])].add(jnp.array([0.1, 0.1, 0.1, 0.1], jnp.bfloat16)))
x = jnp.array([1.0, 3.0, 1/3, 1.00390625, 1.01171875, 3.0e38, 3.3961e38, -1e-39], jnp.float32)
show("round_float32_bfloat16", x.astype(jnp.bfloat16))
show("random_uniform_bfloat16", jax.random.uniform(jax.random.key(0), (8,), jnp.bfloat16))
show("random_normal_bfloat16", jax.random.normal(jax.random.key(1), (8,), jnp.bfloat16))
show("random_bounded_bfloat16", jax.random.uniform(jax.random.key(2), (8,), jnp.bfloat16, 2.0, 5.0))

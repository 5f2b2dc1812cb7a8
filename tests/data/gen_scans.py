"""JAX's float cumsum and cumprod bit for bit, forward and reversed (`jax.lax.cumsum` and
`jax.lax.cumprod` with `reverse=True`), for tests/core/scans.rs.

    pip install "jax[cpu]==0.10.2" numpy
    python3 tests/data/gen_scans.py > tests/data/scans.txt

Inputs are a formula both sides compute (rounded to the dtype to nearest even):
cumsum of ((i * 7919) % 1999 - 999) / 256, cumprod of 1 + ((i * 7919) % 129 - 64) / 2**14.
Each line: dtype op n fnv1a-64 of the outputs' float64 bits (little-endian) | the first
and last outputs.
"""

import struct

import jax
import jax.numpy as jnp
import ml_dtypes  # noqa: F401  (bfloat16)
import numpy as np

LENGTHS = [1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1000, 4095, 4096, 4097, 20000, 70001]


def fnv(values):
    h = 0xCBF29CE484222325
    for v in values:
        for b in struct.pack("<d", float(v)):
            h ^= b
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


for name in ["float32", "float16", "bfloat16"]:
    dt = jnp.dtype(name)
    for op in ["cumsum", "cumprod", "cumsum_reverse", "cumprod_reverse"]:
        for n in LENGTHS:
            i = np.arange(n, dtype=np.int64)
            reverse = op.endswith("_reverse")
            if op.startswith("cumsum"):
                x = ((i * 7919) % 1999 - 999) / 256.0
                y = jax.lax.cumsum(jnp.asarray(x.astype(dt)), reverse=reverse)
            else:
                if n > 4097:
                    continue
                x = 1.0 + ((i * 7919) % 129 - 64) / 2.0**14
                y = jax.lax.cumprod(jnp.asarray(x.astype(dt)), reverse=reverse)
            out = np.asarray(y).astype(np.float64)
            print(f"{name} {op} {n} {fnv(out):016x} | {float(out[0])!r} {float(out[-1])!r}")

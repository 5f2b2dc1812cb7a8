# XLA:CPU's float32 log, log1p and erf_inv on chosen inputs, for the bit-identity tests of
# olympus' log/log1p/erf_inv kernels (tests/core/random.rs; the operation sequences are in
# docs/xla-cpu-log-erfinv.md). Generated with:
#   JAX_PLATFORMS=cpu python3 tests/data/gen_xla_math_vectors.py > tests/data/xla_math_vectors.txt
# (JAX 0.10.2 on an x86-64 host with FMA; a host without FMA gives other bits.)
# Format as random_vectors.txt: name dtype shape values (f32 as raw bits in hex).
import numpy as np
import jax
import jax.numpy as jnp

rng = np.random.default_rng(20261123)
f32 = np.float32


def emit(name, x):
    x = np.asarray(x, dtype=np.float32).ravel()
    print(name, "f32", len(x), " ".join("%08x" % v for v in x.view(np.uint32)))


def from_bits(b):
    return np.asarray(b, dtype=np.uint32).view(np.float32)


def around(v, k):
    """The 2k floats nearest v (k below, k above)."""
    b = np.asarray([v], dtype=np.float32).view(np.uint32)[0].astype(np.int64)
    return from_bits(np.arange(b - k, b + k).astype(np.uint32))


def random_bits(lo, hi, n):
    return from_bits(rng.integers(lo, hi, n, dtype=np.uint64))


specials = f32([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1.1754944e-38, 1e-40, -1e-40])
thr = from_bits([0x3ED413CD])[0]

log_in = np.concatenate([
    random_bits(0x00800000, 0x7F800000, 1500),   # positive normals
    random_bits(1, 0x00800000, 8),               # subnormals: -inf (DAZ)
    around(1.0, 200), around(0.70710677, 50), around(2.0, 20), specials,
])
lp_in = np.concatenate([
    random_bits(0, 0x3F800000, 800),            # (0, 1)
    -random_bits(0, 0x3F800000, 800),           # (-1, 0)
    around(thr, 60), around(-thr, 60), around(-1.0, 30)[:30], around(0.0, 10),
    f32(rng.uniform(1, 1e6, 50)), specials,
])
lo = np.nextafter(f32(-1), f32(1))
grid = (rng.integers(0, 1 << 23, 600).astype(f32) / f32(1 << 23))
grid = np.maximum(lo, grid * (f32(1) - lo) + lo).astype(f32)
ei_in = np.concatenate([
    random_bits(0, 0x3F800000, 600), -random_bits(0, 0x3F800000, 600), grid,
    around(1.0, 40)[:40], around(-1.0, 40)[:40],          # next to +-1
    around(0.99662, 40), around(-0.99662, 40),             # w = -log1p(-x^2) near 5
    around(0.6436, 40),                                    # x^2 near log1p's threshold
    specials,
])

print("# JAX_PLATFORMS=cpu python3 tests/data/gen_xla_math_vectors.py > tests/data/xla_math_vectors.txt"
      f"  (jax {jax.__version__})")
for name, x, f in [("log", log_in, jnp.log), ("log1p", lp_in, jnp.log1p),
                   ("erf_inv", ei_in, jax.lax.erf_inv)]:
    x = f32(x)
    emit(name + "_in", x)
    emit(name + "_out", np.asarray(jax.jit(f)(x)))

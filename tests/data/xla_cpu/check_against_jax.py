# Checks tests/data/xla_cpu/emul.py against JAX on this host (not run by CI):
#   pip install jax numpy && cd tests/data/xla_cpu && python3 check_against_jax.py
import numpy as np, jax, jax.numpy as jnp
import emul
rng = np.random.default_rng(1); f32 = np.float32
def same(a, b): return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
def rb(lo, hi, n): return rng.integers(lo, hi, n, dtype=np.uint32).view(f32)
ONE = 0x3F800000
tests = [
 ('log1p', jnp.log1p, emul.jax_log1p, np.concatenate([rb(1, ONE, 3_000_000), -rb(1, ONE, 3_000_000), rb(0, 0x00800000, 100000), -rb(0,0x00800000,100000)])),
 ('log', jnp.log, emul.jax_log, np.concatenate([rb(0, 0x7F800000, 4_000_000), rb(0, 0x00800000, 200000)])),
 ('erf_inv', jax.lax.erf_inv, emul.jax_erf_inv, np.concatenate([rb(1, ONE, 3_000_000), -rb(1, ONE, 3_000_000), rb(0, 0x01000000, 200000), -rb(0,0x20000000,200000)])),
]
for n, jf, ef, x in tests:
    for L in (len(x), 1000003 + 5):      # also odd length (scalar tail loop)
        xx = x[:L]
        r = np.asarray(jax.jit(jf)(xx)); g = ef(xx); bad = ~same(r, g)
        print(n, 'n=', L, 'mismatches(all-FMA + FTZ/DAZ)=', int(bad.sum()), [(xx[i], r[i], g[i]) for i in np.flatnonzero(bad)[:3]])
# end-to-end random
key = jax.random.key(42)
N = 2_000_003
bits = np.asarray(jax.random.bits(key, (N,), jnp.uint32))
fl = ((bits >> 9) | np.uint32(0x3F800000)).view(f32) - f32(1)
lo = np.nextafter(f32(-1), f32(1))
nrm = np.asarray(jax.random.normal(key, (N,), jnp.float32))
for name, u in [('fma', emul.fma(fl, f32(1) - lo, lo)), ('mul+add', (fl * (f32(1) - lo) + lo).astype(f32))]:
    u = np.maximum(lo, u)
    e = (f32(np.sqrt(2)) * emul.jax_erf_inv(u)).astype(f32)
    print('normal end-to-end, uniform via', name, 'mismatches=', int((~same(nrm, e)).sum()))
ex = np.asarray(jax.random.exponential(key, (N,), jnp.float32))
e2 = -emul.jax_log1p(-fl)
print('exponential end-to-end mismatches=', int((~same(ex, e2)).sum()))

# JAX outputs for olympus::random's bit-identity tests (tests/core/random.rs).
# Generated with:
#   JAX_PLATFORMS=cpu python3 tests/data/gen_random_vectors.py > tests/data/random_vectors.txt
# (JAX 0.10.2 on CPU, default config: x64 off, threefry2x32, jax_threefry_partitionable=True.)
# Format: name dtype shape values... ; u32/i32 decimal, f32/f16 raw bits in hex, bool 0/1;
# shape "-" is 0-d. Text after '#' is a note.
import numpy as np
import jax
import jax.numpy as jnp
from jax._src.random import threefry2x32 as prng

R = jax.random


def emit(name, x, note=""):
    x = np.asarray(x)
    shape = ",".join(str(d) for d in x.shape) if x.shape else "-"
    flat = x.ravel()
    if x.dtype == np.float32:
        dt, vals = "f32", ["%08x" % v for v in flat.view(np.uint32)]
    elif x.dtype == np.float16:
        dt, vals = "f16", ["%04x" % v for v in flat.view(np.uint16)]
    elif x.dtype == np.bool_:
        dt, vals = "bool", [str(int(v)) for v in flat]
    elif x.dtype == np.int32:
        dt, vals = "i32", [str(int(v)) for v in flat]
    else:
        dt, vals = "u32", [str(int(v)) for v in flat]
    print(name, dt, shape, " ".join(vals) + ((" # " + note) if note else ""))


print("# JAX_PLATFORMS=cpu python3 tests/data/gen_random_vectors.py > tests/data/random_vectors.txt"
      f"  (jax {jax.__version__}, threefry_partitionable={jax.config.jax_threefry_partitionable})")
for name, key, ctr in [
    ("kat0", (0, 0), (0, 0)),
    ("kat1", (0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF)),
    ("kat2", (0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3)),
]:
    out = prng.threefry_2x32(np.uint32(key), np.uint32(ctr))
    emit(name, out, "key %08x %08x ctr %08x %08x" % (key + ctr))
kd = R.key_data
k0, k42 = R.key(0), R.key(42)
emit("key0", kd(k0))
emit("key42", kd(k42))
emit("key_big", kd(R.key(123456789)))
emit("split0_3", kd(R.split(k0, 3)))
emit("split42_2", kd(R.split(k42, 2)))
emit("fold0_7", kd(R.fold_in(k0, 7)))
emit("fold42_big", kd(R.fold_in(k42, np.uint32(0xDEADBEEF))), "data passed as np.uint32(0xdeadbeef)")
emit("bits0_8", R.bits(k0, (8,), jnp.uint32))
emit("bits42_2x3", R.bits(k42, (2, 3), jnp.uint32))
emit("bits0_u16_8", np.asarray(R.bits(k0, (8,), jnp.uint16)).astype(np.uint32), "uint16 bits as decimals")
emit("uniform0_8", R.uniform(k0, (8,)))
emit("uniform42_2x3", R.uniform(k42, (2, 3)))
emit("uniform0_range", R.uniform(k0, (8,), minval=-2.0, maxval=3.0))
emit("uniform0_f16", R.uniform(k0, (8,), dtype=jnp.float16))
emit("normal0_8", R.normal(k0, (8,)))
emit("normal42_16", R.normal(k42, (16,)))
emit("normal0_f16", R.normal(k0, (8,), dtype=jnp.float16))
_, k2 = R.split(k0)
emit("split_then_uniform", R.uniform(k2, (4,)))
emit("randint0", R.randint(k0, (8,), 0, 10))
emit("randint42", R.randint(k42, (8,), -5, 1000000))
emit("bernoulli0", R.bernoulli(k0, 0.3, (16,)))
emit("exponential0", R.exponential(k0, (8,)))
emit("gumbel0", R.gumbel(k0, (8,)))
emit("laplace0", R.laplace(k0, (8,)))
emit("truncnorm0", R.truncated_normal(k0, -1.0, 2.0, (8,)))
emit("perm0_10", R.permutation(k0, 10))
emit("perm0_3000_head", R.permutation(k0, 3000)[:16], "first 16 of permutation(key(0), 3000): two shuffle rounds")
emit("choice0", R.choice(k0, 10, (5,), replace=False))
emit("choice0_rep", R.choice(k0, 10, (5,), replace=True))
emit("categorical0", R.categorical(k0, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(8,)))
emit("gamma0_2_5", R.gamma(k0, 2.5, (8,)))
emit("gamma0_0_3", R.gamma(k0, 0.3, (8,)))
emit("beta0", R.beta(k0, 2.0, 3.0, (8,)))
x = jnp.array([-0.99999994, -0.9, -0.5, -1e-3, 0.0, 0.25, 0.7, 0.999], jnp.float32)
emit("erfinv_in", x)
emit("erfinv_out", jax.scipy.special.erfinv(x))
y = jnp.array([-0.9, -0.5, -1e-3, 1e-6, 0.3, 2.0], jnp.float32)
emit("log1p_in", y)
emit("log1p_out", jnp.log1p(y))
# Longer samples for the bit-identity of the transcendental samplers.
emit("normal42_2048", R.normal(k42, (2048,)))
emit("normal0_f16_256", R.normal(k0, (256,), dtype=jnp.float16))
emit("uniform42_range_1024", R.uniform(k42, (1024,), minval=-3.5, maxval=1000.0))
emit("exponential42_1024", R.exponential(k42, (1024,)))
emit("gumbel42_1024", R.gumbel(k42, (1024,)))
emit("laplace42_1024", R.laplace(k42, (1024,)))
emit("truncnorm42_1024", R.truncated_normal(k42, -1.5, 0.5, (1024,)))
emit("gamma42_2_5_256", R.gamma(k42, 2.5, (256,)))
emit("gamma42_0_3_256", R.gamma(k42, 0.3, (256,)))
emit("beta42_256", R.beta(k42, 2.0, 3.0, (256,)))
# More gamma shapes (with and without JAX's boost of shapes below 1).
emit("gamma42_3_256", R.gamma(k42, 3.0, (256,)))
emit("gamma42_1_3_256", R.gamma(k42, 1.3, (256,)))

#!/usr/bin/env python3
"""NumPy and JAX on this machine's CPU, on the cases the Rust benches' summaries print.

Run by hand (CI does not need Python):

    pip install numpy "jax[cpu]==0.10.2"
    python3 benches/compare_cpu.py

Prints `NAME: numpy X UNIT, jax Y UNIT` lines, the names and units matching the lines of
`cargo bench --bench elementwise|jit|reductions_linalg|random` (each the best of several
runs, as there), so the README's comparison table reads across. JAX runs jitted and
waits for its result (`block_until_ready`).
"""
import time

import numpy as np
import jax
import jax.numpy as jnp

N = 16 * 1024 * 1024


def best(f, reps=10):
    f()
    t = float("inf")
    for _ in range(reps):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


def line(name, unit, work, tn, tj):
    fmt = lambda t: f"{work / t / 1e9:.2f} {unit}" if t else "n/a"
    print(f"{name}: numpy {fmt(tn)}, jax {fmt(tj)}")


def jblock(f, *args):
    return lambda: jax.block_until_ready(f(*args))


rng = np.random.default_rng(0)
a, b, c = (rng.uniform(-1, 1, N).astype(np.float32) for _ in range(3))
ja, jb, jc = (jnp.asarray(x) for x in (a, b, c))

print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}, numpy {np.__version__}")
line("add_16M_f32", "GB/s", 3 * N * 4, best(lambda: np.add(a, b)), best(jblock(jax.jit(jnp.add), ja, jb)))
line(
    "diff_16M_f32",
    "GB/s",
    3 * N * 4,
    best(lambda: np.diff(a)),
    best(jblock(jax.jit(jnp.diff), ja)),
)
row = b[:4096]
mat, jrow = a.reshape(-1, 4096), jnp.asarray(row)
jmat = jnp.asarray(mat)
line(
    "add_row_broadcast_16M_f32",
    "GB/s",
    2 * N * 4,
    best(lambda: np.add(mat, row)),
    best(jblock(jax.jit(jnp.add), jmat, jrow)),
)
blocks = b[: N // 16].reshape(-1, 1, 4096)
cube, jblocks = a.reshape(-1, 16, 4096), jnp.asarray(blocks)
jcube = jnp.asarray(cube)
line(
    "add_tiled_broadcast_16M_f32",
    "GB/s",
    2 * N * 4,
    best(lambda: np.add(cube, blocks)),
    best(jblock(jax.jit(jnp.add), jcube, jblocks)),
)
sq_a, sq_b = a.reshape(4096, 4096), b.reshape(4096, 4096)
jsq_a, jsq_b = jnp.asarray(sq_a), jnp.asarray(sq_b)
line(
    "add_transposed_16M_f32",
    "GB/s",
    3 * N * 4,
    best(lambda: np.add(sq_a, sq_b.T), 5),
    best(jblock(jax.jit(lambda x, y: x + y.T), jsq_a, jsq_b), 5),
)
vec = b[:4096]
mv = a.reshape(4096, 4096)
jmv, jvec = jnp.asarray(mv), jnp.asarray(vec)
line(
    "matvec_4096x4096_f32 (GB/s of the matrix)",
    "GB/s",
    N * 4,
    best(lambda: mv @ vec),
    best(jblock(jax.jit(jnp.matmul), jmv, jvec)),
)
ua = (np.arange(N) * 7).astype(np.uint8)
ub = (np.arange(N) * 13 + 5).astype(np.uint8)
jua, jub = jnp.asarray(ua), jnp.asarray(ub)
line("add_16M_u8", "GB/s", 3 * N, best(lambda: np.add(ua, ub)), best(jblock(jax.jit(jnp.add), jua, jub)))

chain = lambda m, x, y, z: m.exp(x * y + z) / (1 + m.abs(x))
line(
    "chain5_16M_f32 exp(a*b+c)/(1+abs(a))",
    "GB/s",
    4 * N * 4,
    best(lambda: chain(np, a, b, c), 5),
    best(jblock(jax.jit(lambda x, y, z: chain(jnp, x, y, z)), ja, jb, jc), 5),
)
line(
    "chain5_sum_16M_f32",
    "GB/s",
    3 * N * 4,
    best(lambda: chain(np, a, b, c).sum(), 5),
    best(jblock(jax.jit(lambda x, y, z: chain(jnp, x, y, z).sum()), ja, jb, jc), 5),
)

line("sum_16M_f32", "GB/s", N * 4, best(lambda: a.sum()), best(jblock(jax.jit(jnp.sum), ja)))
sq, jsq = a.reshape(4096, 4096), ja.reshape(4096, 4096)
for axis in (0, 1):
    line(
        f"sum_4096x4096_axis{axis}",
        "GB/s",
        N * 4,
        best(lambda: sq.sum(axis=axis), 5),
        best(jblock(jax.jit(lambda x: x.sum(axis=axis)), jsq), 5),
    )

M = 40_000_000
big = rng.uniform(0, 1, M).astype(np.float32)
jbig = jnp.asarray(big)
line(
    "cumsum_40M_f32 (read + write)",
    "GB/s",
    2 * M * 4,
    best(lambda: np.cumsum(big), 3),
    best(jblock(jax.jit(jnp.cumsum), jbig), 3),
)

for n in (1024, 2048):
    x = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    y = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    jx, jy = jnp.asarray(x), jnp.asarray(y)
    line(
        f"matmul_{n}_f32",
        "GFLOP/s",
        2 * n**3,
        best(lambda: x @ y, 3),
        best(jblock(jax.jit(jnp.matmul), jx, jy), 3),
    )

key = jax.random.key(0)
gen = np.random.default_rng(1)
line(
    "uniform_16M_f32",
    "GB/s",
    N * 4,
    best(lambda: gen.random(N, dtype=np.float32), 5),
    best(jblock(jax.jit(lambda k: jax.random.uniform(k, (N,))), key), 5),
)
line(
    "normal_16M_f32",
    "GB/s",
    N * 4,
    best(lambda: gen.standard_normal(N, dtype=np.float32), 5),
    best(jblock(jax.jit(lambda k: jax.random.normal(k, (N,))), key), 5),
)

#!/usr/bin/env python3
"""The calls of `benches/overhead.rs` in JAX, on this machine's CPU.

Run by hand, or by the Rust bench when `python3` can import JAX (the bench does not need
Python):

    pip install numpy "jax[cpu]==0.10.2"
    python3 benches/overhead.py

On 1000 float32 elements: an eager `a + b` and a jitted `x * 2 + y`, each queued (a run
of calls, then one wait, per call) and followed by a readback (`np.asarray` after every
call). Prints `NAME: X us per call` lines, the names matching the Rust bench's; each
figure is the median of seven runs.
"""
import time

import numpy as np
import jax
import jax.numpy as jnp

N, QUEUED, READ = 1000, 2000, 200


def per_call(calls, run):
    run(min(calls, 20))
    t = []
    for _ in range(7):
        s = time.perf_counter()
        run(calls)
        t.append((time.perf_counter() - s) * 1e6 / calls)
    return sorted(t)[3]


a = jnp.asarray(np.arange(N, dtype=np.float32) * 1e-3)
b = jnp.asarray(1.0 - np.arange(N, dtype=np.float32) * 1e-3)
f = jax.jit(lambda x, y: x * 2 + y)


def eager_queued(calls):
    for _ in range(calls):
        c = a + b
    c.block_until_ready()


def eager_read(calls):
    for _ in range(calls):
        np.asarray(a + b)


def jit_queued(calls):
    for _ in range(calls):
        c = f(a, b)
    c.block_until_ready()


def jit_read(calls):
    for _ in range(calls):
        np.asarray(f(a, b))


if __name__ == "__main__":
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}", flush=True)
    for name, run, calls in [
        ("eager_add_queued", eager_queued, QUEUED),
        ("eager_add_to_vec", eager_read, READ),
        ("jit_call_queued", jit_queued, QUEUED),
        ("jit_call_to_vec", jit_read, READ),
    ]:
        print(f"{name}: {per_call(calls, run):.1f} us per call", flush=True)

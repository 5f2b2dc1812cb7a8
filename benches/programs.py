#!/usr/bin/env python3
"""The programs of `benches/programs.rs` in JAX, on this machine's CPU.

Run by hand, or by the Rust bench when `python3` can import JAX (the bench does not need
Python; without it, it prints its own figures only):

    pip install numpy "jax[cpu]==0.10.2"
    python3 benches/programs.py

Each program is a port of one of JAX's examples (`examples/` in the JAX repository), with
synthetic data of the example's sizes, written the same way in both files. Prints
`NAME: X ms per step, checksum C` lines, the names matching the Rust bench's: each figure
is the best of three timed runs after a warm-up run that compiles, and the checksum the sum
of the parameters after a timed run (the two ports compute the same values).
"""
import time

import jax
import jax.numpy as jnp
from jax import grad, jit, random, vmap
from jax.scipy.special import logsumexp

STEPS = {"mlp_train_step": 20, "kernel_lsq_step": 1000, "dp_sgd_step": 10, "advi_step": 200}


def best_per_step(name, run):
    """Best of three runs of `run(steps)` per step, and the sum of the parameters after
    one run (`run` returns them, waited for)."""
    steps = STEPS[name]
    run(2)
    t = float("inf")
    for _ in range(3):
        s = time.perf_counter()
        p = run(steps)
        t = min(t, time.perf_counter() - s)
    checksum = float(sum(jnp.sum(leaf) for leaf in jax.tree_util.tree_leaves(p)))
    print(f"{name}: {t / steps * 1e3:.3f} ms per step, checksum {checksum:.6e}", flush=True)


# ----- mnist_classifier_fromscratch.py: a 784-1024-1024-10 tanh MLP, batch 128, SGD -----

def mlp_init(key, sizes, scale=0.1):
    keys = random.split(key, 2 * len(sizes))
    return [
        (scale * random.normal(keys[2 * i], (m, n)), scale * random.normal(keys[2 * i + 1], (n,)))
        for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))
    ]


def mlp_predict(params, inputs):
    act = inputs
    for w, b in params[:-1]:
        act = jnp.tanh(jnp.dot(act, w) + b)
    w, b = params[-1]
    logits = jnp.dot(act, w) + b
    return logits - logsumexp(logits, axis=1, keepdims=True)


def mlp_loss(params, inputs, targets):
    return -jnp.mean(jnp.sum(mlp_predict(params, inputs) * targets, axis=1))


@jit
def mlp_update(params, inputs, targets):
    grads = grad(mlp_loss)(params, inputs, targets)
    return [(w - 0.001 * dw, b - 0.001 * db) for (w, b), (dw, db) in zip(params, grads)]


def one_hot(labels, n):
    return (labels[:, None] == jnp.arange(n)).astype(jnp.float32)


def mlp_program():
    k = random.split(random.key(0), 3)
    params = mlp_init(k[0], [784, 1024, 1024, 10])
    inputs = random.uniform(k[1], (128, 784))
    targets = one_hot(random.randint(k[2], (128,), 0, 10), 10)

    def run(steps):
        p = params
        for _ in range(steps):
            p = mlp_update(p, inputs, targets)
        return jax.block_until_ready(p)

    best_per_step("mlp_train_step", run)


# ----- kernel_lsq.py: a Gram matrix by nested vmap, momentum steps on the objective -----

def kernel_lsq_program():
    n, d = 100, 20
    k = random.split(random.key(1), 2)
    xs = random.normal(k[0], (n, d))
    ys = jnp.dot(xs, jnp.ones(d)) + 0.1 * random.normal(k[1], (n,))
    kernel = lambda x, y: jnp.dot(x, y)
    gram = jit(lambda xs: vmap(lambda x: vmap(lambda y: kernel(x, y))(xs))(xs))(xs)

    def objective(v):
        risk = 0.5 * jnp.sum((jnp.dot(gram, v) - ys) ** 2.0)
        reg = 0.01 * jnp.sum(v**2.0)
        return risk + reg

    @jit
    def update(v, velocity):
        velocity = 0.9 * velocity + grad(objective)(v)
        return v - 1e-6 * velocity, velocity

    def run(steps):
        v, vel = jnp.zeros(n), jnp.zeros(n)
        for _ in range(steps):
            v, vel = update(v, vel)
        return jax.block_until_ready(v)

    best_per_step("kernel_lsq_step", run)


# ----- differentially_private_sgd.py: clipped per-example gradients by vmap, noise -----

def dp_loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(jnp.dot(x, w1) + b1)
    logits = jnp.dot(h, w2) + b2
    return -jnp.sum((logits - logsumexp(logits, keepdims=True)) * y)


def clipped_grad(params, x, y, clip=1.5):
    grads = grad(dp_loss)(params, x, y)
    leaves, tree = jax.tree_util.tree_flatten(grads)
    total = jnp.sqrt(sum(jnp.sum(g * g) for g in leaves))
    divisor = jnp.maximum(total / clip, 1.0)
    return jax.tree_util.tree_unflatten(tree, [g / divisor for g in leaves])


@jit
def dp_update(params, x, y, key):
    clipped = vmap(clipped_grad, (None, 0, 0))(params, x, y)
    leaves, tree = jax.tree_util.tree_flatten(clipped)
    keys = random.split(key, len(leaves))
    noised = [
        (g.sum(0) + 1.5 * 1.1 * random.normal(k, g.shape[1:])) / x.shape[0]
        for k, g in zip(keys, leaves)
    ]
    grads = jax.tree_util.tree_unflatten(tree, noised)
    return jax.tree_util.tree_map(lambda p, g: p - 0.25 * g, params, grads)


def dp_sgd_program():
    k = random.split(random.key(2), 4)
    params = mlp_init(k[0], [784, 64, 10])
    x = random.uniform(k[1], (256, 784))
    y = one_hot(random.randint(k[2], (256,), 0, 10), 10)

    def run(steps):
        p = params
        for i in range(steps):
            p = dp_update(p, x, y, random.fold_in(k[3], i))
        return jax.block_until_ready(p)

    best_per_step("dp_sgd_step", run)


# ----- advi.py: the ELBO of a funnel by vmap over sample keys, Adam steps -----

def normal_logpdf(x, mean, std):
    return -0.5 * ((x - mean) / std) ** 2 - jnp.log(std) - 0.5 * jnp.log(2 * jnp.pi)


def funnel_log_density(p):
    return normal_logpdf(p[0], 0.0, jnp.exp(p[1])) + normal_logpdf(p[1], 0.0, 1.35)


def elbo(key, mean, log_std):
    sample = mean + jnp.exp(log_std) * random.normal(key, mean.shape)
    return funnel_log_density(sample) - jnp.sum(normal_logpdf(sample, mean, jnp.exp(log_std)))


def objective(params, key):
    keys = random.split(key, 40)
    return -jnp.mean(vmap(elbo, (0, None, None))(keys, *params))


@jit
def advi_update(params, m, v, t, key):
    g = grad(objective)(params, key)
    m = [0.9 * mi + 0.1 * gi for mi, gi in zip(m, g)]
    v = [0.999 * vi + 0.001 * gi * gi for vi, gi in zip(v, g)]
    mhat = [mi / (1 - 0.9 ** (t + 1)) for mi in m]
    vhat = [vi / (1 - 0.999 ** (t + 1)) for vi in v]
    params = [p - 0.1 * mh / (jnp.sqrt(vh) + 1e-8) for p, mh, vh in zip(params, mhat, vhat)]
    return params, m, v


def advi_program():
    key = random.key(3)
    init = [jnp.full((2,), -1.0), jnp.full((2,), -5.0)]

    def run(steps):
        p, m, v = init, [jnp.zeros(2)] * 2, [jnp.zeros(2)] * 2
        for t in range(steps):
            p, m, v = advi_update(p, m, v, jnp.float32(t), random.fold_in(key, t))
        return jax.block_until_ready(p)

    best_per_step("advi_step", run)


if __name__ == "__main__":
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}", flush=True)
    mlp_program()
    kernel_lsq_program()
    dp_sgd_program()
    advi_program()

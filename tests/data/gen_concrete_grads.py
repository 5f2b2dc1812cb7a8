"""JAX's `grad` and `jvp` of functions that read their traced values (eager JAX runs them on
tracers that carry their data): value-dependent branches and loops, `item`, boolean masks,
and `unique` and the set operations without `size`, whose results JAX makes constants
(`core.concrete_or_error`).

    python3 tests/data/gen_concrete_grads.py > tests/data/concrete_grads.txt

Each line: `name | output words ; output words ...`, float32 words in hex, in the order
`tests/core/autodiff.rs` (`functions_that_read_their_values_differentiate_as_jax`) computes
them. Inputs: a = [3, 1, 1, 2], b = [2, 5, 3]; the set cases differentiate
`sum(f(a, b) * [1, 2, ...])` with respect to a and b.
"""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")
a = jnp.array([3.0, 1.0, 1.0, 2.0], jnp.float32)
b = jnp.array([2.0, 5.0, 3.0], jnp.float32)


def words(x):
    x = np.asarray(x, np.float32).reshape(-1)
    return " ".join(f"{int(w):08x}" for w in x.view(np.uint32))


def line(name, *outs):
    print(f"{name} | " + " ; ".join(words(o) for o in outs))


def weighted(f):
    def loss(x, y):
        o = f(x, y)
        return jnp.sum(o * jnp.arange(1.0, o.size + 1.0, dtype=jnp.float32))
    return loss


SETS = [
    ("unique", lambda x, y: jnp.unique(x)),
    ("union1d", lambda x, y: jnp.union1d(x, y)),
    ("intersect1d", lambda x, y: jnp.intersect1d(x, y)),
    ("intersect1d_assume_unique", lambda x, y: jnp.intersect1d(jnp.array([3.0, 1.0, 2.0]) * x[0] / 3, y, assume_unique=True)),
    ("setdiff1d", lambda x, y: jnp.setdiff1d(x, y)),
    ("setdiff1d_assume_unique", lambda x, y: jnp.setdiff1d(x, y, assume_unique=True)),
    ("setxor1d", lambda x, y: jnp.setxor1d(x, y)),
    ("unique_size", lambda x, y: jnp.unique(x, size=4, fill_value=0.0)),
    ("mask", lambda x, y: x[x > 1.5]),
    ("compress", lambda x, y: jnp.compress(x > 1.5, x)),
    ("repeat", lambda x, y: jnp.repeat(x, jnp.array([1, 0, 2, 1]))),
    ("trim_zeros", lambda x, y: jnp.trim_zeros(jnp.concatenate([jnp.zeros(1), x, jnp.zeros(2)]))),
    ("unique_values", lambda x, y: jnp.unique_values(x)),
    ("unique_inverse", lambda x, y: jnp.unique_inverse(x).values),
    ("unique_counts", lambda x, y: jnp.unique_counts(x).values),
    ("unique_all", lambda x, y: jnp.unique_all(x).values),
    ("unique_rows", lambda x, y: jnp.unique(jnp.stack([x, x * 0 + 1]).T, axis=0).reshape(-1)),
]
for name, f in SETS:
    ga, gb = jax.grad(weighted(f), argnums=(0, 1))(a, b)
    line(name, ga, gb)


def branch(x):
    if x < 3:
        return 3.0 * x ** 2
    return -4.0 * x


def doubling(x):
    # A loop whose count depends on the values.
    while jnp.sum(x) < 10.0:
        x = x * 2.0
    return jnp.sum(x * x)


def scaled(x):
    return jnp.sum(x * jnp.sum(x).item())


for v in [2.0, 4.0]:
    x = jnp.float32(v)
    line(f"branch at {v:g}", jax.grad(branch)(x), jax.grad(jax.grad(branch))(x),
         *jax.jvp(branch, (x,), (jnp.float32(0.5),)))
line("doubling", *jax.value_and_grad(doubling)(a))

# What a function reads is what is differentiated: `prod`'s value by JAX's product tree,
# a custom_vjp's by its forward rule, a custom_jvp's by its rule.
READ = []


def reading_prod(x):
    p = jnp.prod(x)
    READ.append(p.item())
    return p


p7 = jnp.array([0.91, 1.05, 0.53, 1.25, 1.04, 0.83, 1.29], jnp.float32)
v, g = jax.value_and_grad(reading_prod)(p7)
line("reading prod", jnp.float32(READ.pop()), v, g)


@jax.custom_vjp
def triple(x):
    return 3.0 * x


triple.defvjp(lambda x: (5.0 * x, None), lambda _, ct: (7.0 * ct,))


@jax.custom_jvp
def triple_jvp(x):
    return 3.0 * x


triple_jvp.defjvp(lambda p, t: (5.0 * p[0], 7.0 * t[0]))


def reading_custom(c):
    def f(x):
        y = c(x)
        READ.append(y.item())
        return jnp.where(y > 4.0, y * 2.0, y)
    return f


one = jnp.float32(1.0)
v, g = jax.value_and_grad(reading_custom(triple))(one)
line("reading custom_vjp", jnp.float32(READ.pop()), v, g)
v, g = jax.value_and_grad(reading_custom(triple_jvp))(one)
line("reading custom_jvp", jnp.float32(READ.pop()), v, g)
line("scaled", jax.grad(scaled)(a), *jax.jvp(scaled, (a,), (b[jnp.array([0, 1, 2, 0])],)))

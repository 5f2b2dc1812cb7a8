"""Contraction paths JAX 0.10.2 chooses (through opt_einsum), for tests/core/einsum_paths.rs.

    pip install "jax[cpu]==0.10.2" numpy
    python3 tests/data/gen_einsum_paths.py > tests/data/einsum_paths.txt

Each line: subscripts | operand shapes (`;` between operands, `,` within) | optimize |
path (steps `;`, positions `,`) | naive flops | optimized flops | largest intermediate |
naive scaling | optimized scaling | the complete contraction (ellipses replaced by
labels, implicit outputs made explicit). The networks are fixed classics plus seeded random ones.
"""

import random

import jax.numpy as jnp
import numpy as np

CASES = [
    ("ij,jk,kl->il", [(2, 3), (3, 100), (100, 5)]),
    ("ij,jk,kl", [(10, 3), (3, 100), (100, 5)]),
    ("ea,fb,abcd,gc,hd->efgh", [(10, 10)] * 2 + [(10, 10, 10, 10)] + [(10, 10)] * 2),
    ("ab,bc,cd,de,ef,fg,gh->ah", [(2, 30), (30, 4), (4, 50), (50, 3), (3, 60), (60, 5), (5, 7)]),
    ("ab,bc,cd,de,ef,fg,gh,hi,ij,jk->ak",
     [(5, 40), (40, 3), (3, 30), (30, 2), (2, 60), (60, 4), (4, 20), (20, 6), (6, 9), (9, 8)]),
    ("i,j,k->ijk", [(3,), (4,), (5,)]),
    ("i,j,k,l", [(3,), (40,), (5,), (2,)]),
    ("ij,ij,jk->ik", [(4, 5), (4, 5), (5, 6)]),
    ("ij,ij,ij,jk,jk", [(4, 5), (4, 5), (4, 5), (5, 6), (5, 6)]),
    ("bij,bjk,bkl->bil", [(3, 4, 5), (3, 5, 6), (3, 6, 2)]),
    ("ij,jk,kl->il", [(2, 1), (3, 4), (4, 5)]),
    ("...ij,...jk,...kl->...il", [(6, 2, 3), (1, 3, 4), (6, 4, 5)]),
    ("i...,j...,...->ij...", [(2, 3), (4, 3), (3,)]),
    ("ii,ij,jk->k", [(3, 3), (3, 4), (4, 5)]),
    ("abc,cd,de,ea->b", [(3, 4, 5), (5, 6), (6, 7), (7, 3)]),
    ("ij,jk,kl,lm,mn,no,op,pq,qr,rs,st,tu,uv,vw,wx,xy->iy",
     [(3 + k % 3, 3 + (k + 1) % 3) for k in range(16)]),
    ("ab,ab,ab,ab,ab,ab", [(2, 3)] * 6),
    (",ij,j->i", [(), (3, 4), (4,)]),
    ("ij,kl,jk->", [(2, 3), (4, 5), (3, 4)]),
]

OPTIMIZERS = ["greedy", "optimal", "auto", False]


def random_cases(rng, count):
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGH"
    for _ in range(count):
        n = rng.randint(3, 11)
        nlabels = rng.randint(3, min(14, len(letters)))
        labels = letters[:nlabels]
        sizes = {c: rng.randint(1, 6) for c in labels}
        terms = []
        for _ in range(n):
            k = rng.randint(1, min(4, nlabels))
            terms.append("".join(rng.sample(labels, k)))
        used = sorted(set("".join(terms)))
        out = "".join(c for c in used if rng.random() < 0.25)
        sub = ",".join(terms) + "->" + out
        yield sub, [tuple(sizes[c] for c in t) for t in terms]


def fmt_shape(s):
    return ",".join(map(str, s))


rng = random.Random(20261126)
cases = CASES + list(random_cases(rng, 60))
for sub, shapes in cases:
    ops = [np.zeros(s, np.float32) for s in shapes]
    for opt in OPTIMIZERS:
        if opt == "optimal" and len(ops) > 7:
            continue
        path, info = jnp.einsum_path(sub, *ops, optimize=opt)
        steps = ";".join(",".join(map(str, step)) for step in path)
        print(" | ".join([
            sub,
            ";".join(fmt_shape(s) for s in shapes),
            str(opt).lower(),
            steps,
            str(int(info.naive_cost)),
            str(int(info.opt_cost)),
            str(int(info.largest_intermediate)),
            str(len(info.indices)),
            str(max(info.scale_list, default=0)),
            info.eq,
        ]))

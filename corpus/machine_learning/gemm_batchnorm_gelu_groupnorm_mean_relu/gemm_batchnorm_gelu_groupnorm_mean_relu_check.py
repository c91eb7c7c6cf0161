"""gemm_batchnorm_gelu_groupnorm_mean_relu's independent check: the chain in float64 with jnp
and jax.nn (batch statistics with jax.nn.standardize over axis 0, jax.nn.gelu(approximate=True),
the group statistics over a (row, group, feature) reshape, jnp.mean, jax.nn.relu); and
math.fsum statistics over explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run

NAMES = ("x", "weight", "bias", "bn_gamma", "bn_beta", "gn_gamma", "gn_beta")


def _jax(v, g):
    jax, jnp = jax_numpy()
    x, w, b, g1, b1, g2, b2 = (jnp.asarray(v[n], dtype=jnp.float64) for n in NAMES)
    a = x @ w.T + b
    a = jax.nn.standardize(a, axis=0, epsilon=float(v["bn_eps"])) * g1 + b1
    a = jax.nn.gelu(a, approximate=True)
    rows, dout = a.shape
    blocks = a.reshape(rows, g, dout // g)
    z = jax.nn.standardize(blocks, axis=2, epsilon=float(v["gn_eps"])).reshape(rows, dout) * g2 + b2
    return np.asarray(jax.nn.relu(jnp.mean(z, axis=1, keepdims=True)))


@each(sizes=[{"B": 24, "DIN": 31, "DOUT": 64, "G": 8}, {"B": 16, "DIN": 17, "DOUT": 30, "G": 3}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected = _jax(v, sizes["G"])
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})
    # The final ReLU keeps a real share of the rows, and zeroes a real share.
    assert 0.15 < np.mean(expected > 0) < 0.85


@each(seed=SEEDS)
def check_against_fsum_loops(kernel, seed):
    b_, din, dout, g = 10, 6, 12, 3
    v, out = run(kernel, {"B": b_, "DIN": din, "DOUT": dout, "G": g}, seed)
    x, w, b, g1, b1, g2, b2 = (v[n].astype(np.float64) for n in NAMES)
    a = [[math.fsum(x[r, i] * w[f, i] for i in range(din)) + b[f] for f in range(dout)] for r in range(b_)]
    for f in range(dout):
        col = [a[r][f] for r in range(b_)]
        mean = math.fsum(col) / b_
        std = math.sqrt(math.fsum((t - mean) ** 2 for t in col) / b_ + float(v["bn_eps"]))
        for r in range(b_):
            u = (a[r][f] - mean) / std * g1[f] + b1[f]
            a[r][f] = 0.5 * u * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u ** 3)))
    cg = dout // g
    expected = np.empty((b_, 1))
    for r in range(b_):
        total = []
        for grp in range(g):
            block = a[r][grp * cg:(grp + 1) * cg]
            mean = math.fsum(block) / cg
            std = math.sqrt(math.fsum((t - mean) ** 2 for t in block) / cg + float(v["gn_eps"]))
            total += [(t - mean) / std * g2[grp * cg + j] + b2[grp * cg + j] for j, t in enumerate(block)]
        expected[r, 0] = max(math.fsum(total) / dout, 0.0)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shapes(kernel):
    # Two rows (the smallest batch with a variance), one group; and one feature per group.
    v, out = run(kernel, {"B": 2, "DIN": 3, "DOUT": 5, "G": 1}, 0)
    assert_close(kernel, out["out"], _jax(v, 1))
    v, out = run(kernel, {"B": 7, "DIN": 4, "DOUT": 6, "G": 6}, 1)
    assert_close(kernel, out["out"], _jax(v, 6))

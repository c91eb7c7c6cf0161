"""bmm_instancenorm_sum_residualadd_multiply's independent check: the linear layer in float64
with jnp, jax.nn.standardize over each row (instance statistics), then (n + y) * y; and
math.fsum row statistics over explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run


def _jax(v):
    jax, jnp = jax_numpy()
    x, w, b, y = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias", "y"))
    a = x @ w.T + b
    n = jax.nn.standardize(a, axis=1, epsilon=float(v["eps"]))
    return np.asarray((n + y) * y)


@each(sizes=[{"B": 9, "DIN": 31, "DOUT": 40}, {"B": 4, "DIN": 17, "DOUT": 7}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected = _jax(v)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(seed=SEEDS)
def check_against_fsum_loops(kernel, seed):
    b_, din, dout = 5, 12, 9
    v, out = run(kernel, {"B": b_, "DIN": din, "DOUT": dout}, seed)
    x, w, b, y = (v[n].astype(np.float64) for n in ("x", "weight", "bias", "y"))
    expected = np.empty((b_, dout))
    for r in range(b_):
        a = [math.fsum(x[r, i] * w[f, i] for i in range(din)) + b[f] for f in range(dout)]
        mean = math.fsum(a) / dout
        std = math.sqrt(math.fsum((t - mean) ** 2 for t in a) / dout + float(v["eps"]))
        for f in range(dout):
            expected[r, f] = ((a[f] - mean) / std + y[r, f]) * y[r, f]
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shape(kernel):
    v, out = run(kernel, {"B": 1, "DIN": 1, "DOUT": 3}, 0)
    assert_close(kernel, out["out"], _jax(v))


def check_row_statistics_not_column(kernel):
    # Normalising each feature over the batch (BatchNorm's axis) must fail the judge.
    v, out = run(kernel, {"B": 9, "DIN": 31, "DOUT": 40}, 0)
    x, w, b, y = (v[n].astype(np.float64) for n in ("x", "weight", "bias", "y"))
    a = x @ w.T + b
    wrong = ((a - a.mean(axis=0)) / np.sqrt(a.var(axis=0) + float(v["eps"])) + y) * y
    assert not judged(kernel, out, {"out": wrong})

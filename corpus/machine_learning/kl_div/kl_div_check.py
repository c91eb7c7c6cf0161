"""kl_div's independent check: jax.scipy.special.xlogy in float64 (PyTorch's pointwise
target log target - target logprob), and an exactly rounded sum (math.fsum) per row."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(9, 33), (1, 2), (64, 257), (300, 1000)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    B, N = shape
    v, out = run(kernel, {"B": B, "N": N}, seed)
    t = jnp.asarray(v["target"], dtype=jnp.float64)
    lp = jnp.asarray(v["logprob"], dtype=jnp.float64)
    loss = np.array([float(jnp.sum(jax.scipy.special.xlogy(t, t) - t * lp) / B)])
    np.testing.assert_allclose(out["loss"], loss, rtol=2e-5)
    assert_judged_like_an_oracle(kernel, out, {"loss": loss})


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    B, N = 200, 500
    v, out = run(kernel, {"B": B, "N": N}, seed)
    # The inputs are distributions: each row of target sums to one, each row of logprob
    # exponentiates to one (to float32 rounding).
    np.testing.assert_allclose(v["target"].astype(np.float64).sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.exp(v["logprob"].astype(np.float64)).sum(axis=1), 1.0, rtol=1e-5)
    rows = []
    for t, lp in zip(v["target"].astype(np.float64).tolist(), v["logprob"].astype(np.float64).tolist()):
        rows.append(math.fsum(ti * (math.log(ti) - li) for ti, li in zip(t, lp)))
    assert min(rows) > 0.0
    loss = math.fsum(rows) / B
    np.testing.assert_allclose(out["loss"][0], loss, rtol=2e-5)
    assert_judged_like_an_oracle(kernel, out, {"loss": np.array([loss])})

"""huber_loss's independent check: the Huber loss written with jnp.minimum in JAX (float64),
h(a) = m (a - m / 2) with m = min(a, delta), and an exactly rounded sum (math.fsum) of the
branch-by-branch terms."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(9, 33), (1, 1), (64, 257), (300, 1000)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    _, jnp = jax_numpy()
    B, N = shape
    v, out = run(kernel, {"B": B, "N": N}, seed)
    delta = float(np.float32(v["delta"]))
    a = jnp.abs(jnp.asarray(v["predictions"], dtype=jnp.float64) - jnp.asarray(v["targets"], dtype=jnp.float64))
    m = jnp.minimum(a, delta)
    loss = np.array([float(jnp.mean(m * (a - 0.5 * m)))])
    np.testing.assert_allclose(out["loss"], loss, rtol=5e-6)
    assert_judged_like_an_oracle(kernel, out, {"loss": loss})


@each(seed=SEEDS)
def check_both_branches_against_fsum(kernel, seed):
    B, N = 500, 400
    v, out = run(kernel, {"B": B, "N": N}, seed)
    delta = float(np.float32(v["delta"]))
    a = np.abs(v["predictions"].astype(np.float64) - v["targets"].astype(np.float64)).ravel().tolist()
    quad = [0.5 * x * x for x in a if x < delta]
    lin = [delta * (x - 0.5 * delta) for x in a if x >= delta]
    # Both branches take a large share of the elements, and each a visible share of the
    # loss (the linear one the larger: its terms grow faster).
    assert 0.25 < len(quad) / len(a) < 0.75
    assert 0.02 < math.fsum(quad) / (math.fsum(quad) + math.fsum(lin)) < 0.5
    loss = (math.fsum(quad) + math.fsum(lin)) / (B * N)
    np.testing.assert_allclose(out["loss"][0], loss, rtol=5e-6)
    assert_judged_like_an_oracle(kernel, out, {"loss": np.array([loss])})

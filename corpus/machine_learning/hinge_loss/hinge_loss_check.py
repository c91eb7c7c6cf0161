"""hinge_loss's independent check: the hinge loss written with jax.nn.relu in JAX (float64),
and an exactly rounded sum (math.fsum) of the branch-by-branch terms."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    jax, jnp = jax_numpy()
    p = jnp.asarray(v["predictions"], dtype=jnp.float64)
    t = jnp.asarray(v["targets"], dtype=jnp.float64)
    return np.array([float(jnp.mean(jax.nn.relu(1.0 - p * t)))])


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    # Past two blocks of 4096 and into a partial third.
    v, out = run(kernel, {"B": 10001}, seed)
    loss = _jax(v)
    np.testing.assert_allclose(out["loss"], loss, rtol=5e-6)
    assert_judged_like_an_oracle(kernel, out, {"loss": loss})


@each(B=[1, 7, 4096])
def check_edge_sizes_against_jax(kernel, B):
    v, out = run(kernel, {"B": B}, 5)
    np.testing.assert_allclose(out["loss"], _jax(v), rtol=5e-6, atol=1e-7)


@each(seed=SEEDS)
def check_margins_against_fsum(kernel, seed):
    B = 100000
    v, out = run(kernel, {"B": B}, seed)
    assert set(np.unique(v["targets"]).tolist()) == {-1.0, 1.0}
    m = (v["predictions"].astype(np.float64) * v["targets"].astype(np.float64)).tolist()
    # Beyond the margin (no loss), inside it, and on the wrong side: each a visible share.
    beyond = sum(1 for z in m if z >= 1.0)
    wrong = sum(1 for z in m if z < 0.0)
    assert 0.1 < beyond / B < 0.8 and 0.02 < wrong / B < 0.5
    loss = math.fsum(1.0 - z for z in m if z < 1.0) / B
    np.testing.assert_allclose(out["loss"][0], loss, rtol=5e-6)
    assert_judged_like_an_oracle(kernel, out, {"loss": np.array([loss])})

"""frobenius_norm's independent check: jnp.linalg.norm in float64, math.fsum, and that one
running float32 accumulator over every element is judged wrong (the description's claim)."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, judged, run


def _jax(v):
    _, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    return np.asarray(x / jnp.linalg.norm(x, ord="fro"))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 17, "N": 129}, seed)
    y = _jax(v)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    v, out = run(kernel, {"B": 6, "N": 50}, seed)
    x = v["x"].astype(np.float64)
    nrm = math.sqrt(math.fsum(float(t) * float(t) for t in x.ravel()))
    y = x / nrm
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(shape=[(1, 1), (1, 7), (13, 1)])
def check_edge_shapes(kernel, shape):
    v, out = run(kernel, {"B": shape[0], "N": shape[1]}, 2)
    np.testing.assert_allclose(out["y"], _jax(v), rtol=1e-5, atol=1e-7)


def check_single_float32_accumulator_fails(kernel):
    v, out = run(kernel, {"B": 1024, "N": 4096}, 0)
    sq = v["x"].ravel() * v["x"].ravel()
    naive = np.cumsum(sq, dtype=np.float32)[-1]   # one running float32 sum, in order
    assert not judged(kernel, out, {"y": v["x"] / np.sqrt(naive)})

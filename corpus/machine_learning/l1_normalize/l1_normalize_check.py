"""l1_normalize's independent check: jnp.linalg.norm(ord=1) in float64, explicit loops with
math.fsum, and each output row's absolute values summing to one."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    _, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    return np.asarray(x / jnp.linalg.norm(x, ord=1, axis=1, keepdims=True))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 11, "N": 257}, seed)
    y = _jax(v)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(np.abs(out["y"].astype(np.float64)).sum(axis=1), 1.0, rtol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    b, n = 7, 40
    v, out = run(kernel, {"B": b, "N": n}, seed)
    y = np.empty((b, n))
    for i in range(b):
        row = [float(t) for t in v["x"][i]]
        s = math.fsum(abs(t) for t in row)
        y[i] = [t / s for t in row]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-8)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(shape=[(1, 1), (3, 1), (1, 19), (5, 1031)])
def check_edge_shapes(kernel, shape):
    v, out = run(kernel, {"B": shape[0], "N": shape[1]}, 1)
    np.testing.assert_allclose(out["y"], _jax(v), rtol=1e-5, atol=1e-9)

"""l2_normalize's independent check: jnp.linalg.norm in float64 with the eps clamp, explicit
loops with math.fsum, and the zero row coming out as zeros."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    _, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    return np.asarray(x / jnp.maximum(jnp.linalg.norm(x, ord=2, axis=1, keepdims=True), float(v["eps"])))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 11, "N": 257}, seed)
    y = _jax(v)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    b, n = 7, 40
    v, out = run(kernel, {"B": b, "N": n}, seed)
    y = np.empty((b, n))
    for i in range(b):
        row = [float(t) for t in v["x"][i]]
        nrm = max(math.sqrt(math.fsum(t * t for t in row)), float(v["eps"]))
        y[i] = [t / nrm for t in row]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-7)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


def check_zero_row_is_clamped(kernel):
    v, out = run(kernel, {"B": 8, "N": 33}, 0)
    assert np.all(v["x"][4] == 0.0) and np.all(out["y"][4] == 0.0)
    assert np.all(np.isfinite(out["y"]))
    np.testing.assert_allclose(np.linalg.norm(out["y"].astype(np.float64), axis=1),
                               [0.0 if i == 4 else 1.0 for i in range(8)], atol=1e-6)


@each(shape=[(1, 1), (3, 1), (1, 19)])
def check_edge_shapes(kernel, shape):
    v, out = run(kernel, {"B": shape[0], "N": shape[1]}, 1)
    np.testing.assert_allclose(out["y"], _jax(v), rtol=1e-5, atol=1e-7)

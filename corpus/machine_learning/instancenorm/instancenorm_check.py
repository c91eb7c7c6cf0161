"""instancenorm's independent check: plane statistics in float64 with jnp, and jax.nn.standardize."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, judged, run


def _jnp_float64(v):
    _, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    mean = x.mean(axis=(2, 3), keepdims=True)
    var = ((x - mean) ** 2).mean(axis=(2, 3), keepdims=True)
    return np.asarray((x - mean) / jnp.sqrt(var + float(v["eps"])))


@each(seed=SEEDS)
def check_against_jnp_float64(kernel, seed):
    v, out = run(kernel, {"N": 3, "C": 5, "H": 7, "W": 11}, seed)
    y = _jnp_float64(v)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_jax_standardize(kernel, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"N": 2, "C": 4, "H": 16, "W": 9}, seed)
    y = np.asarray(jax.nn.standardize(jnp.asarray(v["x"], dtype=jnp.float64), axis=(2, 3), epsilon=float(v["eps"])))
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(shape=[(1, 1, 1, 13), (2, 3, 5, 1)])
def check_edge_shapes(kernel, shape):
    n, c, h, w = shape
    v, out = run(kernel, {"N": n, "C": c, "H": h, "W": w}, 2)
    np.testing.assert_allclose(out["y"], _jnp_float64(v), rtol=1e-5, atol=1e-5)


def check_plane_statistics_not_batch(kernel):
    # Normalising with per-channel batch statistics (BatchNorm) must fail the judge.
    v, out = run(kernel, {"N": 4, "C": 3, "H": 8, "W": 8}, 0)
    x = v["x"].astype(np.float64)
    wrong = (x - x.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(x.var(axis=(0, 2, 3), keepdims=True) + float(v["eps"]))
    assert not judged(kernel, out, {"y": wrong})

"""batchnorm's independent check: the batch statistics in float64 with jnp, and jax.nn.standardize."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, judged, run


def _expected(v, axes):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    gamma = jnp.asarray(v["gamma"], dtype=jnp.float64).reshape(1, -1, 1, 1)
    beta = jnp.asarray(v["beta"], dtype=jnp.float64).reshape(1, -1, 1, 1)
    eps = float(v["eps"])
    if axes == "jnp":
        mean = x.mean(axis=(0, 2, 3), keepdims=True)
        var = ((x - mean) ** 2).mean(axis=(0, 2, 3), keepdims=True)
        return np.asarray((x - mean) / jnp.sqrt(var + eps) * gamma + beta)
    return np.asarray(jax.nn.standardize(x, axis=(0, 2, 3), epsilon=eps) * gamma + beta)


@each(seed=SEEDS)
def check_against_jnp_float64(kernel, seed):
    v, out = run(kernel, {"N": 3, "C": 5, "H": 7, "W": 11}, seed)
    y = _expected(v, "jnp")
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_jax_standardize(kernel, seed):
    v, out = run(kernel, {"N": 4, "C": 3, "H": 16, "W": 9}, seed)
    y = _expected(v, "standardize")
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(shape=[(1, 2, 1, 13), (2, 1, 3, 1)])
def check_edge_shapes(kernel, shape):
    n, c, h, w = shape
    v, out = run(kernel, {"N": n, "C": c, "H": h, "W": w}, 1)
    np.testing.assert_allclose(out["y"], _expected(v, "jnp"), rtol=1e-5, atol=1e-5)


def check_batch_statistics_not_per_sample(kernel):
    # Normalising each sample on its own (instance statistics) must fail the judge.
    v, out = run(kernel, {"N": 4, "C": 3, "H": 8, "W": 8}, 0)
    x = v["x"].astype(np.float64)
    wrong = ((x - x.mean(axis=(2, 3), keepdims=True)) / np.sqrt(x.var(axis=(2, 3), keepdims=True) + float(v["eps"]))
             * v["gamma"].reshape(1, -1, 1, 1) + v["beta"].reshape(1, -1, 1, 1))
    assert not judged(kernel, out, {"y": wrong})

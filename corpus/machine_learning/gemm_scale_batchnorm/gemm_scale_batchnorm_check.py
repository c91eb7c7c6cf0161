"""gemm_scale_batchnorm's independent check: the layer and scale in float64 with jnp.einsum,
then jax.nn.standardize over the batch axis with gamma and beta (jitted, at one small size and
several seeds), and the batch moments in float64 NumPy at edge sizes."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run

NAMES = ("x", "W", "bias", "scale", "gamma", "beta")


@functools.lru_cache(maxsize=None)
def _jitted():
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias, scale, gamma, beta, eps):
        h = (jnp.einsum("bi,fi->bf", x, W) + bias) * scale
        return jax.nn.standardize(h, axis=0, epsilon=eps) * gamma + beta

    return layer


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(_jitted()(*(jnp.asarray(v[n], dtype=jnp.float64) for n in NAMES + ("eps",))))


def _scaled(v):
    x, W, bias, scale = (v[n].astype(np.float64) for n in NAMES[:4])
    return (np.einsum("bi,fi->bf", x, W) + bias) * scale


@each(seed=SEEDS)
def check_against_jax_standardize(kernel, seed):
    v, out = run(kernel, {"B": 12, "IN": 40, "F": 24}, seed)
    y = _jax(v)
    assert_close(kernel, out["out"], y)
    assert_judged_like_an_oracle(kernel, out, {"out": y})


@each(sizes=[(2, 1, 1), (3, 1, 5), (5, 13, 1)])
def check_edge_sizes(kernel, sizes):
    b, i, f = sizes
    v, out = run(kernel, {"B": b, "IN": i, "F": f}, 1)
    h = _scaled(v)
    z = (h - h.mean(axis=0)) / np.sqrt(h.var(axis=0) + float(v["eps"]))
    assert_close(kernel, out["out"], z * v["gamma"] + v["beta"])


def check_batch_statistics_not_per_row(kernel):
    # Normalising each row over its features (LayerNorm-like) must fail the judge.
    v, out = run(kernel, {"B": 12, "IN": 40, "F": 24}, 0)
    h = _scaled(v)
    z = (h - h.mean(axis=1, keepdims=True)) / np.sqrt(h.var(axis=1, keepdims=True) + float(v["eps"]))
    assert not judged(kernel, out, {"out": z * v["gamma"] + v["beta"]})

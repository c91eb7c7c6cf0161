"""gemm_add_relu's independent check: the layer in float64 with jnp.einsum, the bias add and
jax.nn.relu (jitted, at one small size and several seeds), and in float64 NumPy at edge sizes."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


@functools.lru_cache(maxsize=None)
def _jitted():
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias):
        return jax.nn.relu(jnp.einsum("bi,fi->bf", x, W) + bias)

    return layer


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(_jitted()(*(jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "W", "bias"))))


def _float64(v):
    x, W, bias = (v[n].astype(np.float64) for n in ("x", "W", "bias"))
    return np.maximum(np.einsum("bi,fi->bf", x, W) + bias, 0.0)


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 7, "IN": 40, "F": 24}, seed)
    y = _jax(v)
    assert 0.2 < np.mean(y > 0.0) < 0.8
    assert_close(kernel, out["out"], y)
    assert_judged_like_an_oracle(kernel, out, {"out": y})


@each(sizes=[(1, 1, 1), (3, 1, 5), (5, 13, 1)])
def check_edge_sizes(kernel, sizes):
    b, i, f = sizes
    v, out = run(kernel, {"B": b, "IN": i, "F": f}, 1)
    assert_close(kernel, out["out"], _float64(v))

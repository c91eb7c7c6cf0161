"""matmul_mish_mish's independent check: the layer in float64 with jnp.einsum, then Mish as
z tanh(jax.nn.softplus(z)) twice (jitted, at one small size and several seeds), and in float64
NumPy with np.logaddexp for the softplus at edge sizes."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


@functools.lru_cache(maxsize=None)
def _jitted():
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias):
        h = jnp.einsum("bi,fi->bf", x, W) + bias
        h = h * jnp.tanh(jax.nn.softplus(h))
        return h * jnp.tanh(jax.nn.softplus(h))

    return layer


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(_jitted()(*(jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "W", "bias"))))


def _float64(v):
    x, W, bias = (v[n].astype(np.float64) for n in ("x", "W", "bias"))
    h = np.einsum("bi,fi->bf", x, W) + bias
    h = h * np.tanh(np.logaddexp(0.0, h))
    return h * np.tanh(np.logaddexp(0.0, h))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 7, "IN": 40, "F": 24}, seed)
    y = _jax(v)
    assert_close(kernel, out["out"], y)
    assert_judged_like_an_oracle(kernel, out, {"out": y})


@each(sizes=[(1, 1, 1), (3, 1, 5), (5, 13, 1)])
def check_edge_sizes(kernel, sizes):
    b, i, f = sizes
    v, out = run(kernel, {"B": b, "IN": i, "F": f}, 1)
    assert_close(kernel, out["out"], _float64(v))

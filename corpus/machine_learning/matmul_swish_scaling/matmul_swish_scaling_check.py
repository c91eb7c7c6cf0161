"""matmul_swish_scaling's independent check: the layer in float64 with jnp.einsum, jax.nn.silu
and the scale (jitted, at one small size and several seeds), and in float64 with
scipy.special.expit at edge sizes."""

import functools

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


@functools.lru_cache(maxsize=None)
def _jitted():
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias, scaling_factor):
        return jax.nn.silu(jnp.einsum("bi,fi->bf", x, W) + bias) * scaling_factor

    return layer


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(_jitted()(*(jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "W", "bias", "scaling_factor"))))


def _float64(v):
    x, W, bias = (v[n].astype(np.float64) for n in ("x", "W", "bias"))
    h = np.einsum("bi,fi->bf", x, W) + bias
    return h * scipy.special.expit(h) * float(v["scaling_factor"])


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

"""gemm_sigmoid_sum's independent check: the layer in float64 with jnp.einsum, jax.nn.sigmoid
and the row sum (jitted, at one small size and several seeds), and in float64 with
scipy.special.expit at edge sizes."""

import functools

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


@functools.lru_cache(maxsize=None)
def _jitted():
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias):
        return jnp.sum(jax.nn.sigmoid(jnp.einsum("bi,fi->bf", x, W) + bias), axis=1)

    return layer


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(_jitted()(*(jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "W", "bias"))))


def _pre_activation(v):
    x, W, bias = (v[n].astype(np.float64) for n in ("x", "W", "bias"))
    return np.einsum("bi,fi->bf", x, W) + bias


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 9, "IN": 40, "F": 64}, seed)
    y = _jax(v)
    assert_close(kernel, out["out"], y)
    assert_judged_like_an_oracle(kernel, out, {"out": y})


@each(sizes=[(1, 1, 1), (3, 1, 5), (5, 13, 1)])
def check_edge_sizes(kernel, sizes):
    b, i, f = sizes
    v, out = run(kernel, {"B": b, "IN": i, "F": f}, 1)
    assert_close(kernel, out["out"], np.sum(scipy.special.expit(_pre_activation(v)), axis=1))


def check_sigmoid_is_not_linearised(kernel):
    # 1/2 + h/4, the sigmoid's tangent at zero, must fail: the inputs reach its curved part.
    v, out = run(kernel, {"B": 9, "IN": 40, "F": 64}, 0)
    assert not np.allclose(out["out"], np.sum(0.5 + _pre_activation(v) / 4.0, axis=1), rtol=1e-3)

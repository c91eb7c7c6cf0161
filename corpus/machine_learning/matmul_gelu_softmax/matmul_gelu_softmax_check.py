"""matmul_gelu_softmax's independent check: the layer in float64 with jnp.einsum,
jax.nn.gelu(approximate=True) (the tanh form, as the kernel) and jax.nn.softmax over the
features (jitted, at one small size and several seeds), and in float64 with
scipy.special.softmax at edge sizes."""

import functools
import math

import numpy as np
import scipy.special

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run


@functools.lru_cache(maxsize=None)
def _jitted():
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias):
        return jax.nn.softmax(jax.nn.gelu(jnp.einsum("bi,fi->bf", x, W) + bias, approximate=True), axis=-1)

    return layer


def _jax(v):
    _, jnp = jax_numpy()
    return np.asarray(_jitted()(*(jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "W", "bias"))))


def _pre_activation(v):
    x, W, bias = (v[n].astype(np.float64) for n in ("x", "W", "bias"))
    return np.einsum("bi,fi->bf", x, W) + bias


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 7, "IN": 40, "F": 48}, seed)
    y = _jax(v)
    assert_close(kernel, out["out"], y)
    assert_judged_like_an_oracle(kernel, out, {"out": y})
    # The weights are spread, not uniform and not one-hot.
    assert np.all(np.max(y, axis=1) < 0.9) and np.all(np.max(y, axis=1) / np.min(y, axis=1) > 10.0)


@each(sizes=[(1, 1, 1), (3, 1, 5), (5, 13, 2)])
def check_edge_sizes(kernel, sizes):
    b, i, f = sizes
    v, out = run(kernel, {"B": b, "IN": i, "F": f}, 1)
    h = _pre_activation(v)
    g = 0.5 * h * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))
    assert_close(kernel, out["out"], scipy.special.softmax(g, axis=1))


def check_exact_gelu_is_another_kernel(kernel):
    # The erf GELU differs from the tanh form by up to ~1e-3: the judge tells them apart.
    v, out = run(kernel, {"B": 7, "IN": 40, "F": 48}, 0)
    h = _pre_activation(v)
    exact = scipy.special.softmax(0.5 * h * (1.0 + scipy.special.erf(h / math.sqrt(2.0))), axis=1)
    assert not judged(kernel, out, {"out": exact})

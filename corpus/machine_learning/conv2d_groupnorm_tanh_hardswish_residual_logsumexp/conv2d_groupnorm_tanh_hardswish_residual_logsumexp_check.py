"""conv2d_groupnorm_tanh_hardswish_residual_logsumexp's independent check:
jax.lax.conv_general_dilated, then GroupNorm (jnp mean and var per group), tanh, jax.nn.hard_swish,
the residual and jax.scipy.special.logsumexp, all in float64 JAX from the kernel's float32 inputs,
at small sizes, several seeds and an edge size."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _conv(v):
    jax, jnp = jax_numpy()
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    return jax.lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="VALID",
                                        dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]


def _expected(v, g):
    jax, jnp = jax_numpy()
    y = _conv(v)
    n, k, p, q = y.shape
    blocks = y.reshape(n, g, k // g, p, q)
    mean = blocks.mean(axis=(2, 3, 4), keepdims=True)
    var = blocks.var(axis=(2, 3, 4), keepdims=True)
    z = ((blocks - mean) / jnp.sqrt(var + float(v["eps"]))).reshape(n, k, p, q)
    z = z * jnp.asarray(v["gamma"], jnp.float64)[None, :, None, None] + jnp.asarray(v["beta"], jnp.float64)[None, :, None, None]
    r = y + jax.nn.hard_swish(jnp.tanh(z))
    return np.asarray(jax.scipy.special.logsumexp(r, axis=1, keepdims=True))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"N": 2, "C": 3, "H": 7, "W": 8, "K": 6, "R": 3, "S": 2, "G": 3}, seed)
    expected = _expected(v, 3)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_size(kernel):
    v, out = run(kernel, {"N": 1, "C": 1, "H": 3, "W": 5, "K": 2, "R": 3, "S": 2, "G": 1}, 3)
    assert_close(kernel, out["out"], _expected(v, 1))

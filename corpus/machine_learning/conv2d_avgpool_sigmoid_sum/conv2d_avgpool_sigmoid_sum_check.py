"""conv2d_avgpool_sigmoid_sum's independent check: jax.lax.conv_general_dilated, then
jax.lax.reduce_window (add) / 4, jax.nn.sigmoid and the sum per sample, all in float64 JAX from the
kernel's float32 inputs, at small sizes, several seeds and an edge size."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _conv(v):
    jax, jnp = jax_numpy()
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    return jax.lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="VALID",
                                        dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]


def _expected(v):
    jax, jnp = jax_numpy()
    y = _conv(v)
    y = jax.lax.reduce_window(y, 0.0, jax.lax.add, window_dimensions=(1, 1, 2, 2),
                              window_strides=(1, 1, 2, 2), padding="VALID") / 4.0
    return np.asarray(jnp.sum(jax.nn.sigmoid(y), axis=(1, 2, 3)))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"N": 4, "C": 3, "H": 10, "W": 9, "K": 4, "R": 3, "S": 2}, seed)
    expected = _expected(v)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_size(kernel):
    v, out = run(kernel, {"N": 1, "C": 2, "H": 4, "W": 3, "K": 3, "R": 3, "S": 2}, 3)
    assert_close(kernel, out["out"], _expected(v))

"""conv2d_subtract_hardswish_maxpool_mish's independent check: jax.lax.conv_general_dilated, then the
subtraction, jax.nn.hard_swish, jax.lax.reduce_window (max) and Mish, all in float64 JAX from the
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
    y = jax.nn.hard_swish(y - float(v["subtract_value"]))
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, window_dimensions=(1, 1, 2, 2),
                              window_strides=(1, 1, 2, 2), padding="VALID")
    return np.asarray(y * jnp.tanh(jax.nn.softplus(y)))


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"N": 2, "C": 3, "H": 10, "W": 9, "K": 4, "R": 3, "S": 2}, seed)
    expected = _expected(v)
    y = np.asarray(_conv(v)) - float(v["subtract_value"])
    assert (y < -3.0).any() and (y > 3.0).any()      # all three pieces of HardSwish
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_size(kernel):
    v, out = run(kernel, {"N": 1, "C": 2, "H": 4, "W": 3, "K": 3, "R": 3, "S": 2}, 3)
    assert_close(kernel, out["out"], _expected(v))

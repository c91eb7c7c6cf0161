"""conv2d_relu_biasadd's independent check: jax.lax.conv_general_dilated, then ReLU, then the second
bias, all in float64 JAX from the kernel's float32 inputs, at small sizes, several seeds and an edge
size."""

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
    return np.asarray(jax.nn.relu(y) + jnp.asarray(v["bias2"], dtype=jnp.float64)[None])


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"N": 2, "C": 3, "H": 9, "W": 8, "K": 4, "R": 3, "S": 2}, seed)
    expected = _expected(v)
    assert (np.asarray(_conv(v)) < 0).any() and (np.asarray(_conv(v)) > 0).any()
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_size(kernel):
    v, out = run(kernel, {"N": 1, "C": 1, "H": 3, "W": 5, "K": 1, "R": 3, "S": 2}, 3)
    assert_close(kernel, out["out"], _expected(v))

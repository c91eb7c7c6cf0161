"""conv3d_relu_leakyrelu_gelu_sigmoid_biasadd's independent check: jax.lax.conv_general_dilated
in three dimensions, then jax.nn.relu, leaky_relu, gelu (approximate=True), sigmoid and
+ bias2, in float64; and scipy.signal.correlate per volume and filter with the chain written
out in NumPy float64."""

import numpy as np
import scipy.signal

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    jax, jnp = jax_numpy()
    x, w, b, b2 = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias", "bias2"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1, 1), padding="VALID",
                                     dimension_numbers=("NCDHW", "OIDHW", "NCDHW")) + b[None, :, None, None, None]
    y = jax.nn.leaky_relu(jax.nn.relu(y), negative_slope=0.01)
    y = jax.nn.sigmoid(jax.nn.gelu(y, approximate=True))
    return np.asarray(y + b2[None]), np.asarray(jnp.mean(y == 0.5))


@each(sizes=[{"N": 2, "C": 3, "D": 6, "H": 7, "W": 5, "K": 4, "T": 3, "R": 3, "S": 3},
             {"N": 1, "C": 2, "D": 5, "H": 4, "W": 8, "K": 3, "T": 2, "R": 1, "S": 4}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected, _ = _jax(v)
    assert out["out"].shape == expected.shape
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(seed=SEEDS)
def check_against_scipy(kernel, seed):
    sizes = {"N": 2, "C": 3, "D": 5, "H": 6, "W": 7, "K": 2, "T": 2, "R": 3, "S": 3}
    v, out = run(kernel, sizes, seed)
    x, w, b, b2 = (v[n].astype(np.float64) for n in ("x", "weight", "bias", "bias2"))
    y = np.empty((2, 2, 4, 4, 5))
    for n in range(2):
        for f in range(2):
            y[n, f] = scipy.signal.correlate(x[n], w[f], mode="valid")[0] + b[f]
    y = np.maximum(y, 0.0)
    y = 0.5 * y * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (y + 0.044715 * y ** 3)))
    expected = 1.0 / (1.0 + np.exp(-y)) + b2[None]
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shape(kernel):
    v, out = run(kernel, {"N": 1, "C": 1, "D": 3, "H": 1, "W": 7, "K": 5, "T": 3, "R": 1, "S": 2}, 0)
    assert_close(kernel, out["out"], _jax(v)[0])


def check_inputs_reach_both_sides_of_the_relu(kernel):
    v, _ = run(kernel, {"N": 2, "C": 3, "D": 6, "H": 7, "W": 5, "K": 4, "T": 3, "R": 3, "S": 3}, 0)
    clipped = float(_jax(v)[1])
    assert 0.2 < clipped < 0.8

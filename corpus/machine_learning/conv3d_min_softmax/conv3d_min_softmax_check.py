"""conv3d_min_softmax's independent check: jax.lax.conv_general_dilated in three dimensions,
jnp.min over depth and jax.nn.softmax over channels, in float64; and scipy.signal.correlate
per volume and filter with scipy.special.softmax."""

import numpy as np
import scipy.signal
import scipy.special

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v):
    jax, jnp = jax_numpy()
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1, 1), padding="VALID",
                                     dimension_numbers=("NCDHW", "OIDHW", "NCDHW")) + b[None, :, None, None, None]
    return np.asarray(jax.nn.softmax(jnp.min(y, axis=2), axis=1))


@each(sizes=[{"N": 2, "C": 3, "D": 6, "H": 7, "W": 5, "K": 8, "T": 3, "R": 3, "S": 3},
             {"N": 1, "C": 2, "D": 5, "H": 4, "W": 8, "K": 5, "T": 2, "R": 1, "S": 4}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected = _jax(v)
    assert out["out"].shape == expected.shape
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})
    # Neither one-hot nor uniform over the channels.
    assert 1.5 / sizes["K"] < expected.max(axis=1).mean() < 0.9


@each(seed=SEEDS)
def check_against_scipy(kernel, seed):
    sizes = {"N": 2, "C": 3, "D": 5, "H": 6, "W": 7, "K": 4, "T": 2, "R": 3, "S": 3}
    v, out = run(kernel, sizes, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    low = np.empty((2, 4, 4, 5))
    for n in range(2):
        for f in range(4):
            low[n, f] = (scipy.signal.correlate(x[n], w[f], mode="valid")[0] + b[f]).min(axis=0)
    expected = scipy.special.softmax(low, axis=1)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shapes(kernel):
    # Depth 1 after the convolution (the minimum of one value), and a single channel (all ones).
    v, out = run(kernel, {"N": 1, "C": 2, "D": 3, "H": 5, "W": 1, "K": 3, "T": 3, "R": 2, "S": 1}, 0)
    assert_close(kernel, out["out"], _jax(v))
    v, out = run(kernel, {"N": 2, "C": 1, "D": 4, "H": 3, "W": 3, "K": 1, "T": 2, "R": 2, "S": 2}, 0)
    assert_close(kernel, out["out"], _jax(v))

"""depthwise_conv2d's independent check: jax.lax.conv_general_dilated with feature_group_count = C
(PyTorch's C x 1 x R x S weight) and scipy.signal.correlate2d per plane, in float64."""

import numpy as np
import scipy.signal

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(sizes=[{"N": 2, "C": 5, "H": 9, "W": 11, "R": 3, "S": 3},
             {"N": 3, "C": 4, "H": 8, "W": 6, "R": 2, "S": 5},
             {"N": 1, "C": 3, "H": 7, "W": 5, "R": 1, "S": 1}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    c = sizes["C"]
    y = jax.lax.conv_general_dilated(x, w[:, None, :, :], window_strides=(1, 1), padding="VALID",
                                     feature_group_count=c,
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
    y = np.asarray(y)
    assert out["y"].shape == y.shape
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_scipy(kernel, seed):
    sizes = {"N": 2, "C": 3, "H": 10, "W": 7, "R": 3, "S": 2}
    v, out = run(kernel, sizes, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.empty((2, 3, 10 - 3 + 1, 7 - 2 + 1))
    for n in range(2):
        for c in range(3):
            y[n, c] = scipy.signal.correlate2d(x[n, c], w[c], mode="valid") + b[c]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

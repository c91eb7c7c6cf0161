"""conv2d's independent check: jax.lax.conv_general_dilated and scipy.signal.correlate per image and filter, in float64."""

import numpy as np
import scipy.signal

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_scipy(kernel, seed):
    sizes = {"N": 2, "C": 3, "H": 9, "W": 11, "K": 4, "R": 3, "S": 2}
    v, out = run(kernel, sizes, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.empty((2, 4, 9 - 3 + 1, 11 - 2 + 1))
    for n in range(2):
        for f in range(4):
            y[n, f] = scipy.signal.correlate(x[n], w[f], mode="valid")[0] + b[f]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    jax, jnp = jax_numpy()
    sizes = {"N": 3, "C": 2, "H": 8, "W": 6, "K": 5, "R": 2, "S": 3}
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="VALID",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
    y = np.asarray(y)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

"""conv3d's independent check: jax.lax.conv_general_dilated in three dimensions and
scipy.signal.correlate per volume and filter, in float64."""

import numpy as np
import scipy.signal

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(sizes=[{"N": 2, "C": 3, "D": 6, "H": 7, "W": 5, "K": 4, "T": 3, "R": 3, "S": 3},
             {"N": 1, "C": 2, "D": 5, "H": 4, "W": 8, "K": 3, "T": 2, "R": 1, "S": 4}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1, 1), padding="VALID",
                                     dimension_numbers=("NCDHW", "OIDHW", "NCDHW")) + b[None, :, None, None, None]
    y = np.asarray(y)
    assert out["y"].shape == y.shape
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_scipy(kernel, seed):
    sizes = {"N": 2, "C": 3, "D": 5, "H": 6, "W": 7, "K": 2, "T": 2, "R": 3, "S": 3}
    v, out = run(kernel, sizes, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.empty((2, 2, 4, 4, 5))
    for n in range(2):
        for f in range(2):
            y[n, f] = scipy.signal.correlate(x[n], w[f], mode="valid")[0] + b[f]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

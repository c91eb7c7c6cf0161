"""pointwise_conv2d's independent check: jax.lax.conv_general_dilated with a K x C x 1 x 1 filter,
and an einsum over the channels, in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(sizes=[{"N": 2, "C": 5, "H": 7, "W": 9, "K": 6}, {"N": 3, "C": 17, "H": 4, "W": 3, "K": 2},
             {"N": 1, "C": 1, "H": 1, "W": 13, "K": 3}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    y = jax.lax.conv_general_dilated(x, w[:, :, None, None], window_strides=(1, 1), padding="VALID",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
    y = np.asarray(y)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_einsum(kernel, seed):
    v, out = run(kernel, {"N": 2, "C": 9, "H": 5, "W": 6, "K": 4}, seed)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.einsum("kc,nchw->nkhw", w, x) + b[None, :, None, None]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

"""conv2d_dilated's independent check: jax.lax.conv_general_dilated with rhs_dilation (2, 2)
and explicit loops, in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(sizes=[{"N": 2, "C": 3, "H": 11, "W": 9, "K": 4, "R": 3, "S": 3},
             {"N": 1, "C": 5, "H": 7, "W": 12, "K": 3, "R": 2, "S": 4},
             {"N": 2, "C": 1, "H": 5, "W": 6, "K": 2, "R": 3, "S": 1}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="VALID", rhs_dilation=(2, 2),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
    y = np.asarray(y)
    assert out["y"].shape == y.shape
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n_, c_, h_, w_, k_, r_, s_ = 2, 3, 8, 9, 3, 2, 3
    v, out = run(kernel, {"N": n_, "C": c_, "H": h_, "W": w_, "K": k_, "R": r_, "S": s_}, seed)
    x, wt, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    ho, wo = h_ - 2 * (r_ - 1), w_ - 2 * (s_ - 1)
    y = np.empty((n_, k_, ho, wo))
    for n in range(n_):
        for f in range(k_):
            for i in range(ho):
                for j in range(wo):
                    y[n, f, i, j] = b[f] + sum(wt[f, c, r, s] * x[n, c, i + 2 * r, j + 2 * s]
                                               for c in range(c_) for r in range(r_) for s in range(s_))
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

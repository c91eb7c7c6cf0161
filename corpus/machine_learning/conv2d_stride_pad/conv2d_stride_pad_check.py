"""conv2d_stride_pad's independent check: jax.lax.conv_general_dilated (stride 2, explicit
zero padding) and explicit loops that skip out-of-range taps instead of padding, in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(sizes=[{"N": 2, "C": 3, "H": 9, "W": 12, "K": 4, "R": 3, "S": 3, "P": 1},
             {"N": 1, "C": 2, "H": 10, "W": 7, "K": 5, "R": 5, "S": 4, "P": 2},
             {"N": 3, "C": 4, "H": 8, "W": 9, "K": 2, "R": 1, "S": 2, "P": 0},
             {"N": 1, "C": 1, "H": 1, "W": 5, "K": 3, "R": 3, "S": 3, "P": 1}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    p = sizes["P"]
    y = jax.lax.conv_general_dilated(x, w, window_strides=(2, 2), padding=((p, p), (p, p)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
    y = np.asarray(y)
    assert out["y"].shape == y.shape
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n_, c_, h_, w_, k_, r_, s_, p_ = 2, 3, 7, 8, 3, 3, 2, 1
    v, out = run(kernel, {"N": n_, "C": c_, "H": h_, "W": w_, "K": k_, "R": r_, "S": s_, "P": p_}, seed)
    x, wt, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    ho, wo = (h_ + 2 * p_ - r_) // 2 + 1, (w_ + 2 * p_ - s_) // 2 + 1
    y = np.empty((n_, k_, ho, wo))
    for n in range(n_):
        for f in range(k_):
            for i in range(ho):
                for j in range(wo):
                    acc = b[f]
                    for c in range(c_):
                        for r in range(r_):
                            for s in range(s_):
                                row, col = 2 * i + r - p_, 2 * j + s - p_
                                if 0 <= row < h_ and 0 <= col < w_:
                                    acc += wt[f, c, r, s] * x[n, c, row, col]
                    y[n, f, i, j] = acc
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

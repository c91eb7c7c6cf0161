"""conv2d_grouped's independent check: jax.lax.conv_general_dilated with feature_group_count = G
(explicit zero padding), and explicit loops that skip out-of-range taps instead of padding,
in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(sizes=[{"N": 2, "C": 6, "H": 7, "W": 9, "K": 4, "G": 2, "R": 3, "S": 3, "P": 1},
             {"N": 1, "C": 8, "H": 6, "W": 5, "K": 12, "G": 4, "R": 2, "S": 3, "P": 1},
             {"N": 2, "C": 3, "H": 5, "W": 6, "K": 6, "G": 3, "R": 3, "S": 1, "P": 0},
             {"N": 1, "C": 4, "H": 4, "W": 4, "K": 2, "G": 1, "R": 5, "S": 5, "P": 2},
             {"N": 1, "C": 2, "H": 1, "W": 3, "K": 4, "G": 2, "R": 3, "S": 3, "P": 1}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    p = sizes["P"]
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1), padding=((p, p), (p, p)),
                                     feature_group_count=sizes["G"],
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
    y = np.asarray(y)
    assert out["y"].shape == y.shape
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n_, c_, h_, w_, k_, g_, r_, s_, p_ = 2, 6, 5, 6, 9, 3, 3, 2, 1
    v, out = run(kernel, {"N": n_, "C": c_, "H": h_, "W": w_, "K": k_, "G": g_, "R": r_, "S": s_, "P": p_}, seed)
    x, wt, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    ho, wo = h_ + 2 * p_ - r_ + 1, w_ + 2 * p_ - s_ + 1
    cg, kg = c_ // g_, k_ // g_
    y = np.empty((n_, k_, ho, wo))
    for n in range(n_):
        for f in range(k_):
            first_channel = (f // kg) * cg
            for i in range(ho):
                for j in range(wo):
                    acc = b[f]
                    for c in range(cg):
                        for r in range(r_):
                            for s in range(s_):
                                row, col = i + r - p_, j + s - p_
                                if 0 <= row < h_ and 0 <= col < w_:
                                    acc += wt[f, c, r, s] * x[n, first_channel + c, row, col]
                    y[n, f, i, j] = acc
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

"""conv_transpose2d's independent check: the gather form as a stride-1 convolution of the
2x-dilated input with the flipped, transposed filter (jax.lax.conv_general_dilated with
lhs_dilation), jax.lax.conv_transpose, and explicit loops over input pixels, in float64."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run

SIZES = [{"N": 2, "C": 3, "H": 5, "W": 7, "K": 4, "R": 3, "S": 3},
         {"N": 1, "C": 4, "H": 6, "W": 3, "K": 2, "R": 4, "S": 1},
         {"N": 3, "C": 2, "H": 1, "W": 4, "K": 3, "R": 2, "S": 5}]


@each(sizes=SIZES, seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, sizes, seed)
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    r, s = sizes["R"], sizes["S"]
    # weight[c, k, r, s] -> an OIHW filter g[k, c, R-1-r, S-1-s] over the input dilated by 2 and padded by R-1, S-1.
    g = jnp.transpose(w, (1, 0, 2, 3))[:, :, ::-1, ::-1]
    y = jax.lax.conv_general_dilated(x, g, window_strides=(1, 1), padding=((r - 1, r - 1), (s - 1, s - 1)),
                                     lhs_dilation=(2, 2), dimension_numbers=("NCHW", "OIHW", "NCHW"))
    y = np.asarray(y + b[None, :, None, None])
    assert out["y"].shape == y.shape
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})
    # jax.lax.conv_transpose, PyTorch's in x out weight read as "OIHW" with transpose_kernel=True.
    # Its VALID output is (H - 1) 2 + max(R, 2) long: a 1-wide filter gets an extra, untouched
    # last row or column, which is cut off here.
    yt = jax.lax.conv_transpose(x, w, strides=(2, 2), padding="VALID", transpose_kernel=True,
                                dimension_numbers=("NCHW", "OIHW", "NCHW"))
    yt = np.asarray(yt)[:, :, :y.shape[2], :y.shape[3]]
    np.testing.assert_allclose(yt + np.asarray(b)[None, :, None, None], y, rtol=1e-12, atol=1e-12)


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n_, c_, h_, w_, k_, r_, s_ = 2, 3, 4, 5, 2, 3, 2
    v, out = run(kernel, {"N": n_, "C": c_, "H": h_, "W": w_, "K": k_, "R": r_, "S": s_}, seed)
    x, wt, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.empty((n_, k_, 2 * (h_ - 1) + r_, 2 * (w_ - 1) + s_))
    for f in range(k_):
        y[:, f] = b[f]
    for n in range(n_):
        for c in range(c_):
            for i in range(h_):
                for j in range(w_):
                    for f in range(k_):
                        for r in range(r_):
                            for s in range(s_):
                                y[n, f, 2 * i + r, 2 * j + s] += x[n, c, i, j] * wt[c, f, r, s]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})

"""conv_transpose2d_maxpool_hardtanh_mean_tanh's independent check: the transposed convolution
as JAX's stride-1 convolution of the 2x-dilated input with the flipped, transposed filter
(padding R - 2 on each side: PyTorch's padding 1), jax.lax.reduce_window for the 2 x 2 max
pooling, jax.nn.hard_tanh, jnp.mean and jnp.tanh, in float64; and explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v, r, s):
    jax, jnp = jax_numpy()
    x, w, b = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias"))
    g = jnp.transpose(w, (1, 0, 2, 3))[:, :, ::-1, ::-1]
    y = jax.lax.conv_general_dilated(x, g, window_strides=(1, 1), padding=((r - 2, r - 2), (s - 2, s - 2)),
                                     lhs_dilation=(2, 2), dimension_numbers=("NCHW", "OIHW", "NCHW"))
    y = y + b[None, :, None, None]
    p = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    p = jax.nn.hard_tanh(p)
    return np.asarray(jnp.tanh(jnp.mean(p, axis=(2, 3), keepdims=True))), np.asarray(p)


@each(sizes=[{"N": 3, "C": 4, "H": 5, "W": 6, "K": 8, "R": 4, "S": 4},
             {"N": 2, "C": 3, "H": 4, "W": 3, "K": 6, "R": 3, "S": 5}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected, pooled = _jax(v, sizes["R"], sizes["S"])
    assert out["out"].shape == expected.shape == (sizes["N"], sizes["K"], 1, 1)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})
    # The hardtanh clips some pooled values and leaves most inside (-1, 1).
    clipped = np.mean(np.abs(pooled) == 1.0)
    assert 0.02 < clipped < 0.5


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n_, c_, h_, w_, k_, r_, s_ = 2, 2, 3, 4, 3, 3, 4
    v, out = run(kernel, {"N": n_, "C": c_, "H": h_, "W": w_, "K": k_, "R": r_, "S": s_}, seed)
    x, wt, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    ho, wo = 2 * h_ + r_ - 4, 2 * w_ + s_ - 4
    y = np.empty((n_, k_, ho, wo))
    for n in range(n_):
        for f in range(k_):
            for p in range(ho):
                for q in range(wo):
                    acc = float(b[f])
                    for i in range(h_):
                        for j in range(w_):
                            r, s = p + 1 - 2 * i, q + 1 - 2 * j     # output (p, q) is uncropped (p + 1, q + 1)
                            if 0 <= r < r_ and 0 <= s < s_:
                                for c in range(c_):
                                    acc += x[n, c, i, j] * wt[c, f, r, s]
                    y[n, f, p, q] = acc
    expected = np.empty((n_, k_, 1, 1))
    for n in range(n_):
        for f in range(k_):
            vals = [min(1.0, max(-1.0, max(y[n, f, 2 * i, 2 * j], y[n, f, 2 * i + 1, 2 * j],
                                           y[n, f, 2 * i, 2 * j + 1], y[n, f, 2 * i + 1, 2 * j + 1])))
                    for i in range(ho // 2) for j in range(wo // 2)]
            expected[n, f, 0, 0] = math.tanh(math.fsum(vals) / len(vals))
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shapes(kernel):
    # A single pooling window (2 H + R - 4 = 2), and an odd convolution output whose last row
    # and column the pooling drops.
    v, out = run(kernel, {"N": 2, "C": 3, "H": 1, "W": 2, "K": 5, "R": 4, "S": 2}, 0)
    assert_close(kernel, out["out"], _jax(v, 4, 2)[0])
    v, out = run(kernel, {"N": 1, "C": 2, "H": 3, "W": 5, "K": 3, "R": 3, "S": 5}, 1)
    assert_close(kernel, out["out"], _jax(v, 3, 5)[0])

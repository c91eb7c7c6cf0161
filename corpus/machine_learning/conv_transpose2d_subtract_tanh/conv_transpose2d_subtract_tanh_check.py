"""conv_transpose2d_subtract_tanh's independent check: the transposed convolution as JAX's
stride-1 convolution of the 2x-dilated input with the flipped, transposed filter (padding
R - 2 before and R - 1 after: padding 1 and output_padding 1), minus bias2, jnp.tanh, in
float64; and explicit loops over the output pixels gathering their taps."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v, r, s):
    jax, jnp = jax_numpy()
    x, w, b, b2 = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias", "bias2"))
    g = jnp.transpose(w, (1, 0, 2, 3))[:, :, ::-1, ::-1]
    y = jax.lax.conv_general_dilated(x, g, window_strides=(1, 1), padding=((r - 2, r - 1), (s - 2, s - 1)),
                                     lhs_dilation=(2, 2), dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return np.asarray(jnp.tanh(y + b[None, :, None, None] - b2[None, :, :, :]))


@each(sizes=[{"N": 2, "C": 3, "H": 5, "W": 4, "K": 4, "R": 4, "S": 4},
             {"N": 1, "C": 4, "H": 3, "W": 6, "K": 3, "R": 3, "S": 2}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected = _jax(v, sizes["R"], sizes["S"])
    assert out["out"].shape == expected.shape == (sizes["N"], sizes["K"], 2 * sizes["H"] + sizes["R"] - 3,
                                                  2 * sizes["W"] + sizes["S"] - 3)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(seed=SEEDS)
def check_against_gather_loops(kernel, seed):
    n_, c_, h_, w_, k_, r_, s_ = 1, 2, 3, 4, 2, 4, 3
    v, out = run(kernel, {"N": n_, "C": c_, "H": h_, "W": w_, "K": k_, "R": r_, "S": s_}, seed)
    x, wt, b, b2 = (v[n].astype(np.float64) for n in ("x", "weight", "bias", "bias2"))
    ho, wo = 2 * h_ + r_ - 3, 2 * w_ + s_ - 3
    expected = np.empty((n_, k_, ho, wo))
    for n in range(n_):
        for f in range(k_):
            for p in range(ho):
                for q in range(wo):
                    # out[p, q] is the uncropped row p + 1: taps r with p + 1 - r = 2 i, 0 <= i < H.
                    acc = float(b[f]) - float(b2[f, 0, 0])
                    for r in range(r_):
                        for s in range(s_):
                            i2, j2 = p + 1 - r, q + 1 - s
                            if i2 % 2 or j2 % 2 or not (0 <= i2 // 2 < h_ and 0 <= j2 // 2 < w_):
                                continue
                            for c in range(c_):
                                acc += x[n, c, i2 // 2, j2 // 2] * wt[c, f, r, s]
                    expected[n, f, p, q] = math.tanh(acc)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


def check_edge_shape(kernel):
    # One input pixel and a 2 x 2 filter: a 1 x 1 output, tap (1, 1) alone.
    v, out = run(kernel, {"N": 3, "C": 5, "H": 1, "W": 1, "K": 2, "R": 2, "S": 2}, 0)
    assert_close(kernel, out["out"], _jax(v, 2, 2))


def check_inputs_use_both_bends_of_tanh(kernel):
    v, out = run(kernel, {"N": 2, "C": 8, "H": 6, "W": 6, "K": 8, "R": 4, "S": 4}, 0)
    y = out["out"]
    assert (y < -0.5).mean() > 0.1 and (y > 0.5).mean() > 0.1 and (np.abs(y) < 0.5).mean() > 0.2
    assert np.abs(y).max() < 0.9999

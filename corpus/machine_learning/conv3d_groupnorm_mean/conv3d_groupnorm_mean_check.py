"""conv3d_groupnorm_mean's independent check: jax.lax.conv_general_dilated in three dimensions,
the group statistics with jnp in float64 over a (sample, group, ...) reshape, and the mean;
scipy.signal.correlate per volume and filter with math.fsum statistics; the limits G = 1 and
G = K."""

import math

import numpy as np
import scipy.signal

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, judged, run


def _jax(v, g):
    jax, jnp = jax_numpy()
    x, w, b, gamma, beta = (jnp.asarray(v[n], dtype=jnp.float64) for n in ("x", "weight", "bias", "gamma", "beta"))
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1, 1, 1), padding="VALID",
                                     dimension_numbers=("NCDHW", "OIDHW", "NCDHW")) + b[None, :, None, None, None]
    n, k = y.shape[:2]
    blocks = y.reshape(n, g, -1)
    mean = blocks.mean(axis=2, keepdims=True)
    var = ((blocks - mean) ** 2).mean(axis=2, keepdims=True)
    z = ((blocks - mean) / jnp.sqrt(var + float(v["eps"]))).reshape(y.shape)
    z = z * gamma[None, :, None, None, None] + beta[None, :, None, None, None]
    return np.asarray(z.mean(axis=(1, 2, 3, 4)))


@each(sizes=[{"N": 3, "C": 3, "D": 6, "H": 7, "W": 5, "K": 8, "T": 3, "R": 3, "S": 3, "G": 4},
             {"N": 4, "C": 2, "D": 5, "H": 4, "W": 8, "K": 6, "T": 2, "R": 1, "S": 4, "G": 3}], seed=SEEDS)
def check_against_jax(kernel, sizes, seed):
    v, out = run(kernel, sizes, seed)
    expected = _jax(v, sizes["G"])
    assert out["out"].shape == expected.shape
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})
    # The samples differ by far more than the band: the constant mean(beta) is no answer.
    assert np.ptp(expected) > 100 * 1e-4 * np.abs(expected).max()
    assert not judged(kernel, out, {"out": np.full_like(expected, float(np.mean(v["beta"].astype(np.float64))))})


@each(seed=SEEDS)
def check_against_scipy_and_fsum(kernel, seed):
    n_, k_, g_ = 3, 4, 2
    sizes = {"N": n_, "C": 2, "D": 5, "H": 6, "W": 4, "K": k_, "T": 2, "R": 3, "S": 2, "G": g_}
    v, out = run(kernel, sizes, seed)
    x, w, b, gamma, beta = (v[n].astype(np.float64) for n in ("x", "weight", "bias", "gamma", "beta"))
    eps = float(v["eps"])
    kg = k_ // g_
    expected = np.empty(n_)
    for n in range(n_):
        y = [scipy.signal.correlate(x[n], w[f], mode="valid")[0] + b[f] for f in range(k_)]
        total = []
        for grp in range(g_):
            block = [float(t) for f in range(grp * kg, (grp + 1) * kg) for t in y[f].ravel()]
            mean = math.fsum(block) / len(block)
            std = math.sqrt(math.fsum((t - mean) ** 2 for t in block) / len(block) + eps)
            for f in range(grp * kg, (grp + 1) * kg):
                total += [(float(t) - mean) / std * gamma[f] + beta[f] for t in y[f].ravel()]
        expected[n] = math.fsum(total) / len(total)
    assert_close(kernel, out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(groups=[1, 6])
def check_one_group_and_one_channel_per_group(kernel, groups):
    sizes = {"N": 3, "C": 2, "D": 4, "H": 5, "W": 5, "K": 6, "T": 3, "R": 3, "S": 3, "G": groups}
    v, out = run(kernel, sizes, 1)
    assert_close(kernel, out["out"], _jax(v, groups))


def check_edge_shape(kernel):
    v, out = run(kernel, {"N": 1, "C": 1, "D": 3, "H": 1, "W": 7, "K": 2, "T": 3, "R": 1, "S": 2, "G": 1}, 0)
    assert_close(kernel, out["out"], _jax(v, 1))

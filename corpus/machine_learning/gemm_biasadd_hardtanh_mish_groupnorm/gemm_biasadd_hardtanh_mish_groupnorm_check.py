"""gemm_biasadd_hardtanh_mish_groupnorm's independent check: the layer in float64 with
jnp.einsum, the two biases, jax.nn.hard_tanh, Mish as z tanh(jax.nn.softplus(z)), and
jax.nn.standardize over each (row, group) block (jitted, at one small size and several seeds),
and explicit loops over the (row, group) blocks in float64 at edge sizes and the limits
G = 1 and G = F."""

import functools
import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_close, assert_judged_like_an_oracle, each, jax_numpy, run

NAMES = ("x", "W", "bias", "add_bias", "gamma", "beta", "eps")


@functools.lru_cache(maxsize=None)
def _jitted(groups):
    jax, jnp = jax_numpy()

    @jax.jit
    def layer(x, W, bias, add_bias, gamma, beta, eps):
        h = jax.nn.hard_tanh(jnp.einsum("bi,fi->bf", x, W) + bias + add_bias)
        h = h * jnp.tanh(jax.nn.softplus(h))
        b, f = h.shape
        z = jax.nn.standardize(h.reshape(b, groups, f // groups), axis=2, epsilon=eps).reshape(b, f)
        return z * gamma + beta

    return layer


def _jax(v, groups):
    _, jnp = jax_numpy()
    return np.asarray(_jitted(groups)(*(jnp.asarray(v[n], dtype=jnp.float64) for n in NAMES)))


def _loops(v, groups):
    x, W, bias, add_bias = (v[n].astype(np.float64) for n in ("x", "W", "bias", "add_bias"))
    h = np.clip(np.einsum("bi,fi->bf", x, W) + bias + add_bias, -1.0, 1.0)
    h = h * np.tanh(np.logaddexp(0.0, h))
    b, f = h.shape
    cg = f // groups
    y = np.empty_like(h)
    for r in range(b):
        for k in range(groups):
            block = [float(t) for t in h[r, k * cg:(k + 1) * cg]]
            mean = math.fsum(block) / cg
            rstd = 1.0 / math.sqrt(math.fsum((t - mean) ** 2 for t in block) / cg + float(v["eps"]))
            for c in range(k * cg, (k + 1) * cg):
                y[r, c] = (h[r, c] - mean) * rstd * float(v["gamma"][c]) + float(v["beta"][c])
    return y


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    v, out = run(kernel, {"B": 7, "IN": 40, "F": 24, "G": 4}, seed)
    pre = v["x"].astype(np.float64) @ v["W"].astype(np.float64).T + v["bias"] + v["add_bias"]
    assert 0.2 < np.mean(np.abs(pre) > 1.0) < 0.7
    y = _jax(v, 4)
    assert_close(kernel, out["out"], y)
    assert_judged_like_an_oracle(kernel, out, {"out": y})


@each(sizes=[(1, 1, 2, 1), (3, 1, 6, 3), (2, 13, 8, 1), (2, 5, 6, 6)])
def check_edge_sizes_and_group_limits(kernel, sizes):
    b, i, f, g = sizes
    v, out = run(kernel, {"B": b, "IN": i, "F": f, "G": g}, 1)
    assert_close(kernel, out["out"], _loops(v, g))

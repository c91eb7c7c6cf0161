"""groupnorm's independent check: jax.nn.standardize over each (sample, group) block in float64,
explicit loops over the blocks, and the two limits G = 1 and G = C."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax(v, g):
    jax, jnp = jax_numpy()
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    n, c, h, w = x.shape
    z = jax.nn.standardize(x.reshape(n, g, c // g, h, w), axis=(2, 3, 4), epsilon=float(v["eps"])).reshape(n, c, h, w)
    return np.asarray(z * jnp.asarray(v["gamma"], jnp.float64).reshape(1, c, 1, 1)
                      + jnp.asarray(v["beta"], jnp.float64).reshape(1, c, 1, 1))


@each(seed=SEEDS)
def check_against_jax_standardize(kernel, seed):
    sizes = {"N": 3, "C": 6, "G": 3, "H": 7, "W": 5}
    v, out = run(kernel, sizes, seed)
    y = _jax(v, 3)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n, c, g, h, w = 2, 8, 4, 3, 5
    v, out = run(kernel, {"N": n, "C": c, "G": g, "H": h, "W": w}, seed)
    x = v["x"].astype(np.float64)
    eps = float(v["eps"])
    y = np.empty_like(x)
    cg = c // g
    for s in range(n):
        for k in range(g):
            block = [float(t) for t in x[s, k * cg:(k + 1) * cg].ravel()]
            mean = math.fsum(block) / len(block)
            var = math.fsum((t - mean) ** 2 for t in block) / len(block)
            for ch in range(k * cg, (k + 1) * cg):
                y[s, ch] = (x[s, ch] - mean) / math.sqrt(var + eps) * float(v["gamma"][ch]) + float(v["beta"][ch])
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(groups=[1, 6])
def check_one_group_and_one_channel_per_group(kernel, groups):
    # G = 1 normalises each sample as a whole (LayerNorm over C, H, W), G = C each plane.
    v, out = run(kernel, {"N": 2, "C": 6, "G": groups, "H": 4, "W": 3}, 1)
    y = _jax(v, groups)
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


def check_edge_shape(kernel):
    v, out = run(kernel, {"N": 1, "C": 2, "G": 2, "H": 1, "W": 7}, 0)
    np.testing.assert_allclose(out["y"], _jax(v, 2), rtol=1e-5, atol=1e-5)

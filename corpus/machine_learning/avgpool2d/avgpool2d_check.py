"""avgpool2d's independent check: jax.lax.reduce_window (add) in float64 divided by K * K,
and exactly rounded window sums (math.fsum) in explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax_avgpool(x, K, S):
    jax, jnp = jax_numpy()
    y = jax.lax.reduce_window(jnp.asarray(x, dtype=jnp.float64), 0.0, jax.lax.add,
                              window_dimensions=(1, 1, K, K), window_strides=(1, 1, S, S),
                              padding="VALID")
    return np.asarray(y) / (K * K)


@each(shape=[(2, 3, 11, 9, 3, 2), (1, 2, 8, 8, 2, 2), (3, 1, 7, 10, 3, 1), (2, 2, 13, 12, 2, 3),
             (1, 1, 5, 6, 5, 4), (2, 1, 4, 4, 1, 1), (1, 2, 40, 33, 8, 3)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    N, C, H, W, K, S = shape
    v, out = run(kernel, {"N": N, "C": C, "H": H, "W": W, "K": K, "S": S}, seed)
    y = _jax_avgpool(v["x"], K, S)
    assert out["y"].shape == y.shape == (N, C, (H - K) // S + 1, (W - K) // S + 1)
    # At most 64 float32 terms of order one per window: a few ulps of the largest term.
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5 * np.abs(y).max())
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    N, C, H, W, K, S = 2, 2, 9, 11, 3, 2
    v, out = run(kernel, {"N": N, "C": C, "H": H, "W": W, "K": K, "S": S}, seed)
    x = v["x"].tolist()
    Ho, Wo = (H - K) // S + 1, (W - K) // S + 1
    y = [[[[math.fsum(x[n][c][i * S + di][j * S + dj] for di in range(K) for dj in range(K)) / (K * K)
            for j in range(Wo)] for i in range(Ho)] for c in range(C)] for n in range(N)]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"y": np.array(y)})

"""avgpool1d's independent check: jax.lax.reduce_window (add, zero padding) in float64 divided by
K, and exactly rounded window sums (math.fsum) over the positions inside the sequence, in
explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


# (N, C, L, K, S, P)
@each(shape=[(2, 3, 37, 4, 2, 1), (1, 2, 16, 2, 2, 1), (3, 1, 10, 3, 1, 1), (2, 2, 29, 5, 3, 2),
             (1, 1, 7, 7, 4, 3), (2, 1, 5, 1, 1, 0), (1, 2, 100, 3, 7, 0), (1, 2, 3, 2, 1, 1)],
      seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    N, C, L, K, S, P = shape
    v, out = run(kernel, {"N": N, "C": C, "L": L, "K": K, "S": S, "P": P}, seed)
    y = np.asarray(jax.lax.reduce_window(jnp.asarray(v["x"], dtype=jnp.float64), 0.0, jax.lax.add,
                                         window_dimensions=(1, 1, K), window_strides=(1, 1, S),
                                         padding=((0, 0), (0, 0), (P, P)))) / K
    assert out["y"].shape == y.shape == (N, C, (L + 2 * P - K) // S + 1)
    # At most 7 float32 terms of order one per window: a few ulps of the largest term.
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5 * np.abs(y).max())
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    N, C, L, K, S, P = 2, 3, 23, 4, 2, 1
    v, out = run(kernel, {"N": N, "C": C, "L": L, "K": K, "S": S, "P": P}, seed)
    x = v["x"].tolist()
    y = [[[math.fsum(x[n][c][j * S - P + d] for d in range(K) if 0 <= j * S - P + d < L) / K
           for j in range((L + 2 * P - K) // S + 1)] for c in range(C)] for n in range(N)]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"y": np.array(y)})

"""maxpool1d's independent check: jax.lax.reduce_window (max) in float64, and explicit loops
over every window."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(2, 3, 37, 4, 2), (1, 2, 16, 2, 2), (3, 1, 10, 3, 1), (2, 2, 29, 5, 3),
             (1, 1, 7, 7, 4), (2, 1, 5, 1, 1), (1, 2, 100, 3, 7)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    N, C, L, K, S = shape
    v, out = run(kernel, {"N": N, "C": C, "L": L, "K": K, "S": S}, seed)
    y = np.asarray(jax.lax.reduce_window(jnp.asarray(v["x"], dtype=jnp.float64), -jnp.inf, jax.lax.max,
                                         window_dimensions=(1, 1, K), window_strides=(1, 1, S),
                                         padding="VALID"))
    assert out["y"].shape == y.shape == (N, C, (L - K) // S + 1)
    # The maximum is one of the inputs: exact.
    np.testing.assert_array_equal(out["y"], y)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    N, C, L, K, S = 2, 3, 23, 4, 2
    v, out = run(kernel, {"N": N, "C": C, "L": L, "K": K, "S": S}, seed)
    x = v["x"].tolist()
    y = [[[max(x[n][c][j * S:j * S + K]) for j in range((L - K) // S + 1)] for c in range(C)] for n in range(N)]
    np.testing.assert_array_equal(out["y"], np.array(y, dtype=np.float32))

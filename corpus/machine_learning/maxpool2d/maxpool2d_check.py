"""maxpool2d's independent check: jax.lax.reduce_window (max) in float64, and explicit loops
over every window."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _jax_maxpool(x, K, S):
    jax, jnp = jax_numpy()
    y = jax.lax.reduce_window(jnp.asarray(x, dtype=jnp.float64), -jnp.inf, jax.lax.max,
                              window_dimensions=(1, 1, K, K), window_strides=(1, 1, S, S),
                              padding="VALID")
    return np.asarray(y)


@each(shape=[(2, 3, 11, 9, 3, 2), (1, 2, 8, 8, 2, 2), (3, 1, 7, 10, 3, 1), (2, 2, 13, 12, 2, 3),
             (1, 1, 5, 6, 5, 4), (2, 1, 4, 4, 1, 1)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    N, C, H, W, K, S = shape
    v, out = run(kernel, {"N": N, "C": C, "H": H, "W": W, "K": K, "S": S}, seed)
    y = _jax_maxpool(v["x"], K, S)
    assert out["y"].shape == y.shape == (N, C, (H - K) // S + 1, (W - K) // S + 1)
    # The maximum is one of the inputs: exact.
    np.testing.assert_array_equal(out["y"], y)
    assert_judged_like_an_oracle(kernel, out, {"y": y})


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    N, C, H, W, K, S = 2, 2, 9, 11, 3, 2
    v, out = run(kernel, {"N": N, "C": C, "H": H, "W": W, "K": K, "S": S}, seed)
    x = v["x"].tolist()
    Ho, Wo = (H - K) // S + 1, (W - K) // S + 1
    y = [[[[max(x[n][c][i * S + di][j * S + dj] for di in range(K) for dj in range(K))
            for j in range(Wo)] for i in range(Ho)] for c in range(C)] for n in range(N)]
    np.testing.assert_array_equal(out["y"], np.array(y, dtype=np.float32))

"""argmin_dim's independent check: jnp.argmin over the middle axis, and an explicit scan of
each (b, k) column, compared exactly."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


def _unique_minima(X):
    return np.all(np.sum(X == X.min(axis=1, keepdims=True), axis=1) == 1)


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 3, "D1": 301, "D2": 17}, seed)
    assert _unique_minima(v["X"])
    expected = np.asarray(jnp.argmin(jnp.asarray(v["X"], dtype=jnp.float64), axis=1)).astype(np.int64)
    assert out["out"].dtype == np.int64 and out["out"].shape == (3, 17)
    np.testing.assert_array_equal(out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(sizes=[(1, 1, 1), (2, 1, 5), (1, 7, 1), (3, 64, 9), (2, 1000, 3)])
def check_edge_sizes_against_loops(kernel, sizes):
    b, d1, d2 = sizes
    v, out = run(kernel, {"B": b, "D1": d1, "D2": d2}, 4)
    assert _unique_minima(v["X"])
    X = v["X"].tolist()
    expected = np.empty((b, d2), dtype=np.int64)
    for i in range(b):
        for k in range(d2):
            best, at = X[i][0][k], 0
            for j in range(1, d1):
                if X[i][j][k] < best:
                    best, at = X[i][j][k], j
            expected[i, k] = at
    np.testing.assert_array_equal(out["out"], expected)


def check_ties_are_drawn_again(kernel):
    # At a reduction length where float32 uniforms often repeat their minimum, every one is unique.
    v, _ = run(kernel, {"B": 4, "D1": 65536, "D2": 64}, 0)
    assert _unique_minima(v["X"])

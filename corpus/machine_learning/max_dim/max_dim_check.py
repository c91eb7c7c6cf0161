"""max_dim's independent check: jnp.max over the middle axis, and an explicit scan of each
(b, k) column, compared exactly (the maximum is one of the inputs)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 3, "D1": 301, "D2": 17}, seed)
    expected = np.asarray(jnp.max(jnp.asarray(v["X"], dtype=jnp.float64), axis=1))
    assert out["out"].shape == (3, 17)
    np.testing.assert_array_equal(out["out"], expected)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(sizes=[(1, 1, 1), (2, 1, 5), (1, 7, 1), (3, 64, 9), (2, 1000, 3)])
def check_edge_sizes_against_loops(kernel, sizes):
    b, d1, d2 = sizes
    v, out = run(kernel, {"B": b, "D1": d1, "D2": d2}, 3)
    X = v["X"].tolist()
    expected = np.empty((b, d2))
    for i in range(b):
        for k in range(d2):
            best = X[i][0][k]
            for j in range(1, d1):
                if X[i][j][k] > best:
                    best = X[i][j][k]
            expected[i, k] = best
    np.testing.assert_array_equal(out["out"], expected)
    if b * d2 > 1:
        assert_judged_like_an_oracle(kernel, out, {"out": expected})

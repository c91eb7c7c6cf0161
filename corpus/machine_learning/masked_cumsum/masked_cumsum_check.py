"""masked_cumsum's independent check: jnp.cumsum of jnp.where(mask, x, 0) in float64, and
math.fsum of each masked prefix."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 1003}, seed)
    assert v["mask"].dtype == np.bool_ and 0.1 < v["mask"].mean() < 0.9
    x = jnp.asarray(v["x"], dtype=jnp.float64)
    expected = np.asarray(jnp.cumsum(jnp.where(jnp.asarray(v["mask"]), x, 0.0), axis=1))
    np.testing.assert_allclose(out["out"], expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())
    assert_judged_like_an_oracle(kernel, out, {"out": expected})
    # Ignoring the mask is not the answer.
    unmasked = np.cumsum(v["x"].astype(np.float64), axis=1)
    assert not np.allclose(out["out"], unmasked, rtol=1e-3)


@each(sizes=[(1, 1), (5, 1), (1, 31), (3, 128)])
def check_edge_sizes_against_fsum(kernel, sizes):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, 5)
    rows = v["x"].astype(np.float64).tolist()
    keep = v["mask"].tolist()
    expected = np.array([[math.fsum(t for t, m in zip(row[: j + 1], km[: j + 1]) if m) for j in range(n)]
                         for row, km in zip(rows, keep)])
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-6)
    if np.any(expected != 0.0):
        assert_judged_like_an_oracle(kernel, out, {"out": expected})

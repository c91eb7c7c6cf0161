"""mean_dim's independent check: jnp.mean in float64 over the middle axis, and math.fsum of
each (b, k) column."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 3, "D1": 301, "D2": 17}, seed)
    expected = np.asarray(jnp.mean(jnp.asarray(v["X"], dtype=jnp.float64), axis=1))
    assert out["out"].shape == (3, 17)
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(sizes=[(1, 1, 1), (2, 1, 5), (1, 7, 1), (3, 64, 9), (2, 1000, 3)])
def check_edge_sizes_against_fsum(kernel, sizes):
    b, d1, d2 = sizes
    v, out = run(kernel, {"B": b, "D1": d1, "D2": d2}, 3)
    X = v["X"].astype(np.float64)
    expected = np.array([[math.fsum(X[i, :, k].tolist()) / d1 for k in range(d2)] for i in range(b)])
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})

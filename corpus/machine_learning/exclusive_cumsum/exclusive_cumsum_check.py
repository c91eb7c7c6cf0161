"""exclusive_cumsum's independent check: jnp.cumsum of X with a zero column prepended (the
KernelBench construction) in float64, and math.fsum of each prefix."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 1003}, seed)
    X = jnp.asarray(v["X"], dtype=jnp.float64)
    padded = jnp.concatenate([jnp.zeros((9, 1), dtype=jnp.float64), X], axis=1)
    expected = np.asarray(jnp.cumsum(padded, axis=1)[:, :-1])
    assert out["out"].shape == (9, 1003) and np.all(out["out"][:, 0] == 0.0)
    np.testing.assert_allclose(out["out"], expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(sizes=[(1, 1), (5, 1), (4, 2), (1, 31), (3, 128)])
def check_edge_sizes_against_fsum(kernel, sizes):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, 5)
    rows = v["X"].astype(np.float64).tolist()
    expected = np.array([[math.fsum(row[:j]) for j in range(n)] for row in rows])
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-6)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"out": expected})

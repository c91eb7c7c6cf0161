"""sum_dim's independent check: jnp.sum in float64, and math.fsum per row."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 1001}, seed)
    expected = np.asarray(jnp.sum(jnp.asarray(v["X"], dtype=jnp.float64), axis=1, keepdims=True))
    assert out["out"].shape == (9, 1)
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-4)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(sizes=[(1, 1), (7, 1), (1, 257), (13, 64)])
def check_edge_sizes_against_fsum(kernel, sizes):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, 3)
    expected = np.array([[math.fsum(float(t) for t in row)] for row in v["X"]])
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(kernel, out, {"out": expected})

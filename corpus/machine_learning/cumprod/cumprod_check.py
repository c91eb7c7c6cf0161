"""cumprod's independent check: jnp.cumprod in float64, and exp of summed logarithms."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(seed=SEEDS)
def check_against_jax(kernel, seed):
    _, jnp = jax_numpy()
    v, out = run(kernel, {"B": 9, "N": 2001}, seed)
    expected = np.asarray(jnp.cumprod(jnp.asarray(v["X"], dtype=jnp.float64), axis=1))
    # The products wander away from one, so this is no near-constant output.
    assert expected.max() / expected.min() > 1.5
    np.testing.assert_allclose(out["out"], expected, rtol=1e-4, atol=1e-5 * np.abs(expected).max())
    assert_judged_like_an_oracle(kernel, out, {"out": expected})


@each(sizes=[(1, 1), (5, 1), (1, 31), (3, 300)])
def check_edge_sizes_against_logs(kernel, sizes):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, 6)
    rows = v["X"].astype(np.float64).tolist()
    expected = np.array([[math.exp(math.fsum(math.log(t) for t in row[: j + 1])) for j in range(n)] for row in rows])
    np.testing.assert_allclose(out["out"], expected, rtol=1e-5, atol=1e-6)
    if b * n > 1:
        assert_judged_like_an_oracle(kernel, out, {"out": expected})

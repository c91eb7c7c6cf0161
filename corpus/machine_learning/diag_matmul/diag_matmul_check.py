"""diag_matmul's independent check: jnp.diag(d) @ B in float64 from the float32 inputs, and the
row scaling it equals."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(9, 23), (64, 40), (1, 1), (3, 1)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    n, m = shape
    v, out = run(kernel, {"N": n, "M": m}, seed)
    d, B = jnp.asarray(v["d"], dtype=jnp.float64), jnp.asarray(v["B"], dtype=jnp.float64)
    C = np.asarray(jnp.matmul(jnp.diag(d), B))
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    # One non-zero term per sum: the float32 product is the rounded row scaling, exactly.
    np.testing.assert_array_equal(out["C"], v["d"][:, None] * v["B"])
    if n * m > 1:
        assert_judged_like_an_oracle(kernel, out, {"C": C})

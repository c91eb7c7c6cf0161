"""tensor4d_matmul's independent check: jnp.einsum("bijl,lk->bijk") in float64 from the float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(2, 3, 5, 16, 7), (1, 4, 9, 3, 6), (3, 1, 1, 1, 2), (2, 2, 4, 33, 1)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    b, ni, nj, nl, nk = shape
    v, out = run(kernel, {"BATCH": b, "NI": ni, "NJ": nj, "NL": nl, "NK": nk}, seed)
    C = np.asarray(jnp.einsum("bijl,lk->bijk", jnp.asarray(v["A"], dtype=jnp.float64),
                              jnp.asarray(v["B"], dtype=jnp.float64)))
    assert out["C"].shape == C.shape == (b, ni, nj, nk)
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})

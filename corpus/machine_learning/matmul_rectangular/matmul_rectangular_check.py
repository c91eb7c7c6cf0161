"""matmul_rectangular's independent check: jnp.einsum in float64 from the float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(17, 67, 33), (40, 130, 9), (1, 5, 3), (3, 1, 2)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    m, k, n = shape
    v, out = run(kernel, {"M": m, "K": k, "N": n}, seed)
    C = np.asarray(jnp.einsum("mk,kn->mn", jnp.asarray(v["A"], dtype=jnp.float64),
                              jnp.asarray(v["B"], dtype=jnp.float64)))
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})

"""matvec's independent check: jnp.einsum in float64 from the float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(13, 4099), (64, 8192), (1, 1), (5, 3)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    m, k = shape
    v, out = run(kernel, {"M": m, "K": k}, seed)
    y = np.asarray(jnp.einsum("mk,k->m", jnp.asarray(v["A"], dtype=jnp.float64),
                              jnp.asarray(v["x"], dtype=jnp.float64)))
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5 * np.abs(y).max())
    if m > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": y})

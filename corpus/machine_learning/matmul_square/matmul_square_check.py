"""matmul_square's independent check: jnp.matmul in float64 from the float32 inputs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(n=[1, 7, 33, 64], seed=SEEDS)
def check_against_jax(kernel, n, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"N": n}, seed)
    C = np.asarray(jnp.matmul(jnp.asarray(v["A"], dtype=jnp.float64), jnp.asarray(v["B"], dtype=jnp.float64)))
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})

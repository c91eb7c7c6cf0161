"""matmul_large_k's independent check: jnp.matmul in float64 from the float32 inputs, and a
few elements as exactly rounded sums (math.fsum) at a longer K."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(shape=[(5, 4099, 7), (16, 20000, 3), (1, 1, 1)], seed=SEEDS)
def check_against_jax(kernel, shape, seed):
    jax, jnp = jax_numpy()
    m, k, n = shape
    v, out = run(kernel, {"M": m, "K": k, "N": n}, seed)
    C = np.asarray(jnp.matmul(jnp.asarray(v["A"], dtype=jnp.float64), jnp.asarray(v["B"], dtype=jnp.float64)))
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-4 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})


@each(seed=SEEDS)
def check_against_fsum(kernel, seed):
    m, k, n = 3, 100003, 2
    v, out = run(kernel, {"M": m, "K": k, "N": n}, seed)
    A, B = v["A"].astype(np.float64), v["B"].astype(np.float64)
    C = np.array([[math.fsum((A[i, :] * B[:, j]).tolist()) for j in range(n)] for i in range(m)])
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-4 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})

"""tril_matmul's independent check: jnp.tril(jnp.matmul(A, B)) in float64 from the float32
inputs, and the triangle sums C[i, j] = sum_{j <= k <= i} A[i, k] B[k, j] as explicit loops."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, jax_numpy, run


@each(n=[1, 2, 17, 64], seed=SEEDS)
def check_against_jax(kernel, n, seed):
    jax, jnp = jax_numpy()
    v, out = run(kernel, {"N": n}, seed)
    A, B = jnp.asarray(v["A"], dtype=jnp.float64), jnp.asarray(v["B"], dtype=jnp.float64)
    C = np.asarray(jnp.tril(jnp.matmul(A, B)))
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"C": C})


@each(seed=SEEDS)
def check_against_triangle_loops(kernel, seed):
    n = 23
    v, out = run(kernel, {"N": n}, seed)
    assert not np.triu(v["A"], 1).any() and not np.triu(v["B"], 1).any()
    A, B = v["A"].astype(np.float64).tolist(), v["B"].astype(np.float64).tolist()
    C = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            C[i, j] = math.fsum(A[i][k] * B[k][j] for k in range(j, i + 1))
    np.testing.assert_array_equal(np.triu(out["C"], 1), 0.0)
    np.testing.assert_allclose(out["C"], C, rtol=1e-4, atol=1e-5 * np.abs(C).max())
    assert_judged_like_an_oracle(kernel, out, {"C": C})

"""cholesky's independent check: LAPACK's factor (numpy.linalg.cholesky), and L L^T = A."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 17, 64], seed=SEEDS)
def check_against_lapack(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A, L = v["A"], out["L"]
    np.testing.assert_array_equal(A, A.T)
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(np.triu(L, 1), 0.0)
    np.testing.assert_allclose(L @ L.T, A, rtol=1e-12, atol=1e-13)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"L": np.linalg.cholesky(A)})

"""s115_triangular's independent check: the TSVC double loop over Python lists in float64,
and the same solve as a unit lower-triangular system solved by scipy."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_loops(kernel, seed):
    n = 41
    v, out = run(kernel, {"N": n}, seed)
    a, aa = v["a"].astype(np.float64).tolist(), v["aa"].astype(np.float64).tolist()
    for j in range(n):
        for i in range(j + 1, n):
            a[i] -= aa[j][i] * a[j]
    np.testing.assert_allclose(out["a"], a, rtol=1e-5, atol=1e-6)
    assert_judged_like_an_oracle(kernel, out, {"a": np.array(a)})


@each(seed=SEEDS)
def check_against_triangular_solve(kernel, seed):
    n = 301
    v, out = run(kernel, {"N": n}, seed)
    lower = np.triu(v["aa"].astype(np.float64), 1).T + np.eye(n)
    x = scipy.linalg.solve_triangular(lower, v["a"].astype(np.float64), lower=True, unit_diagonal=True)
    np.testing.assert_allclose(out["a"], x, rtol=1e-5, atol=1e-5)

"""lu's independent check: PolyBench/C's loop nest (row by row) over Python floats, LAPACK's
LU (scipy.linalg.lu: its partial pivoting never swaps rows on these matrices), and L U = A."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def polybench_lu(A):
    a, n = A.tolist(), len(A)
    for i in range(n):
        for j in range(i):
            for k in range(j):
                a[i][j] -= a[i][k] * a[k][j]
            a[i][j] /= a[j][j]
        for j in range(i, n):
            for k in range(i):
                a[i][j] -= a[i][k] * a[k][j]
    return np.array(a).reshape(n, n)


@each(n=[1, 2, 3, 17, 40], seed=SEEDS)
def check_against_loops_and_lapack(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A, got = v["A"], out["A"]
    expected = polybench_lu(A)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    P, L, U = scipy.linalg.lu(A)
    np.testing.assert_array_equal(P, np.eye(n))
    np.testing.assert_allclose(np.tril(got, -1) + np.eye(n), L, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.triu(got), U, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose((np.tril(got, -1) + np.eye(n)) @ np.triu(got), A, rtol=1e-12, atol=1e-13)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"A": expected})

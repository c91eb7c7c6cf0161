"""gaussian's independent check: LAPACK (numpy.linalg.solve for x; scipy's LU, which makes
no row exchange on a column diagonally dominant matrix, for the reduced matrix, the
multipliers and the reduced right-hand side), and Rodinia's Fan1 / Fan2 / BackSub loops
transcribed element by element in plain Python at small sizes."""

import numpy as np
import scipy.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _rodinia_loops(A0, b0, N):
    a = A0.tolist()
    b = b0.tolist()
    m = [[0.0] * N for _ in range(N)]
    for t in range(N - 1):
        for i in range(t + 1, N):                       # Fan1
            m[i][t] = a[i][t] / a[t][t]
        for i in range(t + 1, N):                       # Fan2, columns t .. N - 1
            for j in range(t, N):
                a[i][j] -= m[i][t] * a[t][j]
            b[i] -= m[i][t] * b[t]
    x = [0.0] * N
    for i in range(N):                                  # BackSub
        r = N - i - 1
        x[r] = b[r]
        for j in range(i):
            x[r] -= a[r][N - j - 1] * x[N - j - 1]
        x[r] /= a[r][r]
    return np.array(a), np.array(b), np.array(m), np.array(x)


@each(n=[1, 2, 3, 17, 64], seed=SEEDS)
def check_against_rodinia_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    a, b, m, x = _rodinia_loops(v["A"], v["b"], n)
    scale = np.abs(v["A"]).max()
    # Column t below the diagonal: Rodinia leaves the rounding residue of A[i, t] - m A[t, t].
    np.testing.assert_allclose(np.tril(a, -1), 0.0, atol=1e-14 * scale)
    np.testing.assert_allclose(out["A"], np.triu(a), rtol=1e-12, atol=1e-14 * scale)
    np.testing.assert_allclose(out["b"], b, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out["m"], m, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out["x"], x, rtol=1e-12, atol=1e-14)
    if n > 2:
        assert_judged_like_an_oracle(kernel, out, {"A": np.triu(a), "b": b, "m": m, "x": x})


@each(n=[1, 5, 100, 300], seed=SEEDS)
def check_against_lapack(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A0, b0 = v["A"], v["b"]
    x = np.linalg.solve(A0, b0)
    P, L, U = scipy.linalg.lu(A0)
    np.testing.assert_array_equal(P, np.eye(n))                     # no pivoting needed
    y = scipy.linalg.solve_triangular(L, b0, lower=True, unit_diagonal=True)
    np.testing.assert_allclose(out["x"], x, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(out["A"], U, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(out["m"], np.tril(L, -1), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(out["b"], y, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(A0 @ out["x"], b0, rtol=0, atol=1e-12 * np.abs(b0).max())
    if n > 2:
        assert_judged_like_an_oracle(kernel, out, {"A": U, "b": y, "m": np.tril(L, -1), "x": x})

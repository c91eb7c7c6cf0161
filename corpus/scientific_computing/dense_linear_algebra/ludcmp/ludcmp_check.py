"""ludcmp's independent check: PolyBench/C's loop nests (LU row by row, then the two
substitutions) over Python floats, LAPACK's solve (numpy.linalg.solve, with pivoting), and
the residuals A x = b, L y = b."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def polybench_ludcmp(A, b):
    a, n = A.tolist(), len(A)
    for i in range(n):
        for j in range(i):
            w = a[i][j]
            for k in range(j):
                w -= a[i][k] * a[k][j]
            a[i][j] = w / a[j][j]
        for j in range(i, n):
            w = a[i][j]
            for k in range(i):
                w -= a[i][k] * a[k][j]
            a[i][j] = w
    y = [0.0] * n
    for i in range(n):
        w = float(b[i])
        for j in range(i):
            w -= a[i][j] * y[j]
        y[i] = w
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        w = y[i]
        for j in range(i + 1, n):
            w -= a[i][j] * x[j]
        x[i] = w / a[i][i]
    return np.array(a).reshape(n, n), np.array(x), np.array(y)


@each(n=[1, 2, 3, 17, 40], seed=SEEDS)
def check_against_loops_and_lapack(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    A, b = v["A"], v["b"]
    a, x, y = polybench_ludcmp(A, b)
    np.testing.assert_allclose(out["A"], a, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out["x"], x, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(out["y"], y, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(out["x"], np.linalg.solve(A, b), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(A @ out["x"], b, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose((np.tril(out["A"], -1) + np.eye(n)) @ out["y"], b, rtol=1e-11, atol=1e-12)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"A": a, "x": x, "y": y})

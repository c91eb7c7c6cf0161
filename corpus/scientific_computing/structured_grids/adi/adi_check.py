"""adi's independent check: PolyBench/C's loop nest over Python lists, and each sweep as the
tridiagonal systems it solves, handed to LAPACK's banded solver (scipy.linalg.solve_banded)."""

import numpy as np
from scipy.linalg import solve_banded

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _coefficients(steps, n):
    dx = 1.0 / n
    dt = 1.0 / steps
    mul1 = 2.0 * dt / (dx * dx)
    mul2 = 1.0 * dt / (dx * dx)
    return -mul1 / 2.0, 1.0 + mul1, -mul1 / 2.0, -mul2 / 2.0, 1.0 + mul2, -mul2 / 2.0


@each(size=[(1, 3), (2, 4), (3, 9), (4, 16)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    steps, n = size
    v_, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    a, b, c, d, e, f = _coefficients(steps, n)
    u = v_["u"].tolist()
    v = [[0.0] * n for _ in range(n)]
    p = [[0.0] * n for _ in range(n)]
    q = [[0.0] * n for _ in range(n)]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[0][i] = 1.0
            p[i][0] = 0.0
            q[i][0] = v[0][i]
            for j in range(1, n - 1):
                p[i][j] = -c / (a * p[i][j - 1] + b)
                q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1]
                           - a * q[i][j - 1]) / (a * p[i][j - 1] + b)
            v[n - 1][i] = 1.0
            for j in range(n - 2, 0, -1):
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j]
        for i in range(1, n - 1):
            u[i][0] = 1.0
            p[i][0] = 0.0
            q[i][0] = u[i][0]
            for j in range(1, n - 1):
                p[i][j] = -f / (d * p[i][j - 1] + e)
                q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j]
                           - d * q[i][j - 1]) / (d * p[i][j - 1] + e)
            u[i][n - 1] = 1.0
            for j in range(n - 2, 0, -1):
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j]
    np.testing.assert_allclose(out["u"], u, rtol=1e-12, atol=1e-13)
    assert_judged_like_an_oracle(kernel, out, {"u": np.array(u)})


def _solve_lines(lo, diag, up, rhs):
    # The systems lo x[j-1] + diag x[j] + up x[j+1] = rhs[j], j = 1..m, with x[0] = x[m+1] = 1,
    # one per column of rhs (m x k); returns x[1..m].
    m = rhs.shape[0]
    r = rhs.copy()
    r[0] -= lo * 1.0
    r[m - 1] -= up * 1.0
    bands = np.zeros((3, m))
    bands[0, 1:] = up
    bands[1, :] = diag
    bands[2, :-1] = lo
    return solve_banded((1, 1), bands, r)


@each(size=[(1, 5), (3, 12), (6, 31), (20, 40)], seed=SEEDS)
def check_against_banded_solves(kernel, size, seed):
    steps, n = size
    v_, out = run(kernel, {"TSTEPS": steps, "N": n}, seed)
    a, b, c, d, e, f = _coefficients(steps, n)
    u = v_["u"].copy()
    for _ in range(steps):
        # Column sweep: column i of v solves a v[j-1, i] + b v[j, i] + c v[j+1, i] = the
        # explicit second-index difference of u at (j, i); v's first and last rows are 1.
        v = np.ones((n, n))
        rhs = -d * u[1:n - 1, 0:n - 2] + (1.0 + 2.0 * d) * u[1:n - 1, 1:n - 1] - f * u[1:n - 1, 2:n]
        v[1:n - 1, 1:n - 1] = _solve_lines(a, b, c, rhs)
        # Row sweep: row i of u solves d u[i, j-1] + e u[i, j] + f u[i, j+1] = the explicit
        # first-index difference of v at (i, j); u's first and last columns become 1.
        rhs = -a * v[0:n - 2, 1:n - 1] + (1.0 + 2.0 * a) * v[1:n - 1, 1:n - 1] - c * v[2:n, 1:n - 1]
        u[1:n - 1, 0] = 1.0
        u[1:n - 1, n - 1] = 1.0
        u[1:n - 1, 1:n - 1] = _solve_lines(d, e, f, rhs.T).T
    np.testing.assert_allclose(out["u"], u, rtol=1e-10, atol=1e-11)
    assert_judged_like_an_oracle(kernel, out, {"u": u})

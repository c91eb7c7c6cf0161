"""vadv's independent check: each column's tridiagonal system written out from the scheme,
solved by a textbook Thomas loop over Python floats and by LAPACK's banded solver
(scipy.linalg.solve_banded)."""

import numpy as np
from scipy.linalg import solve_banded

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _system(v, i, j, nk):
    # Row k: a[k] x[k-1] + b[k] x[k] + c[k] x[k+1] = d[k], with the centred weights 1/2.
    w, us = v["wcon"], v["u_stage"]
    dtr = float(v["dtr_stage"])
    a, b, c, d = [0.0] * nk, [0.0] * nk, [0.0] * nk, [0.0] * nk
    for k in range(nk):
        lower = -0.25 * (float(w[i + 1, j, k]) + float(w[i, j, k])) if k > 0 else 0.0
        upper = 0.25 * (float(w[i + 1, j, k + 1]) + float(w[i, j, k + 1])) if k < nk - 1 else 0.0
        a[k] = 0.5 * lower
        c[k] = 0.5 * upper
        b[k] = dtr - a[k] - c[k]
        rhs = dtr * float(v["u_pos"][i, j, k]) + float(v["utens"][i, j, k]) + float(v["utens_stage"][i, j, k])
        if k > 0:
            rhs -= 0.5 * lower * (float(us[i, j, k - 1]) - float(us[i, j, k]))
        if k < nk - 1:
            rhs -= 0.5 * upper * (float(us[i, j, k + 1]) - float(us[i, j, k]))
        d[k] = rhs
    return a, b, c, d


def _thomas(a, b, c, d):
    n = len(d)
    cp, dp = [0.0] * n, [0.0] * n
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for k in range(1, n):
        den = b[k] - a[k] * cp[k - 1]
        cp[k] = c[k] / den
        dp[k] = (d[k] - a[k] * dp[k - 1]) / den
    x = [0.0] * n
    x[n - 1] = dp[n - 1]
    for k in range(n - 2, -1, -1):
        x[k] = dp[k] - cp[k] * x[k + 1]
    return x


@each(size=[(1, 1, 2), (2, 3, 3), (3, 2, 7), (4, 5, 16)], seed=SEEDS)
def check_against_thomas_loops(kernel, size, seed):
    ni, nj, nk = size
    v, out = run(kernel, {"NI": ni, "NJ": nj, "NK": nk}, seed)
    dtr = float(v["dtr_stage"])
    expected = np.empty((ni, nj, nk))
    for i in range(ni):
        for j in range(nj):
            x = _thomas(*_system(v, i, j, nk))
            for k in range(nk):
                expected[i, j, k] = dtr * (x[k] - float(v["u_pos"][i, j, k]))
    np.testing.assert_allclose(out["utens_stage"], expected, rtol=1e-12, atol=1e-13)
    assert_judged_like_an_oracle(kernel, out, {"utens_stage": expected})


@each(size=[(2, 2, 2), (3, 4, 9), (5, 3, 33)], seed=SEEDS)
def check_against_banded_solver(kernel, size, seed):
    ni, nj, nk = size
    v, out = run(kernel, {"NI": ni, "NJ": nj, "NK": nk}, seed)
    dtr = float(v["dtr_stage"])
    expected = np.empty((ni, nj, nk))
    for i in range(ni):
        for j in range(nj):
            a, b, c, d = _system(v, i, j, nk)
            bands = np.zeros((3, nk))
            bands[0, 1:] = c[:-1]
            bands[1, :] = b
            bands[2, :-1] = a[1:]
            x = solve_banded((1, 1), bands, np.array(d))
            # The system itself: residual of the solution.
            full = np.diag(b) + np.diag(c[:-1], 1) + np.diag(a[1:], -1)
            np.testing.assert_allclose(full @ x, d, rtol=1e-12, atol=1e-12)
            expected[i, j, :] = dtr * (x - v["u_pos"][i, j, :])
    np.testing.assert_allclose(out["utens_stage"], expected, rtol=1e-11, atol=1e-12)
    assert_judged_like_an_oracle(kernel, out, {"utens_stage": expected})

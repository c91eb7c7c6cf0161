"""sor_red_black's independent check: the red-black sweeps transcribed point by point as explicit
Python loops, and, after many sweeps, the direct solution of the discrete Poisson problem
(scipy.sparse), the fixed point SOR converges to."""

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _sweeps(u, b, omega, sweeps, n):
    u = u.tolist()
    for _ in range(sweeps):
        for colour in (0, 1):                      # red: i + j even, then black: i + j odd
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    if (i + j) % 2 == colour:
                        nb = u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]
                        u[i][j] = (1.0 - omega) * u[i][j] + 0.25 * omega * (nb + b[i, j])
    return np.array(u)


@each(size=[(3, 1), (4, 2), (5, 3), (8, 4), (13, 5), (20, 7)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    n, sweeps = size
    v, out = run(kernel, {"SWEEPS": sweeps, "N": n}, seed)
    assert 1.3 <= v["omega"] <= 1.7
    u = _sweeps(v["u"], v["b"], v["omega"], sweeps, n)
    np.testing.assert_allclose(out["u"], u, rtol=1e-12, atol=1e-13)
    # the boundary is untouched
    np.testing.assert_array_equal(out["u"][[0, n - 1], :], v["u"][[0, n - 1], :])
    np.testing.assert_array_equal(out["u"][:, [0, n - 1]], v["u"][:, [0, n - 1]])
    assert_judged_like_an_oracle(kernel, out, {"u": u})


@each(n=[6, 11, 16], seed=SEEDS)
def check_converges_to_the_poisson_solution(kernel, n, seed):
    v, out = run(kernel, {"SWEEPS": 400, "N": n}, seed)
    u0, b = v["u"], v["b"]
    m = n - 2
    # 4 u_p - (interior neighbours) = b_p + (boundary neighbours), interior numbered row by row.
    T = scipy.sparse.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(m, m))
    A = scipy.sparse.kron(scipy.sparse.eye(m), T) + scipy.sparse.kron(
        scipy.sparse.diags([-1.0, -1.0], [-1, 1], shape=(m, m)), scipy.sparse.eye(m))
    rhs = b[1:n - 1, 1:n - 1].copy()
    rhs[0, :] += u0[0, 1:n - 1]
    rhs[-1, :] += u0[n - 1, 1:n - 1]
    rhs[:, 0] += u0[1:n - 1, 0]
    rhs[:, -1] += u0[1:n - 1, n - 1]
    sol = scipy.sparse.linalg.spsolve(A.tocsc(), rhs.reshape(m * m)).reshape(m, m)
    np.testing.assert_allclose(out["u"][1:n - 1, 1:n - 1], sol, rtol=1e-9, atol=1e-10 * np.abs(sol).max())

"""multigrid_vcycle's independent check: the V-cycle written recursively as in Briggs, Henson and
McCormick (relax, restrict the residual, recurse, interpolate and correct, relax), one grid
per level, point by point in explicit Python loops; and, after many cycles, the direct
solution of the discrete Poisson problem (scipy.sparse), the fixed point the V-cycles
converge to."""

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

OMEGA = 2.0 / 3.0


def _jacobi(u, f, h2, sweeps):
    n = len(u)
    for _ in range(sweeps):
        new = [row[:] for row in u]
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                gs = (h2 * f[i][j] + u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) / 4.0
                new[i][j] = (1.0 - OMEGA) * u[i][j] + OMEGA * gs
        u[:] = new


def _vcycle(u, f, nu1, nu2):
    """One V-cycle on the grid u (lists of lists, boundary included) for -Lap u = f."""
    n = len(u)
    h2 = 1.0 / ((n - 1) * (n - 1))
    if n == 3:                                   # one unknown: solve it
        u[1][1] = (h2 * f[1][1] + u[0][1] + u[2][1] + u[1][0] + u[1][2]) / 4.0
        return
    _jacobi(u, f, h2, nu1)
    r = [[0.0] * n for _ in range(n)]
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            r[i][j] = f[i][j] - (4.0 * u[i][j] - u[i - 1][j] - u[i + 1][j] - u[i][j - 1] - u[i][j + 1]) / h2
    m = (n - 1) // 2 + 1
    fc = [[0.0] * m for _ in range(m)]
    w = [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    for a in range(1, m - 1):
        for b in range(1, m - 1):
            fc[a][b] = sum(w[p + 1][q + 1] * r[2 * a + p][2 * b + q] for p in (-1, 0, 1) for q in (-1, 0, 1)) / 16.0
    ec = [[0.0] * m for _ in range(m)]
    _vcycle(ec, fc, nu1, nu2)
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            a, b = i // 2, j // 2
            if i % 2 == 0 and j % 2 == 0:
                e = ec[a][b]
            elif j % 2 == 0:
                e = 0.5 * (ec[a][b] + ec[a + 1][b])
            elif i % 2 == 0:
                e = 0.5 * (ec[a][b] + ec[a][b + 1])
            else:
                e = 0.25 * (ec[a][b] + ec[a + 1][b] + ec[a][b + 1] + ec[a + 1][b + 1])
            u[i][j] += e
    _jacobi(u, f, h2, nu2)


@each(size=[(1, 1, 2, 2), (2, 1, 1, 1), (2, 3, 0, 2), (3, 2, 2, 1), (4, 2, 2, 2), (5, 1, 1, 3)], seed=SEEDS)
def check_against_recursive_loops(kernel, size, seed):
    levels, nv, nu1, nu2 = size
    v, out = run(kernel, {"LEVELS": levels, "NV": nv, "NU1": nu1, "NU2": nu2}, seed)
    u, f = v["u"].tolist(), v["f"].tolist()
    for _ in range(nv):
        _vcycle(u, f, nu1, nu2)
    u = np.array(u)
    np.testing.assert_allclose(out["u"], u, rtol=1e-12, atol=1e-12 * np.abs(u).max())
    n = 2 ** levels + 1
    np.testing.assert_array_equal(out["u"][[0, n - 1], :], v["u"][[0, n - 1], :])
    np.testing.assert_array_equal(out["u"][:, [0, n - 1]], v["u"][:, [0, n - 1]])
    if levels > 1:
        assert_judged_like_an_oracle(kernel, out, {"u": u})


def _direct(u0, f, n):
    k = n - 2
    T = scipy.sparse.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(k, k))
    A = scipy.sparse.kron(scipy.sparse.eye(k), T) + scipy.sparse.kron(
        scipy.sparse.diags([-1.0, -1.0], [-1, 1], shape=(k, k)), scipy.sparse.eye(k))
    rhs = f[1:n - 1, 1:n - 1] / (n - 1) ** 2
    rhs[0, :] += u0[0, 1:n - 1]
    rhs[-1, :] += u0[n - 1, 1:n - 1]
    rhs[:, 0] += u0[1:n - 1, 0]
    rhs[:, -1] += u0[1:n - 1, n - 1]
    return scipy.sparse.linalg.spsolve(A.tocsc(), rhs.reshape(k * k)).reshape(k, k)


@each(levels=[2, 4, 6], seed=SEEDS)
def check_converges_to_the_poisson_solution(kernel, levels, seed):
    n = 2 ** levels + 1
    v, out = run(kernel, {"LEVELS": levels, "NV": 30, "NU1": 2, "NU2": 1}, seed)
    sol = _direct(v["u"], v["f"], n)
    np.testing.assert_allclose(out["u"][1:n - 1, 1:n - 1], sol, rtol=1e-9, atol=1e-10 * np.abs(sol).max())
    # and a few cycles are not yet converged: the result is the V-cycle's
    v, out = run(kernel, {"LEVELS": levels, "NV": 4, "NU1": 2, "NU2": 2}, seed)
    assert np.abs(out["u"][1:n - 1, 1:n - 1] - sol).max() > 1e-7 * np.abs(sol).max()

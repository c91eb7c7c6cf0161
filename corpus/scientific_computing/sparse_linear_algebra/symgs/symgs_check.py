"""symgs's independent check: the matrix rebuilt from the grid's 27-point stencil, HPCG's
forward and backward sweeps transcribed as explicit Python loops, and each sweep as the
triangular solve it is (the Gauss-Seidel splitting A = L + D + U, solved by scipy)."""

import numpy as np
import scipy.sparse
from scipy.linalg import solve_triangular

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

SHAPES = [(1, 1, 1), (2, 1, 3), (3, 4, 2), (5, 5, 5), (7, 3, 6), (9, 8, 4)]


def _matrix(v, nx, ny, nz):
    n = nx * ny * nz
    indptr, indices, values = v["indptr"], v["indices"], v["values"]
    assert indptr[0] == 0 and indptr[-1] == (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2)
    for i in range(n):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    A = scipy.sparse.csr_matrix((values, indices, indptr), shape=(n, n)).toarray()
    B = np.zeros((n, n))
    for iz in range(nz):
        for iy in range(ny):
            for ix in range(nx):
                for jz in range(max(iz - 1, 0), min(iz + 2, nz)):
                    for jy in range(max(iy - 1, 0), min(iy + 2, ny)):
                        for jx in range(max(ix - 1, 0), min(ix + 2, nx)):
                            B[(iz * ny + iy) * nx + ix, (jz * ny + jy) * nx + jx] = -1.0
    B[np.diag_indices(n)] = 26.0
    np.testing.assert_array_equal(A, B)
    return A


@each(shape=SHAPES, seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    nx, ny, nz = shape
    n = nx * ny * nz
    v, out = run(kernel, {"NX": nx, "NY": ny, "NZ": nz}, seed)
    _matrix(v, nx, ny, nz)
    indptr, indices, values = v["indptr"].tolist(), v["indices"].tolist(), v["values"].tolist()
    r = v["r"].tolist()
    x = v["x"].tolist()
    diag = [0.0] * n
    for i in range(n):
        for jj in range(indptr[i], indptr[i + 1]):
            if indices[jj] == i:
                diag[i] = values[jj]
    for rows in (range(n), range(n - 1, -1, -1)):
        for i in rows:
            s = r[i]
            for jj in range(indptr[i], indptr[i + 1]):
                s -= values[jj] * x[indices[jj]]
            s += x[i] * diag[i]
            x[i] = s / diag[i]
    np.testing.assert_allclose(out["x"], x, rtol=1e-12, atol=1e-14)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"x": np.array(x)})


@each(shape=SHAPES, seed=SEEDS)
def check_against_triangular_solves(kernel, shape, seed):
    # Forward: (D + L) x1 = r - U x0; backward: (D + U) x2 = r - L x1.
    nx, ny, nz = shape
    v, out = run(kernel, {"NX": nx, "NY": ny, "NZ": nz}, seed)
    A = _matrix(v, nx, ny, nz)
    lower, upper = np.tril(A), np.triu(A)
    strict_lower, strict_upper = np.tril(A, -1), np.triu(A, 1)
    x1 = solve_triangular(lower, v["r"] - strict_upper @ v["x"], lower=True)
    x2 = solve_triangular(upper, v["r"] - strict_lower @ x1, lower=False)
    np.testing.assert_allclose(out["x"], x2, rtol=1e-9, atol=1e-12 * np.abs(x2).max())
    # The smoother reduces the error of A x = r (A is diagonally dominant).
    exact = np.linalg.solve(A, v["r"])
    assert np.linalg.norm(out["x"] - exact) < np.linalg.norm(v["x"] - exact)
    if A.shape[0] > 1:
        assert_judged_like_an_oracle(kernel, out, {"x": x2})

"""cg_jacobi's independent check: the matrix rebuilt densely from the grid, Saad's alg. 9.1
transcribed as explicit Python loops at small sizes and with scipy.sparse products at larger
ones, and the identity that the last recorded norm is that of the true residual b - A x."""

import numpy as np
import scipy.sparse

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _matrix(v, nx, ny):
    n = nx * ny
    indptr, indices, values = v["indptr"], v["indices"], v["values"]
    assert indptr[0] == 0 and indptr[-1] == 5 * n - 2 * nx - 2 * ny
    for i in range(n):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    A = scipy.sparse.csr_matrix((values, indices, indptr), shape=(n, n)).toarray()
    # The 5-point Laplacian of the grid, row iy * nx + ix, with a diagonal shift in [0.005, 0.25].
    L = np.zeros((n, n))
    for iy in range(ny):
        for ix in range(nx):
            i = iy * nx + ix
            for jx, jy in ((ix - 1, iy), (ix + 1, iy), (ix, iy - 1), (ix, iy + 1)):
                if 0 <= jx < nx and 0 <= jy < ny:
                    L[i, jy * nx + jx] = -1.0
    shift = np.diag(A) - 4.0
    assert np.all((shift >= 0.005) & (shift <= 0.25))
    np.testing.assert_array_equal(A - np.diag(np.diag(A)), L)
    return A


def _pcg_loops(A, b, iters):
    # Saad, alg. 9.1 with M = diag(A), every product and dot product an explicit loop.
    n = len(b)
    rows = [[(j, A[i, j]) for j in range(n) if A[i, j] != 0.0] for i in range(n)]
    x = [0.0] * n
    r = list(b)
    z = [r[i] / A[i, i] for i in range(n)]
    p = list(z)
    rz = sum(r[i] * z[i] for i in range(n))
    norms = []
    for _ in range(iters):
        q = [sum(a * p[j] for j, a in rows[i]) for i in range(n)]
        pq = sum(p[i] * q[i] for i in range(n))
        alpha = rz / pq if pq > 0.0 else 0.0
        x = [x[i] + alpha * p[i] for i in range(n)]
        r = [r[i] - alpha * q[i] for i in range(n)]
        z = [r[i] / A[i, i] for i in range(n)]
        rz_new = sum(r[i] * z[i] for i in range(n))
        beta = rz_new / rz if rz > 0.0 else 0.0
        p = [z[i] + beta * p[i] for i in range(n)]
        rz = rz_new
        norms.append(sum(ri * ri for ri in r) ** 0.5)
    return np.array(x), np.array(norms)


@each(shape=[(1, 1, 3), (2, 3, 4), (1, 7, 5), (7, 5, 12), (12, 9, 40)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    nx, ny, iters = shape
    v, out = run(kernel, {"NX": nx, "NY": ny, "ITERS": iters}, seed)
    A = _matrix(v, nx, ny)
    x, norms = _pcg_loops(A, v["b"], iters)
    scale = np.linalg.norm(v["b"])
    np.testing.assert_allclose(out["x"], x, rtol=1e-9, atol=1e-12 * np.abs(x).max())
    np.testing.assert_allclose(out["resnorm"], norms, rtol=1e-9, atol=1e-12 * scale)
    if nx * ny > 1:
        assert_judged_like_an_oracle(kernel, out, {"x": x, "resnorm": norms})


@each(shape=[(40, 30, 50), (64, 17, 30)], seed=SEEDS)
def check_against_scipy(kernel, shape, seed):
    nx, ny, iters = shape
    v, out = run(kernel, {"NX": nx, "NY": ny, "ITERS": iters}, seed)
    n = nx * ny
    A = scipy.sparse.csr_matrix((v["values"], v["indices"], v["indptr"]), shape=(n, n))
    b = v["b"]
    dinv = 1.0 / A.diagonal()
    x = np.zeros(n)
    r = b.copy()
    z = dinv * r
    p = z.copy()
    rz = r @ z
    norms = []
    for _ in range(iters):
        q = A @ p
        alpha = rz / (p @ q)
        x = x + alpha * p
        r = r - alpha * q
        z = dinv * r
        rz_new = r @ z
        p = z + rz_new / rz * p
        rz = rz_new
        norms.append(np.linalg.norm(r))
    norms = np.array(norms)
    np.testing.assert_allclose(out["x"], x, rtol=1e-9, atol=1e-12 * np.abs(x).max())
    np.testing.assert_allclose(out["resnorm"], norms, rtol=1e-9, atol=0)
    # The recursively updated residual is the true one, and CG has made real progress.
    true = np.linalg.norm(b - A @ out["x"])
    assert abs(true - out["resnorm"][-1]) <= 1e-8 * out["resnorm"][-1] + 1e-13 * np.linalg.norm(b)
    assert out["resnorm"][-1] < 1e-3 * np.linalg.norm(b)
    assert out["resnorm"][-1] > 1e-12 * np.linalg.norm(b)       # still informative
    assert_judged_like_an_oracle(kernel, out, {"x": x, "resnorm": norms})

"""lanczos' independent check: the matrix rebuilt from the grid and checked symmetric; the
Lanczos recurrence rerun with scipy.sparse products and modified Gram-Schmidt applied twice
(another reorthogonalisation than the reference's), whose orthonormal basis V must give
T = V^T A V; at small sizes an orthonormal basis of the Krylov space from numpy's QR of the
Krylov matrix (no Lanczos at all), whose Q^T A Q is the same tridiagonal T; and the Ritz
values inside A's spectrum."""

import numpy as np
import scipy.linalg
import scipy.sparse

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _matrix(v, nx, ny):
    n = nx * ny
    indptr, indices = v["indptr"], v["indices"]
    assert indptr[0] == 0 and indptr[-1] == 5 * n - 2 * nx - 2 * ny
    for i in range(n):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    A = scipy.sparse.csr_matrix((v["values"], indices, indptr), shape=(n, n))
    D = A.toarray()
    np.testing.assert_array_equal(D, D.T)
    # Weighted 5-point Laplacian plus a diagonal shift in [0, 1].
    for iy in range(ny):
        for ix in range(nx):
            i = iy * nx + ix
            for jx, jy in ((ix - 1, iy), (ix + 1, iy), (ix, iy - 1), (ix, iy + 1)):
                if 0 <= jx < nx and 0 <= jy < ny:
                    assert -1.5 <= D[i, jy * nx + jx] <= -0.5
    shift = np.diag(D) + (D - np.diag(np.diag(D))).sum(axis=1)
    assert np.all((shift >= 0.0) & (shift <= 1.0))
    return A


def _lanczos_mgs2(A, q, k):
    n = len(q)
    V = np.zeros((k, n))
    alpha = np.zeros(k)
    beta = np.zeros(k - 1)
    V[0] = q / np.linalg.norm(q)
    for j in range(k):
        w = A @ V[j]
        if j > 0:
            w = w - beta[j - 1] * V[j - 1]
        alpha[j] = V[j] @ w
        w = w - alpha[j] * V[j]
        if j < k - 1:
            for _ in range(2):
                for i in range(j + 1):
                    w = w - (V[i] @ w) * V[i]
            beta[j] = np.linalg.norm(w)
            V[j + 1] = w / beta[j]
    return alpha, beta, V


@each(shape=[(1, 8, 2), (3, 3, 2), (4, 5, 5), (9, 7, 15), (20, 20, 60), (40, 30, 110)], seed=SEEDS)
def check_against_reorthogonalised_recurrence(kernel, shape, seed):
    nx, ny, k = shape
    v, out = run(kernel, {"NX": nx, "NY": ny, "K": k}, seed)
    A = _matrix(v, nx, ny)
    alpha, beta, V = _lanczos_mgs2(A, v["q"], k)
    np.testing.assert_allclose(out["alpha"], alpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out["beta"], beta, rtol=1e-10, atol=1e-12)
    # V orthonormal and T = V^T A V tridiagonal with the kernel's entries.
    np.testing.assert_allclose(V @ V.T, np.eye(k), atol=1e-12)
    T = V @ (A @ V.T)
    np.testing.assert_allclose(np.diag(T), out["alpha"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.diag(T, 1), out["beta"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.triu(T, 2), 0.0, atol=1e-11)
    assert np.all(out["beta"] > 0.0)
    # Ritz values lie inside A's spectrum.
    ritz = scipy.linalg.eigh_tridiagonal(out["alpha"], out["beta"], eigvals_only=True)
    lam = np.linalg.eigvalsh(A.toarray())
    assert lam[0] - 1e-10 <= ritz[0] and ritz[-1] <= lam[-1] + 1e-10
    assert_judged_like_an_oracle(kernel, out, {"alpha": alpha, "beta": beta})


@each(shape=[(2, 4, 2), (3, 3, 2), (5, 4, 4), (6, 7, 6)], seed=SEEDS)
def check_against_krylov_qr(kernel, shape, seed):
    # The Lanczos vectors are the orthonormalised Krylov basis q, A q, A^2 q, ... with
    # positive coefficients: Q from the QR of the Krylov matrix, signs fixed by R's diagonal.
    nx, ny, k = shape
    v, out = run(kernel, {"NX": nx, "NY": ny, "K": k}, seed)
    A = _matrix(v, nx, ny).toarray()
    Kry = np.zeros((nx * ny, k))
    Kry[:, 0] = v["q"] / np.linalg.norm(v["q"])
    for j in range(1, k):
        Kry[:, j] = A @ Kry[:, j - 1]
        Kry[:, j] /= np.linalg.norm(Kry[:, j])
    Q, R = np.linalg.qr(Kry)
    Q = Q * np.sign(np.diag(R))
    T = Q.T @ A @ Q
    np.testing.assert_allclose(out["alpha"], np.diag(T), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(out["beta"], np.diag(T, 1), rtol=1e-8, atol=1e-9)
    assert_judged_like_an_oracle(kernel, out, {"alpha": np.diag(T).copy(), "beta": np.diag(T, 1).copy()})

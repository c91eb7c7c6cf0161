"""ilu0's independent check: the matrix rebuilt densely from the 9-point grid pattern, Saad's
alg. 10.4 transcribed on the dense matrix with its pattern as a set (explicit Python loops),
and the property that defines ILU(0): (L U)_ij = a_ij at every (i, j) of A's pattern, with L
unit lower and U upper triangular on that pattern."""

import numpy as np
import scipy.sparse

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

SHAPES = [(1, 1), (1, 6), (5, 1), (2, 2), (3, 4), (7, 5), (12, 9)]


def _matrix(v, nx, ny):
    n = nx * ny
    indptr, indices, values = v["indptr"], v["indices"], v["values"]
    assert indptr[0] == 0 and indptr[-1] == (3 * nx - 2) * (3 * ny - 2)
    for i in range(n):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
        assert indices[v["diag_ptr"][i]] == i
    A = scipy.sparse.csr_matrix((values, indices, indptr), shape=(n, n)).toarray()
    pattern = set()
    for iy in range(ny):
        for ix in range(nx):
            for jy in range(max(iy - 1, 0), min(iy + 2, ny)):
                for jx in range(max(ix - 1, 0), min(ix + 2, nx)):
                    pattern.add((iy * nx + ix, jy * nx + jx))
    assert pattern == {(i, j) for i in range(n) for j in range(n) if A[i, j] != 0.0}
    # A diagonally dominant M-matrix.
    off = A - np.diag(np.diag(A))
    assert np.all(off <= 0.0)
    assert np.all(np.diag(A) >= np.abs(off).sum(axis=1) + 0.1)
    return A, pattern


@each(shape=SHAPES, seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    nx, ny = shape
    n = nx * ny
    v, out = run(kernel, {"NX": nx, "NY": ny}, seed)
    A0, pattern = _matrix(v, nx, ny)
    a = A0.tolist()
    # Alg. 10.4: for i = 2..n, for k = 1..i-1 with (i, k) in NZ(A): a_ik /= a_kk, then for
    # j = k+1..n with (i, j) in NZ(A): a_ij -= a_ik a_kj.
    for i in range(1, n):
        for k in range(i):
            if (i, k) in pattern:
                a[i][k] /= a[k][k]
                for j in range(k + 1, n):
                    if (i, j) in pattern:
                        a[i][j] -= a[i][k] * a[k][j]
    indptr, indices = v["indptr"], v["indices"]
    expected = np.array([a[i][indices[jj]] for i in range(n) for jj in range(indptr[i], indptr[i + 1])])
    np.testing.assert_allclose(out["lu"], expected, rtol=1e-12, atol=1e-14)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"lu": expected})


@each(shape=SHAPES + [(20, 17)], seed=SEEDS)
def check_product_matches_a_on_pattern(kernel, shape, seed):
    nx, ny = shape
    n = nx * ny
    v, out = run(kernel, {"NX": nx, "NY": ny}, seed)
    A0, pattern = _matrix(v, nx, ny)
    F = scipy.sparse.csr_matrix((out["lu"], v["indices"], v["indptr"]), shape=(n, n)).toarray()
    L = np.tril(F, -1) + np.eye(n)
    U = np.triu(F)
    P = L @ U
    mask = np.zeros((n, n), dtype=bool)
    for i, j in pattern:
        mask[i, j] = True
    np.testing.assert_allclose(P[mask], A0[mask], rtol=1e-12, atol=1e-13)
    # Pivots stay positive and away from zero (U keeps A's row dominance margin).
    assert np.all(np.diag(U) >= 0.1)
    # It is an incomplete factorisation: the dropped fill is what separates L U from A.
    if nx > 2 and ny > 2:
        assert np.abs(P - A0).max() > 1e-3

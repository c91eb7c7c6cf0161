"""mesh_laplacian's independent check: the CSR loop nest (for each vertex, for each of its
neighbours) over Python floats, and the same sweeps as sparse matrix products with scipy;
and the adjacency's structure: symmetric, simple, and a closed surface (3 NV edges)."""

import numpy as np
import scipy.sparse

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(shape=[(3, 3, 1), (4, 7, 3), (9, 5, 10)], seed=SEEDS)
def check_against_csr_loops(kernel, shape, seed):
    nx, ny, iters = shape
    v, out = run(kernel, {"NX": nx, "NY": ny, "ITERS": iters}, seed)
    indptr, indices, lam = v["indptr"].tolist(), v["indices"].tolist(), float(v["lam"])
    x = v["X"].tolist()
    for _ in range(iters):
        new = []
        for u in range(nx * ny):
            mean = [0.0, 0.0, 0.0]
            for k in range(indptr[u], indptr[u + 1]):
                for c in range(3):
                    mean[c] += x[indices[k]][c]
            deg = indptr[u + 1] - indptr[u]
            new.append([x[u][c] + lam * (mean[c] / deg - x[u][c]) for c in range(3)])
        x = new
    np.testing.assert_allclose(out["X"], x, rtol=1e-13, atol=1e-14)
    assert_judged_like_an_oracle(kernel, out, {"X": np.array(x)})


@each(shape=[(3, 4, 2), (17, 23, 5), (40, 31, 20)], seed=SEEDS)
def check_against_scipy(kernel, shape, seed):
    nx, ny, iters = shape
    nv = nx * ny
    v, out = run(kernel, {"NX": nx, "NY": ny, "ITERS": iters}, seed)
    indptr, indices = v["indptr"], v["indices"]
    A = scipy.sparse.csr_matrix((np.ones(6 * nv), indices, indptr), shape=(nv, nv))
    P = scipy.sparse.diags(1.0 / np.diff(indptr)) @ A           # row-normalised: neighbour means
    x = v["X"].copy()
    for _ in range(iters):
        x = x + v["lam"] * (P @ x - x)
    np.testing.assert_allclose(out["X"], x, rtol=1e-12, atol=1e-13)
    assert np.abs(out["X"] - v["X"]).max() > 0.05               # the sweeps move the vertices
    assert_judged_like_an_oracle(kernel, out, {"X": x})


@each(shape=[(3, 3), (4, 4), (5, 8), (30, 20)], seed=SEEDS)
def check_adjacency(kernel, shape, seed):
    nx, ny = shape
    nv = nx * ny
    v, _ = run(kernel, {"NX": nx, "NY": ny, "ITERS": 1}, seed)
    indptr, indices = v["indptr"], v["indices"]
    assert indptr[0] == 0 and indptr[-1] == 6 * nv
    deg = np.diff(indptr)
    assert deg.min() >= 4 and deg.max() <= 8
    for u in range(nv):
        row = indices[indptr[u]:indptr[u + 1]]
        assert np.all(np.diff(row) > 0) and u not in row        # sorted, no duplicates or loops
    A = scipy.sparse.csr_matrix((np.ones(6 * nv), indices, indptr), shape=(nv, nv))
    assert (A != A.T).nnz == 0
    # The 3-cycles are the faces (from 4 x 4 on; a 3 x 3 torus has 3-cycles around it too):
    # F = 2 V triangles, so V - E + F = 0, a torus.
    if min(nx, ny) >= 4:
        assert (A @ A).multiply(A).sum() / 6 == 2 * nv

"""pagerank's independent check: the power iteration as scipy.sparse products with the
column-stochastic link matrix, and, over many steps, the stationary vector solved directly
with numpy.linalg."""

import numpy as np
import scipy.sparse

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _graph(v, n, nnz):
    indptr, indices, outdeg = v["indptr"], v["indices"], v["outdeg"]
    assert indptr[0] == 0 and indptr[-1] == nnz and np.all(np.diff(indptr) >= 1)
    assert indices.min() >= 0 and indices.max() < n
    for i in range(n):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    np.testing.assert_array_equal(outdeg, np.bincount(indices, minlength=n))
    # A[v, u] = 1 / outdeg[u] for every edge u -> v: column-stochastic but for dangling u.
    links = scipy.sparse.csr_matrix((np.ones(nnz), indices, indptr), shape=(n, n))
    return links @ scipy.sparse.diags(1.0 / np.maximum(outdeg, 1)), outdeg == 0


@each(shape=[(1, 1, 3), (2, 2, 5), (7, 14, 4), (60, 300, 20), (500, 4000, 30), (1200, 3000, 7)], seed=SEEDS)
def check_against_scipy(kernel, shape, seed):
    n, nnz, iters = shape
    v, out = run(kernel, {"N": n, "NNZ": nnz, "ITERS": iters}, seed)
    A, dangling = _graph(v, n, nnz)
    x = np.full(n, 1.0 / n)
    for _ in range(iters):
        x = 0.15 / n + 0.85 * (A @ x + x[dangling].sum() / n)
    np.testing.assert_allclose(out["rank"], x, rtol=1e-12, atol=0)
    assert abs(out["rank"].sum() - 1.0) < 1e-12
    if n >= 60:
        assert np.count_nonzero(dangling) >= n // 20
        assert out["rank"].max() > 2 * out["rank"].min()            # informative: far from uniform
        assert_judged_like_an_oracle(kernel, out, {"rank": x})


@each(seed=SEEDS)
def check_converges_to_the_stationary_vector(kernel, seed):
    # (I - 0.85 (A + e d^T / n)) pi = 0.15 / n e; after 150 steps the error is 0.85^150 ~ 3e-11.
    n, nnz = 200, 1400
    v, out = run(kernel, {"N": n, "NNZ": nnz, "ITERS": 150}, seed)
    A, dangling = _graph(v, n, nnz)
    G = A.toarray() + np.outer(np.ones(n), dangling.astype(float)) / n
    pi = np.linalg.solve(np.eye(n) - 0.85 * G, np.full(n, 0.15 / n))
    np.testing.assert_allclose(out["rank"], pi, rtol=1e-8, atol=0)

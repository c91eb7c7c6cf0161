"""bfs's independent check: a textbook FIFO-queue breadth-first search along the out-edges
(the transposed CSR, built with scipy), and scipy's unweighted shortest paths; levels are
integers, compared exactly."""

import collections

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _queue_bfs(indptr, indices, n):
    out_edges = [[] for _ in range(n)]
    for v in range(n):
        for jj in range(indptr[v], indptr[v + 1]):
            out_edges[int(indices[jj])].append(v)
    level = [-1] * n
    level[0] = 0
    queue = collections.deque([0])
    while queue:
        u = queue.popleft()
        for v in out_edges[u]:
            if level[v] < 0:
                level[v] = level[u] + 1
                queue.append(v)
    return np.array(level, dtype=np.int64)


@each(shape=[(1, 1), (2, 2), (3, 6), (7, 14), (60, 300), (400, 3200), (1000, 3000)], seed=SEEDS)
def check_against_queue_bfs(kernel, shape, seed):
    n, nnz = shape
    v, out = run(kernel, {"N": n, "NNZ": nnz}, seed)
    indptr, indices = v["indptr"], v["indices"]
    assert indptr[0] == 0 and indptr[-1] == nnz and np.all(np.diff(indptr) >= 0)
    assert indices.min() >= 0 and indices.max() < n
    for i in range(n):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    expected = _queue_bfs(indptr, indices, n)
    np.testing.assert_array_equal(out["level"], expected)
    # scipy: row v of the CSR holds v's in-edges, so the graph walked is its transpose.
    inlinks = scipy.sparse.csr_matrix((np.ones(nnz), indices, indptr), shape=(n, n))
    hops = scipy.sparse.csgraph.shortest_path(inlinks.T.tocsr(), unweighted=True, indices=0)
    np.testing.assert_array_equal(out["level"], np.where(np.isinf(hops), -1, hops).astype(np.int64))
    if n >= 60:
        # informative: several levels, and the vertices without in-edges unreached
        assert out["level"].max() >= 2 and np.count_nonzero(out["level"] == -1) >= n // 50
        assert_judged_like_an_oracle(kernel, out, {"level": expected})

"""bellman_ford's independent check: Dijkstra's algorithm with a binary heap along the
out-edges, and scipy's Dijkstra. With nonnegative weights every correct method ends at the
same rounded sums (each distance is the smallest left-to-right sum along a path), so the
comparison is tight."""

import heapq

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _dijkstra(indptr, indices, weights, n):
    out_edges = [[] for _ in range(n)]
    for v in range(n):
        for jj in range(indptr[v], indptr[v + 1]):
            out_edges[int(indices[jj])].append((v, float(weights[jj])))
    dist = [float("inf")] * n
    dist[0] = 0.0
    heap, done = [(0.0, 0)], [False] * n
    while heap:
        d, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w in out_edges[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (dist[v], v))
    return np.array(dist)


@each(shape=[(1, 1), (2, 2), (3, 6), (4, 5), (7, 14), (60, 300), (500, 4000), (1200, 3000)], seed=SEEDS)
def check_against_dijkstra(kernel, shape, seed):
    n, nnz = shape
    v, out = run(kernel, {"N": n, "NNZ": nnz}, seed)
    indptr, indices, weights = v["indptr"], v["indices"], v["weights"]
    assert indptr[0] == 0 and indptr[-1] == nnz and np.all(np.diff(indptr) >= 1)
    assert indices.min() >= 0 and indices.max() < n and weights.min() >= 0.0
    for i in range(n):
        row = indices[indptr[i]:indptr[i + 1]]
        assert np.all(np.diff(row) > 0) and (i - 1) % n in row     # sorted, distinct, the ring edge
    expected = _dijkstra(indptr, indices, weights, n)
    np.testing.assert_allclose(out["dist"], expected, rtol=1e-15, atol=0)
    inlinks = scipy.sparse.csr_matrix((weights, indices, indptr), shape=(n, n))
    np.testing.assert_allclose(out["dist"], scipy.sparse.csgraph.dijkstra(inlinks.T.tocsr(), indices=0),
                               rtol=1e-15, atol=0)
    if n >= 60:
        # informative: most shortest paths leave the ring (0 -> 1 -> ... -> v) for shortcuts
        ring = np.array([weights[indptr[i] + np.searchsorted(indices[indptr[i]:indptr[i + 1]], i - 1)]
                         for i in range(1, n)])
        assert np.count_nonzero(expected[1:] < np.cumsum(ring)) > n // 2
        assert_judged_like_an_oracle(kernel, out, {"dist": expected})

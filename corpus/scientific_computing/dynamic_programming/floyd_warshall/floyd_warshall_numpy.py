"""floyd_warshall: all-pairs shortest path lengths (PolyBench/C floyd-warshall)."""

import numpy as np

NO_EDGE = 1000000


def initialize(rng, N):
    # A sparse random directed graph (about 8 out-edges per vertex) with weights 1..100,
    # so shortest paths are several hops long and differ from the direct edges.
    p = min(1.0, 8.0 / N)
    w = rng.integers(1, 101, size=(N, N))
    path = np.where(rng.random((N, N)) < p, w, NO_EDGE)
    np.fill_diagonal(path, 0)
    return {"path": path.astype(np.int32)}


def floyd_warshall(path, N):
    # Row k and column k do not change during step k (path[k, k] == 0), so the whole
    # matrix can be relaxed at once for each k.
    for k in range(N):
        path[:, :] = np.minimum(path, path[:, k:k + 1] + path[k:k + 1, :])

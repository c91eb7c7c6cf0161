"""bfs: level-synchronous breadth-first search from vertex 0 over a directed graph given as
the CSR of its in-links (Graph500 kernel 2, Rodinia bfs), each level found bottom-up
(Beamer et al.): level[v] is the number of edges on a shortest path from 0 to v, -1 where
v cannot be reached."""

import numpy as np


def initialize(rng, N, NNZ):
    # About 2% of the vertices have no in-edges, so they (but the source), and whatever
    # only they lead to, stay unreached (-1). Every other row v lists the sources of the
    # edges into v: base +/- up to base // 2 of them, NNZ in all.
    hidden = rng.permutation(N)[: N // 50]
    rows = np.ones(N, dtype=bool)
    rows[hidden] = False
    P = N - hidden.size
    base = NNZ // P
    extra = np.zeros(P, dtype=np.int64)
    extra[: NNZ - base * P] = 1
    half = rng.integers(0, base // 2 + 1, size=P // 2)
    dev = np.zeros(P, dtype=np.int64)
    dev[: P // 2] = half
    dev[P // 2: 2 * (P // 2)] = -half
    lengths = np.zeros(N, dtype=np.int64)
    lengths[rows] = base + rng.permutation(extra) + rng.permutation(dev)
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lengths)
    # Distinct sources per row: cumulative random gaps in 1 .. N // max_length (a span
    # shorter than N), rotated by a random per-row offset modulo N, then sorted.
    starts = indptr[:-1][rows]
    gaps = rng.integers(1, N // int(lengths.max()) + 1, size=NNZ)
    csum = np.cumsum(gaps)
    before_row = np.repeat(csum[starts] - gaps[starts], lengths[rows])
    offset = np.repeat(rng.integers(0, N, size=P), lengths[rows])
    src = (csum - before_row - 1 + offset) % N
    row_of = np.repeat(np.arange(N, dtype=np.int64), lengths)
    # As Graph500 draws its search keys: the source is a random vertex with an out-edge,
    # swapped with vertex 0 (its row and its appearances as a source).
    key = rng.choice(np.unique(src))
    swap = np.arange(N, dtype=np.int64)
    swap[0], swap[key] = key, 0
    src, row_of = swap[src], swap[row_of]
    indptr[1:] = np.cumsum(np.bincount(row_of, minlength=N))
    return {"indptr": indptr, "indices": src[np.lexsort((src, row_of))].astype(np.int64)}


def bfs(indptr, indices, level, N, NNZ):
    level[:] = -1
    level[0] = 0
    found = np.empty(N, dtype=np.bool)
    maxdeg = np.max(indptr[1:N + 1] - indptr[0:N])
    # Sweep lev: every vertex looks through its in-edges (the j-th of all vertices at once)
    # for a source in the frontier (level lev); the unvisited ones that find one get lev + 1.
    # A sweep that discovers nothing ends the search (no path is longer than N - 1 edges).
    changed = 1
    for lev in range(N):
        if changed == 1:
            found[:] = False
            for j in range(maxdeg):
                found[:] = found | ((indptr[0:N] + j < indptr[1:N + 1])
                                    & (level[indices[np.minimum(indptr[0:N] + j, NNZ - 1)]] == lev))
            changed = 0
            if np.sum(np.where(found & (level < 0), 1, 0)) > 0:
                changed = 1
            level[:] = np.where(found & (level < 0), lev + 1, level)

"""bellman_ford: single-source shortest path lengths from vertex 0 by the Bellman-Ford
algorithm (at most V - 1 rounds relaxing every edge, stopping once a round changes nothing)
over a directed graph with nonnegative float64 weights, given as the CSR of its in-links."""

import numpy as np


def initialize(rng, N, NNZ):
    # Row v lists the sources of the edges into v: base +/- up to base // 2 of them, NNZ in
    # all. One is always v - 1 (a ring 0 -> 1 -> ... -> N - 1 -> 0, so that every vertex is
    # reachable from 0); the others are distinct, drawn from the N - 1 remaining offsets
    # (a self-loop included).
    base = NNZ // N
    extra = np.zeros(N, dtype=np.int64)
    extra[: NNZ - base * N] = 1
    half = rng.integers(0, base // 2 + 1, size=N // 2)
    dev = np.zeros(N, dtype=np.int64)
    dev[: N // 2] = half
    dev[N // 2: 2 * (N // 2)] = -half
    lengths = base + rng.permutation(extra) + rng.permutation(dev)
    more = lengths - 1
    rows = more > 0
    # The other offsets, distinct: cumulative random gaps in 1 .. (N - 1) // max_count
    # (a span shorter than N - 1), rotated by a random per-row shift modulo N - 1.
    ptr = np.zeros(N + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(more)
    count = int(ptr[N])
    gaps = rng.integers(1, (N - 1) // max(int(more.max()), 1) + 1, size=count)
    csum = np.cumsum(gaps)
    starts = ptr[:-1][rows]
    before_row = np.repeat(csum[starts] - gaps[starts], more[rows])
    shift = np.repeat(rng.integers(0, max(N - 1, 1), size=int(rows.sum())), more[rows])
    slot = (csum - before_row - 1 + shift) % max(N - 1, 1)
    offset = np.where(slot == 0, 0, slot + 1)            # 0 (a self-loop), 2, 3, ..., N - 1
    row_of = np.concatenate([np.arange(N, dtype=np.int64), np.repeat(np.arange(N, dtype=np.int64), more)])
    src = np.concatenate([(np.arange(N, dtype=np.int64) - 1) % N, (row_of[N:] - offset) % N])
    order = np.lexsort((src, row_of))
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lengths)
    return {
        "indptr": indptr,
        "indices": src[order].astype(np.int64),
        "weights": rng.random(NNZ),
    }


def bellman_ford(indptr, indices, weights, dist, N, NNZ):
    dist[:] = 1.0e30               # stands for infinity: no path is longer than N - 1, none keeps it
    dist[0] = 0.0
    before = np.empty(N, dtype=np.float64)
    pos = np.empty(N, dtype=np.int64)
    maxdeg = np.max(indptr[1:N + 1] - indptr[0:N])
    # Round r relaxes every edge u -> v against the distances the round started from
    # (Bellman's recurrence: after r rounds, dist[v] is the shortest path of at most r
    # edges), the j-th in-edge of all vertices at once; a round that changes nothing ends
    # the search (shortest paths have at most N - 1 edges).
    changed = 1
    for r in range(N - 1):
        if changed == 1:
            before[:] = dist
            for j in range(maxdeg):
                pos[:] = np.minimum(indptr[0:N] + j, NNZ - 1)
                dist[:] = np.where(indptr[0:N] + j < indptr[1:N + 1],
                                   np.minimum(dist, before[indices[pos]] + weights[pos]), dist)
            changed = 0
            if np.sum(np.where(dist < before, 1, 0)) > 0:
                changed = 1

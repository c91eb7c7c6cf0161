"""pagerank: ITERS steps of the PageRank power iteration (damping 0.85, the rank of dangling
vertices spread uniformly) over a directed graph given as the CSR of its in-links and the
out-degree of every vertex (Page, Brin, Motwani and Winograd 1999)."""

import numpy as np


def initialize(rng, N, NNZ, ITERS):
    # About 5% of the vertices are dangling (no out-edges: they appear in no row). Row v
    # lists the sources of the edges into v: base +/- up to base // 2 of them, NNZ in all.
    dangling = rng.permutation(N)[: N // 20]
    linked = np.ones(N, dtype=bool)
    linked[dangling] = False
    pool = np.arange(N, dtype=np.int64)[linked]
    P = pool.size
    base = NNZ // N
    extra = np.zeros(N, dtype=np.int64)
    extra[: NNZ - base * N] = 1
    half = rng.integers(0, base // 2 + 1, size=N // 2)
    dev = np.zeros(N, dtype=np.int64)
    dev[: N // 2] = half
    dev[N // 2: 2 * (N // 2)] = -half
    lengths = base + rng.permutation(extra) + rng.permutation(dev)
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lengths)
    # Distinct sources per row: cumulative random gaps in 1 .. P // max_length into the
    # pool of linked vertices (a span shorter than P), rotated by a random per-row offset
    # modulo P, then sorted.
    gaps = rng.integers(1, P // int(lengths.max()) + 1, size=NNZ)
    csum = np.cumsum(gaps)
    before_row = np.repeat(csum[indptr[:-1]] - gaps[indptr[:-1]], lengths)
    offset = np.repeat(rng.integers(0, P, size=N), lengths)
    src = pool[(csum - before_row - 1 + offset) % P]
    row_of = np.repeat(np.arange(N, dtype=np.int64), lengths)
    return {
        "indptr": indptr,
        "indices": src[np.lexsort((src, row_of))].astype(np.int64),
        "outdeg": np.bincount(src, minlength=N).astype(np.int64),
    }


def pagerank(indptr, indices, outdeg, rank, N, NNZ, ITERS):
    share = np.empty(N, dtype=np.float64)
    total = np.empty(N, dtype=np.float64)
    pos = np.empty(N, dtype=np.int64)
    maxdeg = np.max(indptr[1:N + 1] - indptr[0:N])
    rank[:] = 1.0 / N
    for it in range(ITERS):
        # What each vertex passes along each out-edge, and the rank of the dangling vertices,
        # which goes to every vertex alike.
        share[:] = np.where(outdeg > 0, rank / np.maximum(outdeg, 1), 0.0)
        lost = np.sum(np.where(outdeg == 0, rank, 0.0))
        # Every vertex sums what its in-edges bring, in row order: the j-th in-edge of all
        # vertices at once.
        total[:] = 0.0
        for j in range(maxdeg):
            pos[:] = np.minimum(indptr[0:N] + j, NNZ - 1)
            total[:] = np.where(indptr[0:N] + j < indptr[1:N + 1], total + share[indices[pos]], total)
        rank[:] = (1.0 - 0.85) / N + 0.85 * (total + lost / N)

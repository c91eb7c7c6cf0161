"""sptrsv_levels: the sparse lower-triangular solve L x = b (CSR, non-unit diagonal) by level
scheduling: the rows are taken level set by level set, the rows of a level independent of each
other (Anderson and Saad, 1989; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
sec. 11.6)."""

import numpy as np


def initialize(rng, NX, NY, NZ):
    # L is the lower triangle of the 7-point stencil of an NX x NY x NZ grid: row
    # i = (iz * NY + iy) * NX + ix couples grid point i with its neighbours below (i - NX NY),
    # south (i - NX) and west (i - 1) inside the grid, columns increasing, the diagonal last.
    # Off-diagonals are random in [-1, 1], each diagonal the sum of its row's off-diagonal
    # magnitudes plus a random margin in [0.5, 1.5], so the substitution is well conditioned.
    N = NX * NY * NZ
    ix = np.tile(np.arange(NX, dtype=np.int64), NY * NZ)
    iy = np.tile(np.repeat(np.arange(NY, dtype=np.int64), NX), NZ)
    iz = np.repeat(np.arange(NZ, dtype=np.int64), NX * NY)
    row = np.arange(N, dtype=np.int64)
    present = np.stack([iz > 0, iy > 0, ix > 0, np.ones(N, dtype=bool)], axis=1)
    cols = np.stack([row - NX * NY, row - NX, row - 1, row], axis=1)
    vals = rng.uniform(-1.0, 1.0, (N, 4))
    vals[:, 3] = np.sum(np.abs(vals[:, 0:3]) * present[:, 0:3], axis=1) + rng.uniform(0.5, 1.5, N)
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(present.sum(axis=1))
    # The level of a row is one more than the highest level among the rows it depends on (0
    # for a row that depends on none): here ix + iy + iz, since every row but the first has a
    # neighbour one step lower in x, y or z. The levels are the planes ix + iy + iz = const;
    # order lists the rows level by level, increasing within a level.
    level = ix + iy + iz
    nlev = NX + NY + NZ - 2
    order = np.argsort(level, kind="stable").astype(np.int64)
    level_ptr = np.zeros(nlev + 1, dtype=np.int64)
    level_ptr[1:] = np.cumsum(np.bincount(level, minlength=nlev))
    return {
        "values": vals[present],
        "indices": cols[present],
        "indptr": indptr,
        "order": order,
        "level_ptr": level_ptr,
        "b": rng.standard_normal(N),
    }


def sptrsv_levels(values, indices, indptr, order, level_ptr, b, x, NX, NY, NZ):
    N = NX * NY * NZ
    NLEV = NX + NY + NZ - 2
    # Indexed by position r in the level order: the first and the last (diagonal) entry of
    # row order[r], and its partial sum.
    first = np.empty((N,), dtype=np.int64)
    last = np.empty((N,), dtype=np.int64)
    pos = np.empty((N,), dtype=np.int64)
    s = np.empty((N,), dtype=np.float64)
    first[:] = indptr[order]
    last[:] = indptr[order + 1] - 1
    dmax = np.max(last - first)
    x[:] = 0.0
    for lev in range(NLEV):
        a = level_ptr[lev]
        c = level_ptr[lev + 1]
        # The rows of one level depend only on rows of earlier levels: each pass over a row's
        # d-th off-diagonal entry is one vector statement over the whole level.
        s[a:c] = b[order[a:c]]
        for d in range(dmax):
            pos[a:c] = np.minimum(first[a:c] + d, last[a:c])
            s[a:c] = np.where(first[a:c] + d < last[a:c], s[a:c] - values[pos[a:c]] * x[indices[pos[a:c]]], s[a:c])
        s[a:c] = s[a:c] / values[last[a:c]]
        for r in range(a, c):
            x[order[r]] = s[r]

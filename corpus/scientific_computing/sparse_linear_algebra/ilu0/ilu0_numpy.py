"""ilu0: the incomplete LU factorisation ILU(0) of a CSR matrix, IKJ variant (Saad, Iterative
Methods for Sparse Linear Systems, 2nd ed., alg. 10.4): L (unit lower, diagonal not stored)
and U overwrite a copy of the values on the matrix's own sparsity pattern."""

import numpy as np


def initialize(rng, NX, NY):
    # The 9-point box pattern of an NX x NY grid (row i = iy * NX + ix couples grid point i
    # with every point of its 3 x 3 block inside the grid), nonsymmetric: each off-diagonal a
    # random value in [-1, 0), each diagonal the sum of its row's off-diagonal magnitudes plus
    # a random margin in [0.1, 1]. A diagonally dominant M-matrix, so every ILU(0) pivot is
    # positive and bounded away from zero (Meijerink and van der Vorst, 1977).
    N = NX * NY
    ix = np.tile(np.arange(NX, dtype=np.int64), NY)
    iy = np.repeat(np.arange(NY, dtype=np.int64), NX)
    present = np.zeros((N, 9), dtype=bool)
    cols = np.zeros((N, 9), dtype=np.int64)
    s = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            present[:, s] = (ix + dx >= 0) & (ix + dx < NX) & (iy + dy >= 0) & (iy + dy < NY)
            cols[:, s] = (iy + dy) * NX + ix + dx
            s += 1
    vals = -rng.uniform(0.0, 1.0, (N, 9))
    vals[:, 4] = 0.0
    vals[:, 4] = np.sum(np.abs(vals) * present, axis=1) + rng.uniform(0.1, 1.0, N)
    counts = present.sum(axis=1)
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(counts)
    # The diagonal's position in each row: the entries before it are those of the row's
    # block with a smaller column (the present slots 0..3).
    diag_ptr = indptr[:-1] + present[:, 0:4].sum(axis=1)
    return {
        "values": vals[present],
        "indices": cols[present],
        "indptr": indptr,
        "diag_ptr": diag_ptr.astype(np.int64),
    }


def ilu0(values, indices, indptr, diag_ptr, lu, NX, NY):
    N = NX * NY
    NNZ = (3 * NX - 2) * (3 * NY - 2)
    # work holds the factors being built, plus one slot (NNZ) that absorbs the updates to
    # columns outside the current row's pattern (the fill ILU(0) drops); iw maps a column to
    # its position in the current row, or to that slot.
    work = np.empty((NNZ + 1,), dtype=np.float64)
    iw = np.empty((N,), dtype=np.int64)
    work[0:NNZ] = values
    work[NNZ] = 0.0
    iw[:] = NNZ
    for i in range(N):
        lo = indptr[i]
        hi = indptr[i + 1]
        for jj in range(lo, hi):
            iw[indices[jj]] = jj
        # Eliminate with every earlier row k = indices[jj] in row i's lower part, in
        # increasing k: l_ik = a_ik / u_kk, then a_ij -= l_ik u_kj for j > k in both patterns.
        for jj in range(lo, diag_ptr[i]):
            k = indices[jj]
            lik = work[jj] / work[diag_ptr[k]]
            work[jj] = lik
            for jk in range(diag_ptr[k] + 1, indptr[k + 1]):
                p = iw[indices[jk]]
                work[p] = work[p] - lik * work[jk]
        for jj in range(lo, hi):
            iw[indices[jj]] = NNZ
    lu[:] = work[0:NNZ]

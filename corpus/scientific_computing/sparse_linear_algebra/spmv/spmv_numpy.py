"""spmv: y = A x for a CSR matrix A (row-wise dot products with gathered x)."""

import numpy as np


def initialize(rng, M, N, NNZ):
    K = NNZ // M
    # Row lengths K +/- up to K // 2, summing to exactly NNZ: deviations come in +d/-d pairs.
    half = rng.integers(0, K // 2 + 1, size=M // 2)
    dev = np.zeros(M, dtype=np.int64)
    dev[: M // 2] = half
    dev[M // 2: 2 * (M // 2)] = -half
    lengths = K + rng.permutation(dev)
    indptr = np.zeros(M + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lengths)
    # Strictly increasing columns per row: cumulative random gaps in 1 .. N // max_length.
    max_gap = N // int(lengths.max())
    gaps = rng.integers(1, max_gap + 1, size=NNZ)
    csum = np.cumsum(gaps)
    before_row = np.repeat(csum[indptr[:-1]] - gaps[indptr[:-1]], lengths)
    indices = (csum - before_row - 1).astype(np.int64)
    # Spread the rows over all columns with a random per-row shift that keeps them in range.
    last = indices[indptr[1:] - 1]
    shift = (rng.random(M) * (N - last)).astype(np.int64)
    indices += np.repeat(shift, lengths)
    return {
        "values": rng.standard_normal(NNZ),
        "indices": indices,
        "indptr": indptr,
        "x": rng.standard_normal(N),
    }


def spmv(values, indices, indptr, x, y, M, N, NNZ):
    for i in range(M):
        s = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            s += values[jj] * x[indices[jj]]
        y[i] = s

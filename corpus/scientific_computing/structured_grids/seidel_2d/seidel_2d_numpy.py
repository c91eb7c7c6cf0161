"""seidel_2d: TSTEPS in-place Gauss-Seidel sweeps of the 9-point stencil (PolyBench/C seidel-2d),
computed along the wavefronts of the sweep."""

import numpy as np


def initialize(rng, TSTEPS, N):
    # A random grid (not smooth) so that the result still varies after many sweeps.
    return {"A": rng.uniform(-1.0, 1.0, (N, N))}


def seidel_2d(A, TSTEPS, N):
    # PolyBench sweeps i = 1..N-2 and, within row i, j = 1..N-2, updating A in place: point
    # (i, j) becomes the mean of its 3 x 3 block, reading the new values at (i-1, j-1),
    # (i-1, j), (i-1, j+1) and (i, j-1), and the old ones at (i, j), (i, j+1) and in row i+1.
    # Every new value it reads lies on a line 2i + j < c, every old one on a line
    # 2i + j > c, with c = 2i + j its own: the points of one line depend on none of each
    # other, and sweeping the lines in increasing c computes exactly PolyBench's values
    # (same operands, same order of summation). To make each line a contiguous slice, the
    # sweeps run on a skewed copy W[2i + j, i] = A[i, j] (W's other entries are never read),
    # and the interior is copied back into A at the end.
    W = np.empty((3 * N - 2, N), dtype=np.float64)
    for i in range(N):
        W[2 * i:2 * i + N, i] = A[i, :]
    for t in range(TSTEPS):
        for c in range(3, 3 * N - 5):
            # the rows on line c: 1 <= i <= N-2 and 1 <= j = c - 2i <= N-2
            lo = (c - N + 3) // 2
            if lo < 1:
                lo = 1
            hi = (c - 1) // 2 + 1
            if hi > N - 1:
                hi = N - 1
            W[c, lo:hi] = (W[c - 3, lo - 1:hi - 1] + W[c - 2, lo - 1:hi - 1] + W[c - 1, lo - 1:hi - 1]
                           + W[c - 1, lo:hi] + W[c, lo:hi] + W[c + 1, lo:hi]
                           + W[c + 1, lo + 1:hi + 1] + W[c + 2, lo + 1:hi + 1] + W[c + 3, lo + 1:hi + 1]) / 9.0
    for i in range(1, N - 1):
        A[i, 1:N - 1] = W[2 * i + 1:2 * i + N - 1, i]

"""trisolv: forward substitution L x = b for a lower-triangular L (PolyBench/C trisolv)."""

import numpy as np


def initialize(rng, N):
    # Lower-triangular L with off-diagonal entries in [-1, 1] and a strictly dominant
    # diagonal (its row's absolute sum plus 1..2): forward substitution is stable, and every
    # x[i] depends on b[i] and on all the x[j] before it. Zeros above the diagonal.
    L = rng.uniform(-1.0, 1.0, (N, N))
    pivot = rng.uniform(1.0, 2.0, N)
    for i in range(N):  # row by row, so that L is the only N x N buffer (L at 2 GB)
        L[i, i + 1:] = 0.0
        L[i, i] = np.abs(L[i, :i]).sum() + pivot[i]
    return {"L": L, "b": rng.standard_normal(N)}


def trisolv(L, x, b, N):
    # Row by row: x[i] needs every x[j], j < i, before it (a true recurrence); the sum over
    # j is a dot product.
    for i in range(N):
        x[i] = (b[i] - L[i, 0:i] @ x[0:i]) / L[i, i]

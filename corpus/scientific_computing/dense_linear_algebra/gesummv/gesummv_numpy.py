"""gesummv: y = alpha A x + beta B x (PolyBench/C gesummv)."""

import numpy as np


def initialize(rng, N):
    return {
        "A": rng.standard_normal((N, N)),
        "B": rng.standard_normal((N, N)),
        "x": rng.standard_normal(N),
        "alpha": 1.5,
        "beta": 1.2,
    }


def gesummv(A, B, x, y, alpha, beta, N):
    # PolyBench's loop over rows i, its two dot products over j vectorised.
    tmp = np.empty((N,), dtype=np.float64)
    for i in range(N):
        tmp[i] = A[i, :] @ x
        y[i] = B[i, :] @ x
        y[i] = alpha * tmp[i] + beta * y[i]

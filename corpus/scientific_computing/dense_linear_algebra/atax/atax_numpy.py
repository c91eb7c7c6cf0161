"""atax: y = A^T (A x) (PolyBench/C atax)."""

import numpy as np


def initialize(rng, M, N):
    return {
        "A": rng.standard_normal((M, N)),
        "x": rng.standard_normal(N),
    }


def atax(A, x, y, M, N):
    tmp = np.empty((M,), dtype=np.float64)
    tmp[:] = A @ x
    y[:] = A.T @ tmp

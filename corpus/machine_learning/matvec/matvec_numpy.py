"""matvec: y = A @ x for a short, very wide M x K float32 matrix."""

import numpy as np


def initialize(rng, M, K):
    # A of order one and x scaled by 1/sqrt(K): every y[i] sums K terms to order one.
    return {
        "A": rng.standard_normal((M, K)).astype(np.float32),
        "x": (rng.standard_normal(K) / np.sqrt(K)).astype(np.float32),
    }


def matvec(A, x, y, M, K):
    y[:] = A @ x

"""syrk: the lower triangle of C = alpha A A^T + beta C (PolyBench/C syrk)."""

import numpy as np


def initialize(rng, M, N):
    return {
        "A": rng.standard_normal((N, M)),
        "C": rng.standard_normal((N, N)),
        "alpha": 1.5,
        "beta": 1.2,
    }


def syrk(A, C, alpha, beta, M, N):
    for i in range(N):
        # Row i of the lower triangle (j <= i); the upper triangle of C is left as it is.
        C[i, 0:i + 1] = beta * C[i, 0:i + 1]
        # PolyBench's loop over k with j <= i inside it, vectorised over both: the sums over k
        # of alpha A[i, k] A[j, k].
        C[i, 0:i + 1] += alpha * (A[0:i + 1, :] @ A[i, :])

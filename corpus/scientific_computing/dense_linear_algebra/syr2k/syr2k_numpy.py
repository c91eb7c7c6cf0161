"""syr2k: the lower triangle of C = alpha (A B^T + B A^T) + beta C (PolyBench/C syr2k)."""

import numpy as np


def initialize(rng, M, N):
    return {
        "A": rng.standard_normal((N, M)),
        "B": rng.standard_normal((N, M)),
        "C": rng.standard_normal((N, N)),
        "alpha": 1.5,
        "beta": 1.2,
    }


def syr2k(A, B, C, alpha, beta, M, N):
    for i in range(N):
        # Row i of the lower triangle (j <= i); the upper triangle of C is left as it is.
        C[i, 0:i + 1] = beta * C[i, 0:i + 1]
        # PolyBench's loop over k with j <= i inside it, vectorised over both: the sums over k
        # of A[j, k] alpha B[i, k] + B[j, k] alpha A[i, k].
        C[i, 0:i + 1] += alpha * (A[0:i + 1, :] @ B[i, :]) + alpha * (B[0:i + 1, :] @ A[i, :])

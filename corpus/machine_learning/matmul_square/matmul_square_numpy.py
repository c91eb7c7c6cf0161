"""matmul_square: C = A @ B for square N x N float32 matrices."""

import numpy as np


def initialize(rng, N):
    # A of order one and B scaled by 1/sqrt(N): every C[i, j] sums N terms to order one.
    return {
        "A": rng.standard_normal((N, N)).astype(np.float32),
        "B": (rng.standard_normal((N, N)) / np.sqrt(N)).astype(np.float32),
    }


def matmul_square(A, B, C, N):
    C[:, :] = A @ B

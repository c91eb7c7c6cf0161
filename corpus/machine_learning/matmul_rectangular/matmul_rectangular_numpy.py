"""matmul_rectangular: C = A @ B for a rectangular M x K float32 matrix A and K x N matrix B."""

import numpy as np


def initialize(rng, M, K, N):
    # A of order one and B scaled by 1/sqrt(K): every C[i, j] sums K terms to order one.
    return {
        "A": rng.standard_normal((M, K)).astype(np.float32),
        "B": (rng.standard_normal((K, N)) / np.sqrt(K)).astype(np.float32),
    }


def matmul_rectangular(A, B, C, M, K, N):
    C[:, :] = A @ B

"""batched_matmul: C[p] = A[p] @ B[p] for a batch of BATCH independent float32 products."""

import numpy as np


def initialize(rng, BATCH, M, K, N):
    # A of order one and B scaled by 1/sqrt(K): every C[p, i, j] sums K terms to order one.
    return {
        "A": rng.standard_normal((BATCH, M, K)).astype(np.float32),
        "B": (rng.standard_normal((BATCH, K, N)) / np.sqrt(K)).astype(np.float32),
    }


def batched_matmul(A, B, C, BATCH, M, K, N):
    for p in range(BATCH):
        C[p, :, :] = A[p, :, :] @ B[p, :, :]

"""tensor3d_matmul: C[n] = A[n] @ B for a float32 N x M x K tensor A and one K x L matrix B
(torch.matmul broadcasting B over A's leading axis)."""

import numpy as np


def initialize(rng, N, M, K, L):
    # A of order one and B scaled by 1/sqrt(K): every output sums K terms to order one.
    return {
        "A": rng.standard_normal((N, M, K)).astype(np.float32),
        "B": (rng.standard_normal((K, L)) / np.sqrt(K)).astype(np.float32),
    }


def tensor3d_matmul(A, B, C, N, M, K, L):
    # Every slice of A along its leading axis is an M x K by K x L matrix product with the same B.
    for t in range(N):
        C[t, :, :] = A[t, :, :] @ B

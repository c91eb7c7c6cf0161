"""tensor4d_matmul: C[b, i, j, k] = sum over l of A[b, i, j, l] B[l, k] for a float32 4-D tensor A
and a matrix B (torch.einsum("bijl,lk->bijk", A, B))."""

import numpy as np


def initialize(rng, BATCH, NI, NJ, NL, NK):
    # A of order one and B scaled by 1/sqrt(NL): every output sums NL terms to order one.
    return {
        "A": rng.standard_normal((BATCH, NI, NJ, NL)).astype(np.float32),
        "B": (rng.standard_normal((NL, NK)) / np.sqrt(NL)).astype(np.float32),
    }


def tensor4d_matmul(A, B, C, BATCH, NI, NJ, NL, NK):
    # The contraction is over A's last axis only: every slice A[p, q] (b = p, i = q) is an
    # NJ x NL by NL x NK matrix product with the same B.
    for p in range(BATCH):
        for q in range(NI):
            C[p, q, :, :] = A[p, q, :, :] @ B

"""diag_matmul: C = diag(d) @ B, written as KernelBench's module computes it (the dense N x N diagonal matrix times B)."""

import numpy as np


def initialize(rng, N, M):
    return {
        "d": rng.standard_normal(N).astype(np.float32),
        "B": rng.standard_normal((N, M)).astype(np.float32),
    }


def diag_matmul(d, B, C, N, M):
    dense = np.zeros((N, N), dtype=np.float32)
    for i in range(N):
        dense[i, i] = d[i]
    C[:, :] = dense @ B

"""bicg: s = A^T r and q = A p in one sweep over A by rows (PolyBench/C bicg, the BiCG
sub-kernel)."""

import numpy as np


def initialize(rng, M, N):
    return {
        "A": rng.standard_normal((N, M)),
        "p": rng.standard_normal(M),
        "r": rng.standard_normal(N),
    }


def bicg(A, p, r, s, q, M, N):
    s[:] = 0.0
    for i in range(N):
        s[:] += r[i] * A[i, :]
        q[i] = A[i, :] @ p

"""trmm: B = alpha A^T B, A unit lower triangular, in place (PolyBench/C trmm)."""

import numpy as np


def initialize(rng, M, N):
    # Only A's strict lower triangle is read (the diagonal is taken as ones); the diagonal
    # and the upper triangle hold unrelated values, so a kernel that reads them fails.
    return {
        "A": rng.standard_normal((M, M)),
        "B": rng.standard_normal((M, N)),
        "alpha": 1.5,
    }


def trmm(A, B, alpha, M, N):
    for i in range(M):
        # PolyBench's loops over j and k > i, vectorised: row i of B takes column i of A's
        # strict lower triangle times the rows below it, which are not updated yet.
        B[i, :] = alpha * (B[i, :] + A[i + 1:M, i] @ B[i + 1:M, :])

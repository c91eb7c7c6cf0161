"""symm: C = alpha A B + beta C with A symmetric, stored in its lower triangle (PolyBench/C symm)."""

import numpy as np


def initialize(rng, M, N):
    # A's strict upper triangle holds values unrelated to its lower one: the kernel must not read it.
    return {
        "A": rng.standard_normal((M, M)),
        "B": rng.standard_normal((M, N)),
        "C": rng.standard_normal((M, N)),
        "alpha": 1.5,
        "beta": 1.2,
    }


def symm(A, B, C, alpha, beta, M, N):
    temp2 = np.empty((N,), dtype=np.float64)
    rest = np.empty((N,), dtype=np.float64)
    for i in range(M):
        # PolyBench's temp2, vectorised over j: row i of the lower triangle (A[i, k], k < i)
        # times the rows of B above row i.
        temp2[:] = A[i, 0:i] @ B[0:i, :]
        # PolyBench also adds alpha B[i, j] A[i, k] into every row k < i of C, after that
        # row's own step. The same terms are gathered here instead of scattered: row i takes
        # A[k, i] B[k, :] from each row k > i (column i of the lower triangle), so that each
        # row of C is finished in one pass, without an i x N temporary per row.
        rest[:] = A[i + 1:M, i] @ B[i + 1:M, :]
        C[i, :] = beta * C[i, :] + alpha * B[i, :] * A[i, i] + alpha * temp2 + alpha * rest

"""lu: in-place LU factorization A = L U without pivoting (PolyBench/C lu)."""

import numpy as np


def initialize(rng, N):
    # A = 2 I + E / sqrt(N), E uniform in [-1, 1]: a nonsymmetric matrix whose symmetric
    # part is positive definite, so that every leading minor is nonsingular and LU without
    # pivoting is stable.
    A = rng.uniform(-1.0, 1.0, (N, N)) / np.sqrt(max(N, 1))
    A[np.arange(N), np.arange(N)] += 2.0
    return {"A": A}


def lu(A, N):
    # PolyBench's formulas: for j < i, A[i, j] = (A[i, j] - sum_{k<j} A[i, k] A[k, j]) / A[j, j]
    # (L, unit diagonal implied), and for j >= i, A[i, j] -= sum_{k<i} A[i, k] A[k, j] (U).
    # Visited pivot by pivot (Doolittle, left-looking): step p finishes row p of U, which
    # needs the rows of U above it and row p of L, then column p of L, which needs the
    # columns of L to its left and column p of U. Each step is a recurrence on the previous
    # ones; within a step the entries are independent dot products.
    for p in range(N):
        A[p, p:N] = A[p, p:N] - A[p, 0:p] @ A[0:p, p:N]
        pivot = A[p, p]
        A[p + 1:N, p] = (A[p + 1:N, p] - A[p + 1:N, 0:p] @ A[0:p, p]) / pivot

"""ludcmp: solve A x = b by LU decomposition without pivoting, then forward and back
substitution (PolyBench/C ludcmp)."""

import numpy as np


def initialize(rng, N):
    # A = 2 I + E / sqrt(N), E uniform in [-1, 1]: nonsymmetric, its symmetric part positive
    # definite, so LU without pivoting is stable and A x = b well conditioned.
    A = rng.uniform(-1.0, 1.0, (N, N)) / np.sqrt(max(N, 1))
    A[np.arange(N), np.arange(N)] += 2.0
    return {"A": A, "b": rng.standard_normal(N)}


def ludcmp(A, b, x, y, N):
    # LU in place with PolyBench's formulas (L strictly below the diagonal, unit diagonal
    # implied; U on and above it), visited pivot by pivot: row p of U, then column p of L,
    # each entry an inner product over the pivots before p.
    for p in range(N):
        A[p, p:N] = A[p, p:N] - A[p, 0:p] @ A[0:p, p:N]
        pivot = A[p, p]
        A[p + 1:N, p] = (A[p + 1:N, p] - A[p + 1:N, 0:p] @ A[0:p, p]) / pivot
    # L y = b, forward: y[i] needs every y[j], j < i.
    for i in range(N):
        y[i] = b[i] - A[i, 0:i] @ y[0:i]
    # U x = y, backward (q = N-1 down to 0): x[q] needs every x[j], j > q.
    for r in range(N):
        q = N - 1 - r
        x[q] = (y[q] - A[q, q + 1:N] @ x[q + 1:N]) / A[q, q]

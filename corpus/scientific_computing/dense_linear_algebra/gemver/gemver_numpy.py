"""gemver: A += u1 v1^T + u2 v2^T, x += beta A^T y + z, w += alpha A x (PolyBench/C gemver)."""

import numpy as np


def initialize(rng, N):
    return {
        "A": rng.standard_normal((N, N)),
        "u1": rng.standard_normal(N),
        "v1": rng.standard_normal(N),
        "u2": rng.standard_normal(N),
        "v2": rng.standard_normal(N),
        "w": rng.standard_normal(N),
        "x": rng.standard_normal(N),
        "y": rng.standard_normal(N),
        "z": rng.standard_normal(N),
        "alpha": 1.5,
        "beta": 1.2,
    }


def gemver(A, u1, v1, u2, v2, w, x, y, z, alpha, beta, N):
    # Rank-two update of A, row by row.
    for i in range(N):
        A[i, :] = A[i, :] + u1[i] * v1 + u2[i] * v2
    # x[i] += beta * sum_j A[j, i] y[j]: a product with A's transpose (the columns of A).
    x[:] = x + beta * (A.T @ y)
    x[:] = x + z
    # w[i] += alpha * sum_j A[i, j] x[j], with the updated A and x.
    w[:] = w + alpha * (A @ x)

"""cholesky: A = L L^T for a symmetric positive definite A (PolyBench/C cholesky, out-of-place)."""

import numpy as np


def initialize(rng, N):
    # A = B B^T / N + I: symmetric, eigenvalues in about [1, 5], entries of order one.
    B = rng.standard_normal((N, N))
    A = B @ B.T / N
    A = 0.5 * (A + A.T) + np.eye(N)
    return {"A": A}


def cholesky(A, L, N):
    L[:, :] = 0.0
    for j in range(N):
        d = np.sqrt(A[j, j] - L[j, 0:j] @ L[j, 0:j])
        L[j, j] = d
        L[j + 1:N, j] = (A[j + 1:N, j] - L[j + 1:N, 0:j] @ L[j, 0:j]) / d

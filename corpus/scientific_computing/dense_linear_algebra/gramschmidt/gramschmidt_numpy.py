"""gramschmidt: QR factorization A = Q R by modified Gram-Schmidt (PolyBench/C gramschmidt)."""

import numpy as np


def initialize(rng, M, N):
    # A = sqrt(M) U diag(s) V^T with U (M x N) and V (N x N) orthonormal from the QR of
    # Gaussian matrices and singular values s in [1, 2]: dense, entries of order one,
    # condition number at most 2, so Gram-Schmidt's columns stay independent.
    U = np.linalg.qr(rng.standard_normal((M, N)))[0]
    V = np.linalg.qr(rng.standard_normal((N, N)))[0]
    s = rng.uniform(1.0, 2.0, N)
    return {"A": np.sqrt(M) * (U * s) @ V.T}


def gramschmidt(A, R, Q, M, N):
    # Column k is normalised into Q, then removed from every later column of A (which
    # PolyBench updates in place): a recurrence over k; within a step, the columns j > k
    # are independent (a vector-matrix product for R's row k, then a rank-one update).
    for k in range(N):
        R[k, 0:k] = 0.0
        nrm = np.sum(A[:, k] * A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        R[k, k + 1:N] = Q[:, k] @ A[:, k + 1:N]
        A[:, k + 1:N] -= Q[:, k:k + 1] * R[k:k + 1, k + 1:N]

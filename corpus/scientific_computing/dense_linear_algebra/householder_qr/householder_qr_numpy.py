"""householder_qr: Householder QR factorisation of an M x N matrix (M >= N) in LAPACK dgeqr2's
compact form: R in the upper triangle of A, the Householder vectors below it, their scalars in
tau (Golub and Van Loan, Matrix Computations, 4th ed., alg. 5.2.1; LAPACK's sign convention)."""

import numpy as np


def initialize(rng, M, N):
    # A dense Gaussian matrix: entries of order one, full column rank with probability one.
    return {"A": rng.standard_normal((M, N))}


def householder_qr(A, tau, M, N):
    w = np.empty((N,), dtype=np.float64)
    for k in range(N):
        # The reflector H_k = I - tau_k v v^T (v[0] = 1) that maps column k below the
        # diagonal onto beta e_1, with beta = -sign(alpha) ||A[k:M, k]|| (LAPACK dlarfg);
        # tau_k = 0 (H_k = I) when nothing lies below the diagonal.
        alpha = A[k, k]
        xnrm2 = np.sum(A[k + 1:M, k] * A[k + 1:M, k])
        tau[k] = 0.0
        if xnrm2 > 0.0:
            nrm = np.sqrt(alpha * alpha + xnrm2)
            beta = nrm
            if alpha >= 0.0:
                beta = -nrm
            tau[k] = (beta - alpha) / beta
            A[k + 1:M, k] = A[k + 1:M, k] / (alpha - beta)
            A[k, k] = beta
            # Apply H_k to the trailing columns: w = v^T A[k:M, k+1:N], then a rank-one update.
            w[k + 1:N] = A[k, k + 1:N] + A[k + 1:M, k] @ A[k + 1:M, k + 1:N]
            A[k, k + 1:N] = A[k, k + 1:N] - tau[k] * w[k + 1:N]
            A[k + 1:M, k + 1:N] = A[k + 1:M, k + 1:N] - (tau[k] * A[k + 1:M, k:k + 1]) * w[k + 1:N]

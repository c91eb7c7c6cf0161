"""gaussian: Rodinia's Gaussian elimination: A x = b solved by forward elimination without
pivoting, one column t at a time (the multipliers of column t, then the update of the rows
below it, A's trailing block and b), then back substitution on the upper-triangular
system."""

import numpy as np


def initialize(rng, N):
    # Off-diagonal entries decaying away from the diagonal, and a diagonal larger than both
    # its row's and its column's off-diagonal sums: strictly diagonally dominant, so that
    # elimination without pivoting is stable, while the multipliers stay of order 0.1 .. 1.
    i = np.arange(N)
    A = rng.uniform(-1.0, 1.0, (N, N)) / (1.0 + np.abs(i[:, None] - i[None, :]))
    off = np.abs(A) - np.diag(np.diag(np.abs(A)))
    A[i, i] = 0.5 + 0.5 * (off.sum(axis=0) + off.sum(axis=1)) + rng.uniform(0.0, 0.5, N)
    return {"A": A, "b": rng.standard_normal(N)}


def gaussian(A, b, m, x, N):
    m[:, :] = 0.0
    for t in range(N - 1):
        # Fan1: the multipliers of column t.
        m[t + 1:N, t] = A[t + 1:N, t] / A[t, t]
        # Fan2: rows below t lose m times row t (column t becomes zero: written exactly),
        # and so does b.
        A[t + 1:N, t + 1:N] -= m[t + 1:N, t:t + 1] * A[t:t + 1, t + 1:N]
        A[t + 1:N, t] = 0.0
        b[t + 1:N] -= m[t + 1:N, t] * b[t]
    # Back substitution, from the last row up.
    for s in range(N):
        i = N - 1 - s
        x[i] = (b[i] - A[i, i + 1:N] @ x[i + 1:N]) / A[i, i]

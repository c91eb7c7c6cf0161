"""s115_triangular: TSVC s115, a[i] -= aa[j][i] * a[j] for j < i (a triangular solve)."""

import numpy as np


def initialize(rng, N):
    # Off-diagonal entries of size 1/sqrt(N): a depends on aa at order one, and the
    # solution stays bounded (|a| below about 2 up to N = 12000; with entries of order
    # one it grows exponentially).
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "aa": (rng.uniform(-1.0, 1.0, (N, N)) / np.sqrt(N)).astype(np.float32),
    }


def s115_triangular(a, aa, N):
    # a[j] is final once the steps before j have run; step j updates everything after it.
    for j in range(N):
        a[j + 1:N] = a[j + 1:N] - aa[j, j + 1:N] * a[j]

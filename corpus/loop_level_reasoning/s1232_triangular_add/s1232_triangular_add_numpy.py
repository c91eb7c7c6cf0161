"""s1232_triangular_add: TSVC s1232, aa[i, j] = bb[i, j] + cc[i, j] for i >= j."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s1232_triangular_add(aa, bb, cc, N):
    # TSVC's order: column j outside, the rows i = j .. N-1 of that column inside.
    for j in range(N):
        aa[j:N, j] = bb[j:N, j] + cc[j:N, j]

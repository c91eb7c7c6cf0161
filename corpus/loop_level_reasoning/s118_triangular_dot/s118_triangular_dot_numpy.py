"""s118_triangular_dot: TSVC s118, a[i] += bb[j][i] * a[i-j-1] for j < i."""

import numpy as np


def initialize(rng, N):
    # Entries of bb of size 1/sqrt(N): every a[i] depends on bb at order one, and a stays
    # below about 2 (with entries of order one it grows exponentially with N).
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "bb": (rng.uniform(-1.0, 1.0, (N, N)) / np.sqrt(N)).astype(np.float32),
    }


def s118_triangular_dot(a, bb, N):
    # a[i] needs every earlier a, already updated: the outer loop is sequential, the inner
    # one a dot product of column i of bb with a[i-1], a[i-2], ..., a[0].
    for i in range(1, N):
        for j in range(0, i):
            a[i] += bb[j, i] * a[i - j - 1]

"""s235_imperfect_nest: TSVC s235, a[i] += b[i] c[i]; aa[j, i] = aa[j-1, i] + bb[j, i] a[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s235_imperfect_nest(a, b, c, aa, bb, N):
    # a first (each column's sums use its updated a[i]), then the columns at once, row by row.
    a[:] += b * c
    for j in range(1, N):
        aa[j, :] = aa[j - 1, :] + bb[j, :] * a

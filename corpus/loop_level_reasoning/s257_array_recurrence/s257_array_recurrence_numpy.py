"""s257_array_recurrence: TSVC s257, for i >= 1, for j: a[i] = aa[j, i] - a[i-1]; aa[j, i] = a[i] + bb[j, i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s257_array_recurrence(a, aa, bb, N):
    # a[i] is overwritten for every j and only its last value (j = N-1) is kept; every
    # aa[j, i] sees the same a[i-1]. Column i is updated as a whole, after a[i].
    for i in range(1, N):
        a[i] = aa[N - 1, i] - a[i - 1]
        aa[:, i] = (aa[:, i] - a[i - 1]) + bb[:, i]

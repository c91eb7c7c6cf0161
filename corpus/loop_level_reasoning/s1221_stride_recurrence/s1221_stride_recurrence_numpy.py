"""s1221_stride_recurrence: TSVC s1221, b[i] = b[i-4] + a[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1221_stride_recurrence(a, b, N):
    for i in range(4, N):
        b[i] = b[i - 4] + a[i]

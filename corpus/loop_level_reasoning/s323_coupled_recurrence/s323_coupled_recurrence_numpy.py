"""s323_coupled_recurrence: TSVC s323, a[i] = b[i-1] + c[i] * d[i]; b[i] = a[i] + c[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    # b[i] = b[i-1] + c[i] * (d[i] + e[i]) is a random walk with steps of order 0.5 and
    # mean zero: a and b wander to about 0.5 sqrt(N), far from overflow at any size here.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s323_coupled_recurrence(a, b, c, d, e, N):
    for i in range(1, N):
        a[i] = b[i - 1] + c[i] * d[i]
        b[i] = a[i] + c[i] * e[i]

"""s221_partial_recurrence: TSVC s221, a[i] += c[i] * d[i]; b[i] = b[i-1] + a[i] + d[i]."""

import numpy as np


def initialize(rng, N):
    # Increments a[i] + c[i] d[i] + d[i] of mean zero: b stays within a few sqrt(N).
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s221_partial_recurrence(a, b, c, d, N):
    a[1:N] += c[1:N] * d[1:N]
    for i in range(1, N):
        b[i] = b[i - 1] + a[i] + d[i]

"""s321_recurrence: TSVC s321, first-order linear recurrence a[i] += a[i-1] * b[i]."""

import numpy as np


def initialize(rng, N):
    # |b| <= 0.9 keeps the recurrence contracting: |a| stays below about 10.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-0.9, 0.9, N).astype(np.float32),
    }


def s321_recurrence(a, b, N):
    for i in range(1, N):
        a[i] += a[i - 1] * b[i]

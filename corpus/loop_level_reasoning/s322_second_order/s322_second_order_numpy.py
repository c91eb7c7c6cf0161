"""s322_second_order: TSVC s322, second-order linear recurrence a[i] = a[i] + a[i-1] * b[i] + a[i-2] * c[i]."""

import numpy as np


def initialize(rng, N):
    # |b| + |c| <= 0.9 keeps the recurrence contracting: |a| stays below about 10.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-0.45, 0.45, N).astype(np.float32),
        "c": rng.uniform(-0.45, 0.45, N).astype(np.float32),
    }


def s322_second_order(a, b, c, N):
    for i in range(2, N):
        a[i] = a[i] + a[i - 1] * b[i] + a[i - 2] * c[i]

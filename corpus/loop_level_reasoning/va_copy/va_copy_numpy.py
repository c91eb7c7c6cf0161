"""va_copy: TSVC va, a[i] = b[i] (vector copy)."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def va_copy(a, b, N):
    a[:] = b

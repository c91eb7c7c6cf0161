"""s271_conditional: TSVC s271, if (b[i] > 0) a[i] += b[i] * c[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s271_conditional(a, b, c, N):
    a[:] = np.where(b > 0.0, a + b * c, a)

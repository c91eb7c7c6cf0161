"""vtv_multiply: TSVC vtv, a[i] *= b[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def vtv_multiply(a, b, N):
    a[:] *= b

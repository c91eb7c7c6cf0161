"""vpv_add: TSVC vpv, a[i] += b[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def vpv_add(a, b, N):
    a[:] += b

"""vpvts_scaled_add: TSVC vpvts, a[i] += b[i] * s (scaled vector add)."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "s": np.float32(rng.uniform(0.5, 1.5)),
    }


def vpvts_scaled_add(a, b, s, N):
    a[:] += b * s

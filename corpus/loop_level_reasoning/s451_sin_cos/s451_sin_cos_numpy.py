"""s451_sin_cos: TSVC s451, a[i] = sinf(b[i]) + cosf(c[i])."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-3.0, 3.0, N).astype(np.float32),
        "c": rng.uniform(-3.0, 3.0, N).astype(np.float32),
    }


def s451_sin_cos(a, b, c, N):
    a[:] = np.sin(b) + np.cos(c)

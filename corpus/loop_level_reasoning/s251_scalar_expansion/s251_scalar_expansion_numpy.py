"""s251_scalar_expansion: TSVC s251, s = b[i] + c[i] * d[i]; a[i] = s * s."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s251_scalar_expansion(a, b, c, d, N):
    a[:] = (b + c * d) * (b + c * d)

"""s274_guarded_overwrite: TSVC s274, a[i] = c[i] + e[i] * d[i]; if (a[i] > 0) b[i] = a[i] + b[i]; else a[i] = d[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s274_guarded_overwrite(a, b, c, d, e, N):
    # b's select reads the first value of a, before the else branch overwrites it.
    a[:] = c + e * d
    b[:] = np.where(a > 0.0, a + b, b)
    a[:] = np.where(a > 0.0, a, d * e)

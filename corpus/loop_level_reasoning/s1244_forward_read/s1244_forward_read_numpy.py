"""s1244_forward_read: TSVC s1244, a[i] = b[i] + c[i]^2 + b[i]^2 + c[i]; d[i] = a[i] + a[i+1]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1244_forward_read(a, b, c, d, N):
    # d[i] takes the old a[i+1] before a is stored, then adds the new a[i] (the same sum:
    # float addition commutes).
    d[0:N - 1] = a[1:N]
    a[0:N - 1] = b[0:N - 1] + c[0:N - 1] * c[0:N - 1] + b[0:N - 1] * b[0:N - 1] + c[0:N - 1]
    d[0:N - 1] = a[0:N - 1] + d[0:N - 1]

"""s244_overwrite: TSVC s244, a[i] = b[i] + c[i] d[i]; b[i] = c[i] + b[i]; a[i+1] = b[i] + a[i+1] d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s244_overwrite(a, b, c, d, N):
    # Each a[i+1] stored by the third statement is overwritten by the next iteration's
    # first statement, except the last one, a[N-1], which reads the new b[N-2].
    a[0:N - 1] = b[0:N - 1] + c[0:N - 1] * d[0:N - 1]
    b[0:N - 1] = c[0:N - 1] + b[0:N - 1]
    a[N - 1] = b[N - 2] + a[N - 1] * d[N - 2]

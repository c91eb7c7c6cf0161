"""s1213_reordering: TSVC s1213, a[i] = b[i-1] + c[i]; b[i] = a[i+1] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1213_reordering(a, b, c, d, N):
    # The statements reordered: b[i] from the old a[i+1] first, then a[i] from the new
    # b[i-1] (b[0] is never written).
    b[1:N - 1] = a[2:N] * d[1:N - 1]
    a[1:N - 1] = b[0:N - 2] + c[1:N - 1]

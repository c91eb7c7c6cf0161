"""s1251_scalar_expansion: TSVC s1251, s = b[i] + c[i]; b[i] = a[i] + d[i]; a[i] = s * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1251_scalar_expansion(a, b, c, d, e, N):
    # The scalar s holds the old b + c while b is overwritten; expanded into a temporary.
    s = np.empty(N, dtype=np.float32)
    s[:] = b + c
    b[:] = a + d
    a[:] = s * e

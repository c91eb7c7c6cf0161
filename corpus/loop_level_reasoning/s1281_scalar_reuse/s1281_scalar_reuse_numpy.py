"""s1281_scalar_reuse: TSVC s1281, x = b[i] * c[i] + a[i] * d[i] + e[i]; a[i] = x - 1; b[i] = x."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1281_scalar_reuse(a, b, c, d, e, N):
    # b takes the value of TSVC's scalar x; a is then x - 1.
    b[:] = b * c + a * d + e
    a[:] = b - 1.0

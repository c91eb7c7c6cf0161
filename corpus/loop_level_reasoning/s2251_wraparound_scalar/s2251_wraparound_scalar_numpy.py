"""s2251_wraparound_scalar: TSVC s2251, s = 0; a[i] = s * e[i]; s = b[i] + c[i]; b[i] = a[i] + d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s2251_wraparound_scalar(a, b, c, d, e, N):
    # s is used one iteration after it is set: a[i] takes the old b[i-1] + c[i-1] (0 for i = 0).
    a[0] = 0.0 * e[0]
    a[1:] = (b[: N - 1] + c[: N - 1]) * e[1:]
    b[:] = a + d

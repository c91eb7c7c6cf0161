"""s242_scalar_recurrence: TSVC s242, a[i] = a[i-1] + s1 + s2 + b[i] + c[i] + d[i]."""

import numpy as np


def initialize(rng, N):
    # b, c, d of mean -0.25 each offset s1 + s2 = 0.75: the increments have mean zero.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 0.5, N).astype(np.float32),
        "c": rng.uniform(-1.0, 0.5, N).astype(np.float32),
        "d": rng.uniform(-1.0, 0.5, N).astype(np.float32),
        "s1": np.float32(0.5),
        "s2": np.float32(0.25),
    }


def s242_scalar_recurrence(a, b, c, d, s1, s2, N):
    for i in range(1, N):
        a[i] = a[i - 1] + s1 + s2 + b[i] + c[i] + d[i]

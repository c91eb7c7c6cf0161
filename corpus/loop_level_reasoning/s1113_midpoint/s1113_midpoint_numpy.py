"""s1113_midpoint: TSVC s1113, a[i] = a[N/2] + b[i] for i = 0 .. N-1."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1113_midpoint(a, b, N):
    # Up to and including i = N/2 the loop reads the old a[N/2]; at i = N/2 it overwrites
    # it, and every later iteration reads the new value.
    m = N // 2
    old = a[m]
    a[0:m + 1] = old + b[0:m + 1]
    a[m + 1:N] = a[m] + b[m + 1:N]

"""s2244_dead_store: TSVC s2244, a[i+1] = b[i] + e[i]; a[i] = b[i] + c[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s2244_dead_store(a, b, c, e, N):
    # Each a[i+1] = b[i] + e[i] is overwritten by the next iteration, except the last.
    a[0:N - 1] = b[0:N - 1] + c[0:N - 1]
    a[N - 1] = b[N - 2] + e[N - 2]

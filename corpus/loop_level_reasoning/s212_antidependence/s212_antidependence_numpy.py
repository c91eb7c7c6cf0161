"""s212_antidependence: TSVC s212, a[i] *= c[i]; b[i] += a[i+1] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s212_antidependence(a, b, c, d, N):
    # b reads a[i+1] before iteration i+1 scales it: update b from the old a first.
    b[0:N - 1] += a[1:N] * d[0:N - 1]
    a[0:N - 1] *= c[0:N - 1]

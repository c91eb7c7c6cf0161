"""vpvpv_add3: TSVC vpvpv, a[i] += b[i] + c[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def vpvpv_add3(a, b, c, N):
    a[:] += b + c

"""s1279_nested_if: TSVC s1279, if a[i] < 0 and b[i] > a[i] then c[i] += d[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1279_nested_if(a, b, c, d, e, N):
    c[:] = np.where((a < 0.0) & (b > a), c + d * e, c)

"""s261_scalar_renaming: TSVC s261, for i >= 1: t = a[i] + b[i]; a[i] = t + c[i-1]; t = c[i] * d[i]; c[i] = t."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s261_scalar_renaming(a, b, c, d, N):
    # a[i] reads c[i-1] after iteration i-1 updated it (c[0] is never updated): c goes first.
    c[1:] = c[1:] * d[1:]
    a[1:] = (a[1:] + b[1:]) + c[: N - 1]

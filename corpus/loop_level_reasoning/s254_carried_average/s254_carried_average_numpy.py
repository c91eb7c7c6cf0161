"""s254_carried_average: TSVC s254, x = b[N-1]; a[i] = (b[i] + x) * 0.5; x = b[i]."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s254_carried_average(a, b, N):
    # x wraps around: it starts as b[N-1] and then holds b[i-1].
    a[0] = (b[0] + b[N - 1]) * 0.5
    a[1:] = (b[1:] + b[: N - 1]) * 0.5

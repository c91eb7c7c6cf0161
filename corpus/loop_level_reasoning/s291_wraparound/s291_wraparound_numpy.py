"""s291_wraparound: TSVC s291, a[i] = (b[i] + b[im1]) * 0.5 with im1 = N-1 at i = 0, then i-1."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s291_wraparound(a, b, N):
    # The first iteration, whose neighbour wraps around to b[N-1], peeled off.
    a[0] = (b[0] + b[N - 1]) * 0.5
    a[1:] = (b[1:] + b[:-1]) * 0.5

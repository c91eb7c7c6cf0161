"""s292_double_wrap: TSVC s292, a[i] = (b[i] + b[im1] + b[im2]) * 0.333 with two wrap-around
variables (im1, im2 start at N-1, N-2 and follow i one and two steps behind)."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s292_double_wrap(a, b, N):
    # The first two iterations, whose neighbours wrap around, peeled off.
    a[0] = (b[0] + b[N - 1] + b[N - 2]) * 0.333
    a[1] = (b[1] + b[0] + b[N - 1]) * 0.333
    a[2:] = (b[2:] + b[1:-1] + b[:-2]) * 0.333

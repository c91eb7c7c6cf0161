"""s3111_conditional_sum: TSVC s3111, sum of the positive elements, if (a[i] > 0) sum += a[i]."""

import numpy as np


def initialize(rng, N):
    # Uniform in [-1, 1]: about half the elements are positive, in random order, and the
    # sum (about N / 4) moves by some 1 / sqrt(N) relative from draw to draw, well above
    # the float32 band at every size the ranges allow.
    return {"a": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s3111_conditional_sum(a, N):
    # TSVC's order: one accumulator, in the array's precision from the start (a Python 0.0
    # would stay float64 when no element is positive, as at N = 1).
    s = 0.0 * a[0]
    for i in range(N):
        if a[i] > 0.0:
            s = s + a[i]
    return s

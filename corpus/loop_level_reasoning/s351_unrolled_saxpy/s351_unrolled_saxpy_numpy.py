"""s351_unrolled_saxpy: TSVC s351, a saxpy a[i] += alpha * b[i] unrolled by hand five times."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "alpha": np.float32(rng.uniform(0.5, 1.5)),
    }


def s351_unrolled_saxpy(a, b, alpha, N):
    # TSVC's body, i = 0, 5, 10, ...: five statements on the elements i .. i+4, written on
    # the rows of five of a and b (row r holds the elements 5r .. 5r+4).
    ra = a.reshape(N // 5, 5)
    rb = b.reshape(N // 5, 5)
    ra[:, 0] += alpha * rb[:, 0]
    ra[:, 1] += alpha * rb[:, 1]
    ra[:, 2] += alpha * rb[:, 2]
    ra[:, 3] += alpha * rb[:, 3]
    ra[:, 4] += alpha * rb[:, 4]

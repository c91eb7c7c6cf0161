"""s424_strip_recurrence: TSVC s424, xx[i+1] = flat[i] + a[i] with xx = flat + 63."""

import numpy as np


def initialize(rng, N):
    return {
        "flat": rng.uniform(-1.0, 1.0, N + 63).astype(np.float32),
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s424_strip_recurrence(flat, a, N):
    # TSVC's xx points 63 elements into flat: flat[i+64] = flat[i] + a[i], i = 0 .. N-2.
    # flat[i] was written 64 iterations earlier (a true dependence of distance 64), so the
    # loop runs in strips of 64 iterations, each of which reads only earlier strips' values.
    for s in range((N + 62) // 64):
        k = 64 * s
        e = min(k + 64, N - 1)
        flat[k + 64:e + 64] = flat[k:e] + a[k:e]

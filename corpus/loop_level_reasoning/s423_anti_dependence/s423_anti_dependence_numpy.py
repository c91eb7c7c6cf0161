"""s423_anti_dependence: TSVC s423, flat[i+1] = xx[i] + a[i] with xx = flat + 64."""

import numpy as np


def initialize(rng, N):
    return {
        "flat": rng.uniform(-1.0, 1.0, N + 63).astype(np.float32),
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s423_anti_dependence(flat, a, N):
    # TSVC's xx points 64 elements into flat: flat[i+1] = flat[i+64] + a[i], i = 0 .. N-2.
    # Each flat[i+64] is read 63 iterations before it is overwritten (an anti-dependence),
    # so the slice assignment, which reads the whole right-hand side first, is the same loop.
    flat[1:N] = flat[64:N + 63] + a[0:N - 1]

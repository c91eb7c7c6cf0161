"""s422_anti_dependence: TSVC s422, xx[i] = flat[i+8] + a[i] with xx = flat + 4."""

import numpy as np


def initialize(rng, N):
    return {
        "flat": rng.uniform(-1.0, 1.0, N + 8).astype(np.float32),
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s422_anti_dependence(flat, a, N):
    # TSVC's xx points 4 elements into flat: flat[i+4] = flat[i+8] + a[i], i = 0 .. N-1.
    # Each flat[i+8] is read 4 iterations before it is overwritten (an anti-dependence),
    # so the slice assignment, which reads the whole right-hand side first, is the same loop.
    flat[4:N + 4] = flat[8:N + 8] + a

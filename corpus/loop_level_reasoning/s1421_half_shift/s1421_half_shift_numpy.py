"""s1421_half_shift: TSVC s1421, b[i] = xx[i] + a[i] with xx = &b[N/2], for i < N/2."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1421_half_shift(b, a, N):
    # TSVC's xx points at the second half of b: b[i] = b[i + N/2] + a[i], i = 0 .. N/2-1.
    # The halves do not overlap.
    b[0:N // 2] = b[N // 2:N] + a[0:N // 2]

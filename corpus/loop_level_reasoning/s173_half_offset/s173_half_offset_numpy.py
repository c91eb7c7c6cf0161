"""s173_half_offset: TSVC s173, k = N/2; a[i + k] = a[i] + b[i] for i = 0 .. N/2-1."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s173_half_offset(a, b, N):
    # The loop reads the first half of a and writes the second: no overlap.
    k = N // 2
    a[k : 2 * k] = a[:k] + b[:k]

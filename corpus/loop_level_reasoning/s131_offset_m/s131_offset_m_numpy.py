"""s131_offset_m: TSVC s131, a[i] = a[i+m] + b[i] with m = 1."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s131_offset_m(a, b, N):
    # With m = 1 the loop reads a[i+1] before the next iteration overwrites it: every
    # value read is an old one, which is what the right-hand side evaluated first gives.
    a[0:N - 1] = a[1:N] + b[0:N - 1]

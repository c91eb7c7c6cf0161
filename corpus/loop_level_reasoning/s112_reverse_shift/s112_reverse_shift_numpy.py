"""s112_reverse_shift: TSVC s112, a[i+1] = a[i] + b[i] for i from N-2 down to 0."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s112_reverse_shift(a, b, N):
    # Run backwards, each a[i] is read before the iteration that overwrites it: every
    # value read is an old one, which is what the right-hand side evaluated first gives.
    a[1:N] = a[0:N - 1] + b[0:N - 1]

"""s1112_reverse: TSVC s1112, a[i] = b[i] + 1 for i from N-1 down to 0."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s1112_reverse(a, b, N):
    # No dependence: the order of the iterations does not matter.
    a[:] = b + 1.0

"""s113_first_element: TSVC s113, a[i] = a[0] + b[i] for i = 1 .. N-1."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s113_first_element(a, b, N):
    # a[0] is read by every iteration and written by none.
    a[1:N] = a[0] + b[1:N]

"""s111_odd_update: TSVC s111, a[i] = a[i-1] + b[i] for the odd i."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s111_odd_update(a, b, N):
    # N is even: row k of the pair views holds elements 2k (column 0) and 2k+1 (column 1).
    # The odd elements are written from the even ones, which the loop never writes.
    a2 = a.reshape(N // 2, 2)
    b2 = b.reshape(N // 2, 2)
    a2[:, 1] = a2[:, 0] + b2[:, 1]

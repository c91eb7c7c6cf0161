"""s171_symbolic_stride: TSVC s171, a[i * inc] += b[i], inc a run-time argument."""

import numpy as np


def initialize(rng, N, INC):
    return {
        "a": rng.uniform(-1.0, 1.0, N * INC).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s171_symbolic_stride(a, b, N, INC):
    # a seen as N rows of INC: element i * INC is the first of row i.
    rows = a.reshape(N, INC)
    rows[:, 0] += b

"""s174_symbolic_offset: TSVC s174, a[i + M] = a[i] + b[i] for i = 0 .. M-1, M a run-time argument."""

import numpy as np


def initialize(rng, N, M):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s174_symbolic_offset(a, b, N, M):
    # Reads a[0 .. M-1], writes a[M .. 2M-1]: no overlap.
    a[M : 2 * M] = a[:M] + b[:M]

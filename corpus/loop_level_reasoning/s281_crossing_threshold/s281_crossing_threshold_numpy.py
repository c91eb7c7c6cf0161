"""s281_crossing_threshold: TSVC s281, x = a[N-1-i] + b[i] * c[i]; a[i] = x - 1; b[i] = x."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s281_crossing_threshold(a, b, c, N):
    # The loop reads a[N-1-i] in reverse order: for i < (N + 1) // 2 that element is not
    # yet written (the old a); from there on it is the a[N-1-i] = x[N-1-i] - 1 written by an
    # earlier iteration.
    h = (N + 1) // 2
    rev = np.empty(N, dtype=np.int64)
    rev[:] = (N - 1) - np.arange(0, N, dtype=np.int64)
    x = np.empty(N, dtype=np.float32)
    x[:h] = a[rev[:h]] + b[:h] * c[:h]
    x[h:] = (x[rev[h:]] - 1.0) + b[h:] * c[h:]
    a[:] = x - 1.0
    b[:] = x

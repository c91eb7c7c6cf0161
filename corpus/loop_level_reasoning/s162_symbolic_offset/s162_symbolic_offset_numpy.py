"""s162_symbolic_offset: TSVC s162, if k > 0: a[i] = a[i + k] + b[i] * c[i], k a run-time argument."""

import numpy as np


def initialize(rng, N, K):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s162_symbolic_offset(a, b, c, N, K):
    # With k > 0 every read a[i + k] is ahead of the writes so far; NumPy evaluates the
    # right-hand side first, as the loop does.
    if K > 0:
        a[: N - K] = a[K:N] + b[: N - K] * c[: N - K]

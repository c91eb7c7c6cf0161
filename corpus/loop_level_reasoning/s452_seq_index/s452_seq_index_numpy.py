"""s452_seq_index: TSVC s452, a[i] = b[i] + c[i] * (float)(i + 1)."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s452_seq_index(a, b, c, N):
    # (real_t)(i + 1): the loop index converted to float32, rounded as C rounds it.
    a[:] = b + c * np.arange(1, N + 1, dtype=np.int64).astype(np.float32)

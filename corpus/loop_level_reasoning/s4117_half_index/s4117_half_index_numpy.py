"""s4117_half_index: TSVC s4117, a[i] = b[i] + c[i/2] * d[i] (integer-halved index)."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s4117_half_index(a, b, c, d, N):
    # i / 2 in C's integer division: even i = 2k and odd i = 2k + 1 both read c[k].
    half = np.empty(N, dtype=np.int64)
    half[:] = np.arange(0, N, dtype=np.int64) // 2
    a[:] = b + c[half] * d

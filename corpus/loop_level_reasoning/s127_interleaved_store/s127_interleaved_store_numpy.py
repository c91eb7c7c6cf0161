"""s127_interleaved_store: TSVC s127, two stores per iteration through j: a[2i] = b[i] + c[i] * d[i], a[2i+1] = b[i] + d[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s127_interleaved_store(a, b, c, d, e, N):
    # j advances twice per iteration, so iteration i stores a[2i] and a[2i+1]: a seen as
    # N/2 pairs, the first and second element of pair i.
    half = N // 2
    pairs = a.reshape(half, 2)
    pairs[:, 0] = b[:half] + c[:half] * d[:half]
    pairs[:, 1] = b[:half] + d[:half] * e[:half]

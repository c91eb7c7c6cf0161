"""s481_exit_on_negative: TSVC s481, stop at the first d[i] < 0, else a[i] += b[i] * c[i]."""

import numpy as np


def initialize(rng, N):
    # d is positive up to a stop index drawn from the second half, negative there, and of
    # either sign after it: the loop updates more than half of a and must find the stop.
    d = rng.uniform(0.5, 1.5, N)
    stop = int(rng.integers(N // 2, N))
    d[stop] = -d[stop]
    d[stop + 1:] *= rng.choice([-1.0, 1.0], N - stop - 1)
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": d.astype(np.float32),
    }


def s481_exit_on_negative(a, b, c, d, N):
    # TSVC exits at the first i with d[i] < 0, before updating a[i]. The reference scans all
    # of d for that index (N if there is none) and then updates a below it.
    idx = np.empty(N, dtype=np.int64)
    idx[:] = np.arange(0, N, dtype=np.int64)
    first = np.min(np.where(d < 0.0, idx, N))
    a[:] = np.where(idx < first, a + b * c, a)

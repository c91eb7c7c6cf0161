"""s482_break_after_update: TSVC s482, a[i] += b[i] * c[i], then stop once c[i] > b[i]."""

import numpy as np


def initialize(rng, N):
    # c < b up to a stop index drawn from the second half, c > b there, and either after it:
    # the loop updates more than half of a and must find the stop.
    b = rng.uniform(-1.0, 1.0, N)
    gap = rng.uniform(0.1, 1.0, N)
    stop = int(rng.integers(N // 2, N))
    gap[stop] = -gap[stop]
    gap[stop + 1:] *= rng.choice([-1.0, 1.0], N - stop - 1)
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": b.astype(np.float32),
        "c": (b - gap).astype(np.float32),
    }


def s482_break_after_update(a, b, c, N):
    # TSVC updates a[i] and then breaks at the first i with c[i] > b[i], so a[0 .. first]
    # change. The reference scans all of b and c for that index (N - 1 if there is none).
    idx = np.empty(N, dtype=np.int64)
    idx[:] = np.arange(0, N, dtype=np.int64)
    first = np.min(np.where(c > b, idx, N - 1))
    a[:] = np.where(idx <= first, a + b * c, a)

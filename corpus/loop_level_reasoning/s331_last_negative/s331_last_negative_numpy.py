"""s331_last_negative: TSVC s331, the last index j with a[j] < 0 (-1 when there is none)."""

import numpy as np


def initialize(rng, N):
    # Uniform in [-1, 1] up to a random cut point between N/2 and 3N/4, positive after it:
    # about half the elements before the cut are negative, in random order, and the last
    # negative one sits just before the cut, at a place that changes from draw to draw
    # (with random signs everywhere it would be within a few places of N - 1 every time).
    a = rng.uniform(-1.0, 1.0, N)
    cut = int(rng.integers(N // 2, (3 * N) // 4 + 1))
    a[cut:] = np.abs(a[cut:])
    return {"a": a.astype(np.float32)}


def s331_last_negative(a, N):
    return np.max(np.where(a < 0.0, np.arange(0, N, dtype=np.int64), -1))

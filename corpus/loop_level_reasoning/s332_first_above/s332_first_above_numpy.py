"""s332_first_above: TSVC s332, the first element greater than a threshold t, and its index."""

import numpy as np


def initialize(rng, N):
    # Uniform in [-1, 1], all below the threshold t = 1, except one value planted at a
    # random place in the second half and another at or after it: the first one above t
    # (and so both answers) changes from draw to draw, and a search that stops there
    # still reads at least half of a.
    a = rng.uniform(-1.0, 1.0, N)
    first = int(rng.integers(N // 2, N))
    a[first] = rng.uniform(1.25, 2.0)
    a[int(rng.integers(first, N))] = rng.uniform(1.25, 2.0)
    return {"a": a.astype(np.float32), "t": 1.0}


def s332_first_above(a, t, N):
    # TSVC leaves the loop (goto) at the first hit; the reference scans all of a.
    # The first index with a[i] > t is the smallest such index (N when there is none).
    k = np.min(np.where(a > t, np.arange(0, N, dtype=np.int64), N))
    idx = -2
    val = np.float32(-1.0)
    if k < N:
        idx = k
        val = a[k]
    return idx, val

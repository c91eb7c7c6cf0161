"""s342_unpack: TSVC s342, unpack b into the positive places of a, in order."""

import numpy as np


def initialize(rng, N):
    # a uniform in [-1, 1]: about half its places are positive, in random order, and so
    # about the first half of b is read.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s342_unpack(a, b, N):
    # The load position j advances only on a hit: each iteration needs the count so far.
    j = -1
    for i in range(N):
        if a[i] > 0.0:
            j = j + 1
            a[i] = b[j]

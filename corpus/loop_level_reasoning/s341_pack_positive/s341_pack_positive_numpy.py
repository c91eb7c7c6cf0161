"""s341_pack_positive: TSVC s341, pack the positive elements of b to the front of a."""

import numpy as np


def initialize(rng, N):
    # b uniform in [-1, 1]: about half positive, in random order. a's old values stay
    # beyond the packed part, so they are random too.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s341_pack_positive(a, b, N):
    # The store position j advances only on a hit: each iteration needs the count so far.
    j = -1
    for i in range(N):
        if b[i] > 0.0:
            j = j + 1
            a[j] = b[i]

"""s421_equivalence_shift: TSVC s421, xx[i] = yy[i+1] + a[i] with yy the same array as xx."""

import numpy as np


def initialize(rng, N):
    return {
        "xx": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s421_equivalence_shift(xx, a, N):
    # TSVC's yy points at the same storage as xx: xx[i] = xx[i+1] + a[i], i = 0 .. N-2.
    # Each xx[i+1] is read one iteration before it is overwritten (an anti-dependence), so
    # the slice assignment, which reads the whole right-hand side first, is the same loop.
    xx[0:N - 1] = xx[1:N] + a[0:N - 1]

"""s116_unrolled: TSVC s116, a five-times unrolled a[k] = a[k+1] * a[k]."""

import numpy as np


def initialize(rng, N):
    return {"a": rng.uniform(-2.0, 2.0, N).astype(np.float32)}


def s116_unrolled(a, N):
    # TSVC's loop runs i = 0, 5, 10, ... while i < N - 5, and its five statements set
    # a[k] = a[k+1] * a[k] for k = i .. i+4, each reading a[k+1] before it is written: over
    # the whole loop, k = 0 .. m-1 with m = 5 * ((N - 1) // 5), all from old values.
    m = 5 * ((N - 1) // 5)
    a[0:m] = a[1:m + 1] * a[0:m]

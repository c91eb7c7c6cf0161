"""s122_variable_stride: TSVC s122, a[i] += b[N-k] over i = n1-1, n1-1+n3, ..., with k = 1, 2, ..."""

import numpy as np


def initialize(rng, N, N1, N3):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s122_variable_stride(a, b, N, N1, N3):
    # The loop's t-th iteration (t = 0, 1, ...) has i = N1-1 + t*N3 and k = t+1 (k grows
    # by j = 1 each time), so it adds b[N-1-t]: a runs forward with stride N3 while b runs
    # backward from its end. No iteration reads what another writes; the loop is written
    # out because the canonical form has no strided slices.
    count = (N - N1 + N3) // N3
    for t in range(count):
        a[N1 - 1 + t * N3] += b[N - 1 - t]

"""s172_symbolic_stride: TSVC s172, for (i = n1-1; i < N; i += n3) a[i] += b[i], n1 and n3 run-time arguments."""

import numpy as np


def initialize(rng, N, N1, N3):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s172_symbolic_stride(a, b, N, N1, N3):
    # The loop written out over its trip count (the canonical form has neither strided
    # slices nor a range with a symbolic step); no two iterations touch the same element.
    count = (N - N1 + N3) // N3
    for t in range(count):
        a[N1 - 1 + t * N3] += b[N1 - 1 + t * N3]

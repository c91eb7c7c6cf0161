"""s175_symbolic_stride: TSVC s175, for (i = 0; i < N-1; i += inc) a[i] = a[i + inc] + b[i], inc a run-time argument."""

import numpy as np


def initialize(rng, N, INC):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s175_symbolic_stride(a, b, N, INC):
    # The loop written out over its trip count (the canonical form has neither strided
    # slices nor a range with a symbolic step). Iteration t reads a[(t+1) * INC] before
    # iteration t + 1 rewrites it: in order, as here, it reads the old value.
    count = (N - 2) // INC + 1
    for t in range(count):
        a[t * INC] = a[t * INC + INC] + b[t * INC]

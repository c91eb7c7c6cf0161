"""s211_reordering: TSVC s211, a[i] = b[i-1] + c[i] * d[i]; b[i] = b[i+1] - e[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s211_reordering(a, b, c, d, e, N):
    # The statements reordered: b[i] from the old b[i+1] first (the right-hand side is
    # evaluated before b is written), then a[i] from the new b[i-1] (b[0] is never written).
    b[1:N - 1] = b[2:N] - e[1:N - 1] * d[1:N - 1]
    a[1:N - 1] = b[0:N - 2] + c[1:N - 1] * d[1:N - 1]

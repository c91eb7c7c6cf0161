"""s276_midpoint_split: TSVC s276, a[i] += b[i] * (c[i] if i + 1 < N // 2 else d[i])."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s276_midpoint_split(a, b, c, d, N):
    # The branch i + 1 < N // 2 depends only on the index: it splits the index set at
    # N // 2 - 1, below which c is used and from which on d is.
    a[: N // 2 - 1] += b[: N // 2 - 1] * c[: N // 2 - 1]
    a[N // 2 - 1 :] += b[N // 2 - 1 :] * d[N // 2 - 1 :]

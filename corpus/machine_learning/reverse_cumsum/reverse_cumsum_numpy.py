"""reverse_cumsum: suffix sums along the rows of a B x N float32 matrix,
out[:, j] = X[:, j] + X[:, j + 1] + ... + X[:, N - 1]."""

import numpy as np


def initialize(rng, B, N):
    # Standard normal steps with a small per-row drift, as for cumsum.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X += rng.uniform(-0.05, 0.05, (B, 1)).astype(np.float32)
    return {"X": X}


def reverse_cumsum(X, out, B, N):
    # Column by column from the right, every row at once: out[:, j] = out[:, j + 1] + X[:, j],
    # with j = N - 1 - k running down as k runs up.
    out[:, N - 1] = X[:, N - 1]
    for k in range(1, N):
        out[:, N - 1 - k] = out[:, N - k] + X[:, N - 1 - k]

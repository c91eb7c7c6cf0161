"""exclusive_cumsum: exclusive prefix sums along the rows of a B x N float32 matrix,
out[:, 0] = 0 and out[:, j] = X[:, 0] + ... + X[:, j - 1]."""

import numpy as np


def initialize(rng, B, N):
    # Standard normal steps with a small per-row drift, as for cumsum.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X += rng.uniform(-0.05, 0.05, (B, 1)).astype(np.float32)
    return {"X": X}


def exclusive_cumsum(X, out, B, N):
    # Column by column, every row at once; the last column of X is never used.
    out[:, 0] = 0.0
    for j in range(1, N):
        out[:, j] = out[:, j - 1] + X[:, j - 1]

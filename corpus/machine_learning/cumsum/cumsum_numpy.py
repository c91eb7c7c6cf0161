"""cumsum: inclusive prefix sums along the rows of a B x N float32 matrix."""

import numpy as np


def initialize(rng, B, N):
    # Standard normal steps with a small per-row drift: each row is a random walk whose
    # prefix sums change sign, grow like sqrt(j) and differ from row to row.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X += rng.uniform(-0.05, 0.05, (B, 1)).astype(np.float32)
    return {"X": X}


def cumsum(X, out, B, N):
    # Column by column, every row at once: out[:, j] = out[:, j - 1] + X[:, j].
    out[:, 0] = X[:, 0]
    for j in range(1, N):
        out[:, j] = out[:, j - 1] + X[:, j]

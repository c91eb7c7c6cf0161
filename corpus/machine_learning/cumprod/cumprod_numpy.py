"""cumprod: inclusive prefix products along the rows of a B x N float32 matrix."""

import numpy as np


def initialize(rng, B, N):
    # Factors near one, 1 + 0.01 z with z standard normal: the logarithm of a prefix product
    # is a random walk with steps of about 0.01, so products wander around one (by a factor
    # of a few at N in the thousands) and neither vanish nor overflow float32.
    X = 1.0 + 0.01 * rng.standard_normal((B, N), dtype=np.float32)
    return {"X": X.astype(np.float32)}


def cumprod(X, out, B, N):
    # Column by column, every row at once: out[:, j] = out[:, j - 1] * X[:, j].
    out[:, 0] = X[:, 0]
    for j in range(1, N):
        out[:, j] = out[:, j - 1] * X[:, j]

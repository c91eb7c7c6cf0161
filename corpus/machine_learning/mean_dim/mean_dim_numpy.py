"""mean_dim: the mean of a B x D1 x D2 float32 tensor over its middle axis, a B x D2 matrix."""

import numpy as np


def initialize(rng, B, D1, D2):
    # Uniform values in [-1, 1) around an offset in [-1, 1) drawn per output (b, k): the means
    # spread over [-1, 1) from output to output, and each one's D1 terms have both signs.
    X = rng.random((B, D1, D2), dtype=np.float32)
    X *= 2.0
    X -= 1.0
    X += rng.uniform(-1.0, 1.0, (B, 1, D2)).astype(np.float32)
    return {"X": X}


def mean_dim(X, out, B, D1, D2):
    # out[b, k] = (X[b, 0, k] + ... + X[b, D1 - 1, k]) / D1
    out[:, :] = np.sum(X, axis=1) / D1

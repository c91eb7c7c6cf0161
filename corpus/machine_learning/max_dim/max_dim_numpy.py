"""max_dim: the maximum of a B x D1 x D2 float32 tensor over its middle axis, a B x D2 matrix."""

import numpy as np


def initialize(rng, B, D1, D2):
    # Standard normals scaled by a spread in [0.5, 2] and shifted by an offset in [-2, 2), both
    # drawn per output (b, k): the maximums differ from output to output, and where the
    # maximum lies along the middle axis is uniform.
    X = rng.standard_normal((B, D1, D2), dtype=np.float32)
    X *= rng.uniform(0.5, 2.0, (B, 1, D2)).astype(np.float32)
    X += rng.uniform(-2.0, 2.0, (B, 1, D2)).astype(np.float32)
    return {"X": X}


def max_dim(X, out, B, D1, D2):
    # out[b, k] = max(X[b, 0, k], ..., X[b, D1 - 1, k])
    out[:, :] = np.max(X, axis=1)

"""elu: the exponential linear unit, x for x > 0 and alpha * (exp(x) - 1) otherwise,
elementwise on a float32 B x N matrix."""

import numpy as np


def initialize(rng, B, N):
    # Rows of standard normals with a per-row spread in [0.5, 4] and offset in [-1, 1]:
    # both signs in every row, the exponential branch from near 0 down to its saturation.
    # alpha around PyTorch's default 1.0.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X *= rng.uniform(0.5, 4.0, (B, 1)).astype(np.float32)
    X += rng.uniform(-1.0, 1.0, (B, 1)).astype(np.float32)
    return {"X": X, "alpha": np.float32(rng.uniform(0.5, 2.0))}


def elu(X, Y, alpha, B, N):
    Y[:, :] = np.where(X > 0.0, X, alpha * (np.exp(X) - 1.0))

"""leaky_relu: x where x >= 0, negative_slope * x elsewhere, elementwise on a float32 B x N matrix."""

import numpy as np


def initialize(rng, B, N):
    # Rows of standard normals with a per-row spread in [0.5, 4] and offset in [-1, 1]:
    # both signs in every row, magnitudes up to about 25 at the larger presets. The slope
    # covers PyTorch's default 0.01 up to 0.3.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X *= rng.uniform(0.5, 4.0, (B, 1)).astype(np.float32)
    X += rng.uniform(-1.0, 1.0, (B, 1)).astype(np.float32)
    return {"X": X, "negative_slope": np.float32(rng.uniform(0.01, 0.3))}


def leaky_relu(X, Y, negative_slope, B, N):
    Y[:, :] = np.where(X >= 0.0, X, negative_slope * X)

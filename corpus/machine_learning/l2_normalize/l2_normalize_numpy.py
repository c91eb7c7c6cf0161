"""l2_normalize: each row divided by its Euclidean norm, clamped below by eps, float32."""

import numpy as np


def initialize(rng, B, N):
    # Rows with different offsets (-3 to 3) and spreads (0.5 to 2); from four rows on, one
    # row is all zeros, whose norm is clamped to eps (0 / eps = 0, not 0 / 0 = NaN).
    x = rng.uniform(0.5, 2.0, (B, 1)) * rng.standard_normal((B, N)) + rng.uniform(-3.0, 3.0, (B, 1))
    if B >= 4:
        x[B // 2, :] = 0.0
    return {"x": x.astype(np.float32), "eps": 1e-12}


def l2_normalize(x, y, eps, B, N):
    nrm = np.empty((B, 1), dtype=np.float32)
    nrm[:, :] = np.maximum(np.sqrt(np.sum(x * x, axis=1, keepdims=True)), eps)
    y[:, :] = x / nrm

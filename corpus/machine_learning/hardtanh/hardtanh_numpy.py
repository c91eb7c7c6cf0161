"""hardtanh: elementwise clamp Y = min(max(X, min_val), max_val) on a float32 B x N matrix
(torch.nn.Hardtanh with float32 bounds min_val < max_val)."""

import numpy as np


def initialize(rng, B, N):
    # Mostly spread 3 around zero, and one entry in 16 with spread 12 (clipped to |x| <= 80),
    # against bounds drawn around PyTorch's default [-1, 1] and not symmetric: a large share
    # of the entries falls below min_val, between the bounds and above max_val.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X *= np.where(rng.random((B, N), dtype=np.float32) < 0.0625, np.float32(12.0), np.float32(3.0))
    np.clip(X, -80.0, 80.0, out=X)
    return {"X": X, "min_val": float(rng.uniform(-2.0, -0.5)), "max_val": float(rng.uniform(0.5, 2.0))}


def hardtanh(X, Y, min_val, max_val, B, N):
    Y[:, :] = np.minimum(np.maximum(X, min_val), max_val)

"""hardsigmoid: elementwise Y = relu6(X + 3) / 6 = min(max(X + 3, 0), 6) / 6 on a float32 B x N
matrix (torch.nn.Hardsigmoid): 0 below -3, 1 above 3, linear between."""

import numpy as np


def initialize(rng, B, N):
    # Mostly spread 3 around zero, and one entry in 16 with spread 12, clipped to |x| <= 80:
    # both sides of every kink are covered, and about 6 entries in 1000 exceed 20 in magnitude.
    X = rng.standard_normal((B, N), dtype=np.float32)
    X *= np.where(rng.random((B, N), dtype=np.float32) < 0.0625, np.float32(12.0), np.float32(3.0))
    np.clip(X, -80.0, 80.0, out=X)
    return {"X": X}


def hardsigmoid(X, Y, B, N):
    Y[:, :] = np.minimum(np.maximum(X + 3.0, 0.0), 6.0) / 6.0

"""layernorm: row-wise layer normalisation with affine scale and shift (float32, two-pass)."""

import numpy as np


def initialize(rng, B, N):
    # Rows with different offsets and scales, so normalisation changes them substantially.
    X = rng.uniform(0.5, 2.0, (B, 1)) * rng.standard_normal((B, N)) + rng.uniform(-3.0, 3.0, (B, 1))
    return {
        "X": X.astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(N)).astype(np.float32),
        "eps": 1e-5,
    }


def layernorm(X, gamma, beta, Y, eps, B, N):
    mean = np.empty((B, 1), dtype=np.float32)
    rstd = np.empty((B, 1), dtype=np.float32)
    mean[:, :] = np.sum(X, axis=1, keepdims=True) / N
    Y[:, :] = X - mean
    rstd[:, :] = 1.0 / np.sqrt(np.sum(Y * Y, axis=1, keepdims=True) / N + eps)
    Y[:, :] = Y * rstd * gamma + beta

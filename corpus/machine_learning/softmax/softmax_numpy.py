"""softmax: numerically stable row-wise softmax in float32."""

import numpy as np


def initialize(rng, B, N):
    # Logits with spread ~2 around a per-row offset in [-50, 100]: exp(100) overflows
    # float32, so an implementation that skips the max subtraction produces inf/NaN.
    X = 2.0 * rng.standard_normal((B, N)) + rng.uniform(-50.0, 100.0, (B, 1))
    return {"X": X.astype(np.float32)}


def softmax(X, Y, B, N):
    mx = np.empty((B, 1), dtype=np.float32)
    mx[:, :] = np.max(X, axis=1, keepdims=True)
    Y[:, :] = np.exp(X - mx)
    Y[:, :] = Y / np.sum(Y, axis=1, keepdims=True)

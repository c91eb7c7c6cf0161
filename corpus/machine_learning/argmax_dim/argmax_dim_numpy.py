"""argmax_dim: the column index of each row's maximum in a B x N float32 matrix."""

import numpy as np


def initialize(rng, B, N):
    # Uniform values in [-2, 2) around a per-row offset, so the answer is a position drawn
    # uniformly in each row. float32 uniforms repeat a value now and then; a row whose
    # maximum is taken twice is drawn again, so that every row's maximum is unique and the
    # answer does not depend on how ties are broken.
    X = rng.random((B, N), dtype=np.float32)
    X *= 4.0
    X -= 2.0
    X += rng.uniform(-1.0, 1.0, (B, 1)).astype(np.float32)
    for _ in range(100):
        tied = np.flatnonzero(np.sum(X == np.max(X, axis=1, keepdims=True), axis=1) > 1)
        if tied.size == 0:
            break
        X[tied, :] = rng.random((tied.size, N), dtype=np.float32) * 4.0 - 2.0
    return {"X": X}


def argmax_dim(X, out, B, N):
    out[:] = np.argmax(X, axis=1)

"""argmin_dim: the index along the middle axis of each minimum of a B x D1 x D2 float32 tensor."""

import numpy as np


def initialize(rng, B, D1, D2):
    # Uniform values in [-2, 2) around an offset in [-1, 1) per output (b, k), so the answer
    # is a position drawn uniformly along the middle axis. float32 uniforms repeat a value now
    # and then; a column whose minimum is taken twice is drawn again (until it is not), so
    # that every minimum is unique and the answer does not depend on how ties are broken.
    X = rng.random((B, D1, D2), dtype=np.float32)
    X *= 4.0
    X -= 2.0
    X += rng.uniform(-1.0, 1.0, (B, 1, D2)).astype(np.float32)
    tied = np.argwhere(np.sum(X == np.min(X, axis=1, keepdims=True), axis=1) > 1)
    for b, k in tied:
        for _ in range(100):
            col = rng.random(D1, dtype=np.float32) * 4.0 - 2.0 + np.float32(rng.uniform(-1.0, 1.0))
            if np.sum(col == col.min()) == 1:
                break
        X[b, :, k] = col
    return {"X": X}


def argmin_dim(X, out, B, D1, D2):
    # out[b, k] = the j at which X[b, j, k] is smallest
    out[:, :] = np.argmin(X, axis=1)

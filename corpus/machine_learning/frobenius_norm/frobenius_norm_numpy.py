"""frobenius_norm: a whole matrix divided by its Frobenius norm, float32."""

import numpy as np


def initialize(rng, B, N):
    # Mean 3, spread 2: positive-biased values, so the sum of squares grows steadily and a
    # single running float32 accumulator over all B * N squares loses digits.
    x = 3.0 + 2.0 * rng.standard_normal((B, N))
    return {"x": x.astype(np.float32)}


def frobenius_norm(x, y, B, N):
    # The sum of squares, first along each row, then over the rows.
    rows = np.empty((B,), dtype=np.float32)
    rows[:] = np.sum(x * x, axis=1)
    nrm = np.sqrt(np.sum(rows))
    y[:, :] = x / nrm

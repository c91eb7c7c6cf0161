"""s121_induction: TSVC s121, j = i + 1; a[i] = a[j] + b[i] for i = 0 .. N-2."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s121_induction(a, b, N):
    # Each iteration reads a[i+1] before iteration i+1 overwrites it: NumPy evaluates the
    # right-hand side in full first, which is exactly that order.
    a[: N - 1] = a[1:N] + b[: N - 1]

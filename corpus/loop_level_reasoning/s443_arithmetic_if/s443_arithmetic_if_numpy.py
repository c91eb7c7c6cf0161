"""s443_arithmetic_if: TSVC s443, a two-way goto on d[i] <= 0 choosing a[i] += b*c or a[i] += b*b."""

import numpy as np


def initialize(rng, N):
    # d <= 0 for about half the elements, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s443_arithmetic_if(a, b, c, d, N):
    a[:] = np.where(d <= 0.0, a + b * c, a + b * b)

"""s441_three_way_if: TSVC s441, a three-way branch on the sign of d[i] (Fortran's arithmetic if)."""

import numpy as np


def initialize(rng, N):
    # d is negative, zero or positive, each for about a third of the elements, in random order.
    sign = rng.integers(-1, 2, N).astype(np.float64)
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": (sign * rng.uniform(0.5, 1.5, N)).astype(np.float32),
    }


def s441_three_way_if(a, b, c, d, N):
    a[:] = np.where(d < 0.0, a + b * c, np.where(d == 0.0, a + b * b, a + c * c))

"""s442_computed_goto: TSVC s442, a four-way switch on indx[i] choosing which square to add to a[i]."""

import numpy as np


def initialize(rng, N):
    # indx takes the values 1 .. 4, about a quarter each, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "indx": rng.integers(1, 5, N).astype(np.int64),
    }


def s442_computed_goto(a, b, c, d, e, indx, N):
    # TSVC's switch jumps to one of four labels; a value outside 1 .. 4 falls through to the
    # first (b * b), which the innermost select keeps.
    a[:] = np.where(
        indx == 2, a + c * c, np.where(indx == 3, a + d * d, np.where(indx == 4, a + e * e, a + b * b))
    )

"""s253_guarded_scalar: TSVC s253, if (a[i] > b[i]) { s = a[i] - b[i] * d[i]; c[i] += s; a[i] = s; }."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s253_guarded_scalar(a, b, c, d, N):
    # c first: both selects test the old a > b.
    c[:] = np.where(a > b, c + (a - b * d), c)
    a[:] = np.where(a > b, a - b * d, a)

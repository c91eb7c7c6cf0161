"""s2710_nested_select: TSVC s2710, a data-dependent branch on a[i] > b[i] with, inside each
path, a branch on a loop-invariant condition (N > 10 in one, x > 0 in the other)."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "x": np.float32(rng.uniform(-1.0, 1.0)),
    }


def s2710_nested_select(a, b, c, d, e, x, N):
    # The branch taken at i depends on the old a[i] > b[i]: keep it (1 or 0) before a and
    # b change. The inner conditions do not depend on i.
    taken = np.empty(N, dtype=np.float32)
    taken[:] = np.where(a > b, 1.0, 0.0)
    if N > 10:
        if x > 0.0:
            c[:] = np.where(taken > 0.5, c + d * d, a + d * d)
        else:
            c[:] = np.where(taken > 0.5, c + d * d, c + e * e)
    else:
        if x > 0.0:
            c[:] = np.where(taken > 0.5, d * e + 1.0, a + d * d)
        else:
            c[:] = np.where(taken > 0.5, d * e + 1.0, c + e * e)
    b[:] = np.where(taken > 0.5, b, a + e * e)
    a[:] = np.where(taken > 0.5, a + b * d, a)

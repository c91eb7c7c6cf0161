"""s278_goto_branches: TSVC s278, if a[i] > 0 then c[i] = -c[i] + d[i] * e[i] else
b[i] = -b[i] + d[i] * e[i]; then a[i] = b[i] + c[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s278_goto_branches(a, b, c, d, e, N):
    # Both branches test the old a, so a is written last.
    c[:] = np.where(a > 0.0, -c + d * e, c)
    b[:] = np.where(a > 0.0, b, -b + d * e)
    a[:] = b + c * d

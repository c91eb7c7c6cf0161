"""s277_goto_skip: TSVC s277, gotos that skip b[i+1] = c[i] + d[i] * e[i] when a[i] >= 0,
and also a[i] += c[i] * d[i] when b[i] >= 0."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s277_goto_skip(a, b, c, d, e, N):
    # Iteration i writes b[i+1] (when a[i] < 0), which iteration i+1 tests; the value
    # written does not depend on b, so the b statement runs first for every i, and then
    # the a update sees each b[i] as TSVC's iteration i does.
    b[1:] = np.where(a[:-1] < 0.0, c[:-1] + d[:-1] * e[:-1], b[1:])
    a[:-1] = np.where((a[:-1] < 0.0) & (b[:-1] < 0.0), a[:-1] + c[:-1] * d[:-1], a[:-1])

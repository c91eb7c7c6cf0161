"""s272_threshold_guard: TSVC s272, if (e[i] >= t) { a[i] += c[i] * d[i]; b[i] += c[i] * c[i]; }."""

import numpy as np


def initialize(rng, N):
    # e in [0, 2) with TSVC's threshold t = 1: about half the elements pass.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(0.0, 2.0, N).astype(np.float32),
        "t": 1.0,
    }


def s272_threshold_guard(a, b, c, d, e, t, N):
    a[:] = np.where(e >= t, a + c * d, a)
    b[:] = np.where(e >= t, b + c * c, b)

"""s273_sign_guard: TSVC s273, a[i] += d[i] * e[i]; if (a[i] < 0) b[i] += d[i] * e[i]; c[i] += a[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s273_sign_guard(a, b, c, d, e, N):
    # The test and the update of c read the new a.
    a[:] = a + d * e
    b[:] = np.where(a < 0.0, b + d * e, b)
    c[:] = c + a * d

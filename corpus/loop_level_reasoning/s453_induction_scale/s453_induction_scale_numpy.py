"""s453_induction_scale: TSVC s453, s += 2; a[i] = s * b[i], that is a[i] = 2 (i + 1) b[i]."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s453_induction_scale(a, b, N):
    # TSVC's running s = 2, 4, 6, ... is s = 2 (i + 1), here computed exactly and rounded
    # to float32 once (see the manifest: identical to TSVC's float32 sum for N <= 2^24).
    a[:] = (2 * np.arange(1, N + 1, dtype=np.int64)).astype(np.float32) * b

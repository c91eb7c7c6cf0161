"""s124_induction_select: TSVC s124, j += 1 on both branches; a[j] = (b[i] > 0 ? b[i] : c[i]) + d[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s124_induction_select(a, b, c, d, e, N):
    # Both branches advance j by one, so j == i in every iteration.
    a[:] = np.where(b > 0.0, b, c) + d * e

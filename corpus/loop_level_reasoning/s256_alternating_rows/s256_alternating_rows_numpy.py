"""s256_alternating_rows: TSVC s256, for i, for j >= 1: a[j] = 1 - a[j-1]; aa[j, i] = a[j] + bb[j, i] * d[j]."""

import numpy as np


def initialize(rng, N):
    # a[0] in [1, 2] keeps a = a[0], 1 - a[0], ... away from a constant.
    return {
        "a": rng.uniform(1.0, 2.0, N).astype(np.float32),
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s256_alternating_rows(a, aa, bb, d, N):
    # The recurrence on a gives the same values for every column i, so it runs once, and the
    # loops are interchanged: row j of aa needs only a[j].
    for j in range(1, N):
        a[j] = 1.0 - a[j - 1]
        aa[j, :] = a[j] + bb[j, :] * d[j]

"""s231_column_recurrence: TSVC s231, aa[j, i] = aa[j-1, i] + bb[j, i] (sums down the columns)."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s231_column_recurrence(aa, bb, N):
    # The columns are independent: one row at a time, all columns at once.
    for j in range(1, N):
        aa[j, :] = aa[j - 1, :] + bb[j, :]

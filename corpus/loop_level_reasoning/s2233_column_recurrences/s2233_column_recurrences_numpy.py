"""s2233_column_recurrences: TSVC s2233, aa[j, i] = aa[j-1, i] + cc[j, i]; bb[i, j] = bb[i-1, j] + cc[i, j]."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s2233_column_recurrences(aa, bb, cc, N):
    # Both are sums down columns 1 .. N-1; the columns are independent: one row at a time.
    for j in range(1, N):
        aa[j, 1:N] = aa[j - 1, 1:N] + cc[j, 1:N]
    for i in range(1, N):
        bb[i, 1:N] = bb[i - 1, 1:N] + cc[i, 1:N]

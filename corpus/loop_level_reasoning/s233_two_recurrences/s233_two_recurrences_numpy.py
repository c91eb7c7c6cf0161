"""s233_two_recurrences: TSVC s233, aa[j, i] = aa[j-1, i] + cc[j, i]; bb[j, i] = bb[j, i-1] + cc[j, i]."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s233_two_recurrences(aa, bb, cc, N):
    # The two recurrences share no data but cc: sums down the columns of aa, one row at a
    # time, then sums along the rows of bb, one column at a time.
    for j in range(1, N):
        aa[j, 1:N] = aa[j - 1, 1:N] + cc[j, 1:N]
    for i in range(1, N):
        bb[1:N, i] = bb[1:N, i - 1] + cc[1:N, i]

"""s1119_column_sum: TSVC s1119, aa[i][j] = aa[i-1][j] + bb[i][j]."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s1119_column_sum(aa, bb, N):
    # Row i needs row i-1 already updated; within a row there is no dependence.
    for i in range(1, N):
        aa[i, :] = aa[i - 1, :] + bb[i, :]

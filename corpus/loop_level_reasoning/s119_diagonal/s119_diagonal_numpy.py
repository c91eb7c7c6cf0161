"""s119_diagonal: TSVC s119, aa[i][j] = aa[i-1][j-1] + bb[i][j]."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s119_diagonal(aa, bb, N):
    # Row i needs row i-1 already updated; within a row there is no dependence.
    for i in range(1, N):
        aa[i, 1:N] = aa[i - 1, 0:N - 1] + bb[i, 1:N]

"""s114_transpose: TSVC s114, aa[i][j] = aa[j][i] + bb[i][j] for j < i."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s114_transpose(aa, bb, N):
    # Row i of the strict lower triangle is written from column i of the strict upper
    # triangle, which the loop never writes.
    for i in range(1, N):
        aa[i, 0:i] = aa[0:i, i] + bb[i, 0:i]

"""s2101_diagonal: TSVC s2101, aa[i][i] += bb[i][i] * cc[i][i] along the main diagonal."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s2101_diagonal(aa, bb, cc, N):
    for i in range(N):
        aa[i, i] += bb[i, i] * cc[i, i]

"""s1115_transpose_update: TSVC s1115, aa[i][j] = aa[i][j] * cc[j][i] + bb[i][j]."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s1115_transpose_update(aa, bb, cc, N):
    # Each element is updated from itself alone: no dependence.
    aa[:, :] = aa * cc.T + bb

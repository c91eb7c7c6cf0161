"""s125_flatten: TSVC s125, k += 1; flat_2d_array[k] = aa[i][j] + bb[i][j] * cc[i][j] over a 2-D nest."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s125_flatten(aa, bb, cc, flat_2d_array, N):
    # k counts every (i, j) in row-major order, so k = i * N + j: the flat array seen as
    # N x N is written element for element.
    flat = flat_2d_array.reshape(N, N)
    flat[:, :] = aa + bb * cc

"""s3110_argmax_2d: TSVC s3110, maximum of an N x N array with its row and column."""

import numpy as np


def initialize(rng, N):
    # Standard normal values: the maximum lies in the tail and at a random place, so the
    # value and both indices change from one draw to the next.
    return {"aa": rng.standard_normal((N, N)).astype(np.float32)}


def s3110_argmax_2d(aa, N):
    k = np.argmax(aa)
    row = k // N
    col = k % N
    return aa[row, col], row, col

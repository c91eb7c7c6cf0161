"""s126_column_recurrence: TSVC s126, bb[j][i] = bb[j-1][i] + flat_2d_array[k-1] * cc[j][i] with a counter k."""

import numpy as np


def initialize(rng, N):
    return {
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "flat_2d_array": rng.uniform(-1.0, 1.0, N * N).astype(np.float32),
    }


def s126_column_recurrence(bb, cc, flat_2d_array, N):
    # k starts at 1 and advances once per inner iteration plus once after each column, so
    # k - 1 = i * N + j - 1 in iteration (i, j): the flat array seen as N x N, column j - 1
    # of row i. The recurrence runs down each column of bb (j); the columns (i) are
    # independent, so the loop over j carries it with i vectorised.
    flat = flat_2d_array.reshape(N, N)
    for j in range(1, N):
        bb[j, :] = bb[j - 1, :] + flat[:, j - 1] * cc[j, :]

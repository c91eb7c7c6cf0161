"""s132_row_offsets: TSVC s132, aa[j][i] = aa[k][i-1] + b[i] * c[1] with j = 0, k = 1."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (2, N)).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(0.5, 1.5, N).astype(np.float32),
    }


def s132_row_offsets(aa, b, c, N):
    # Row j = 0 is written from row k = 1, which the loop never writes.
    aa[0, 1:N] = aa[1, 0:N - 1] + b[1:N] * c[1]

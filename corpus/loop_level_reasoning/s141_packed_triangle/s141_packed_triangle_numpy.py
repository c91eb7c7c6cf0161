"""s141_packed_triangle: TSVC s141, flat_2d_array[k] += bb[j][i] with k = j(j+1)/2 + i, i <= j."""

import numpy as np


def initialize(rng, N):
    return {
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "flat_2d_array": rng.uniform(-1.0, 1.0, N * N).astype(np.float32),
    }


def s141_packed_triangle(bb, flat_2d_array, N):
    # TSVC's k, started at i(i+1)/2 + i and advanced by j+1 after each j, is j(j+1)/2 + i:
    # the elements i = 0 .. j of row j of bb go to the packed row starting at j(j+1)/2.
    # Every (i, j) has its own k, so the order of the updates does not matter.
    for j in range(N):
        start = j * (j + 1) // 2
        flat_2d_array[start:start + j + 1] += bb[j, 0:j + 1]

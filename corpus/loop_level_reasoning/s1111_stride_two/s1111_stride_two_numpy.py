"""s1111_stride_two: TSVC s1111, a[2i] = c[i]*b[i] + d[i]*b[i] + c[i]*c[i] + d[i]*b[i] + d[i]*c[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1111_stride_two(a, b, c, d, N):
    # N is even: row i of the pair view holds a[2i] (column 0) and a[2i+1] (column 1).
    h = N // 2
    a2 = a.reshape(h, 2)
    a2[:, 0] = c[0:h] * b[0:h] + d[0:h] * b[0:h] + c[0:h] * c[0:h] + d[0:h] * b[0:h] + d[0:h] * c[0:h]

"""s313_dot: TSVC s313, dot product dot = a[0] * b[0] + ... + a[N-1] * b[N-1]."""

import numpy as np


def initialize(rng, N):
    # a in [0, 1) and b centred a little above zero: the products have mean about
    # 1.7 / sqrt(N) and standard deviation about 0.33, so the dot product (about
    # 1.7 sqrt(N)) sits some five standard deviations from zero and never cancels, yet
    # another draw gives a result several percent away. Partial sums stay near sqrt(N).
    return {
        "a": rng.uniform(0.0, 1.0, N).astype(np.float32),
        "b": (rng.uniform(-1.0, 1.0, N) + 10.0 / (3.0 * np.sqrt(N))).astype(np.float32),
    }


def s313_dot(a, b, N):
    # TSVC's order: one accumulator, in the arrays' precision (a Python 0.0 takes the
    # dtype of what is added to it).
    s = 0.0
    for i in range(N):
        s = s + a[i] * b[i]
    return s

"""s4115_sparse_dot: TSVC s4115, sum += a[i] * b[ip[i]] (a dot product through an index array)."""

import numpy as np


def initialize(rng, N):
    # b is positive and a centred at 0.5: the products have mean 0.5 and standard
    # deviation about 0.6, so the sum (about N / 2) never cancels, and another draw of the
    # inputs moves it by about 1.2 / sqrt(N) relative, well beyond the float32 band at
    # every preset. ip is a random permutation.
    return {
        "a": (rng.uniform(-1.0, 1.0, N) + 0.5).astype(np.float32),
        "b": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
    }


def s4115_sparse_dot(a, b, ip, N):
    return np.sum(a * b[ip])

"""s491_scatter: TSVC s491, indirect store a[ip[i]] = b[i] + c[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    # ip is a random permutation of 0 .. N-1: every element of a is written exactly once,
    # so no two iterations store to the same place and the order of the stores is moot.
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
    }


def s491_scatter(a, b, c, d, ip, N):
    # The translator has no vectorised scatter: the store through ip is an explicit loop.
    for i in range(N):
        a[ip[i]] = b[i] + c[i] * d[i]

"""s4113_gather_scatter: TSVC s4113, a[ip[i]] = b[ip[i]] + c[i] (indirect load and store)."""

import numpy as np


def initialize(rng, N):
    # ip is a random permutation of 0 .. N-1: every element of a is written exactly once.
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
    }


def s4113_gather_scatter(a, b, c, ip, N):
    # The translator has no vectorised scatter: the store through ip is an explicit loop.
    for i in range(N):
        a[ip[i]] = b[ip[i]] + c[i]

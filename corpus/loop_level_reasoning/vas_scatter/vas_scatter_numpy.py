"""vas_scatter: TSVC vas, a[ip[i]] = b[i] (scatter)."""

import numpy as np


def initialize(rng, N):
    # ip is a random permutation of 0 .. N-1.
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
    }


def vas_scatter(a, b, ip, N):
    # The translator has no vectorised scatter: the store through ip is an explicit loop.
    for i in range(N):
        a[ip[i]] = b[i]

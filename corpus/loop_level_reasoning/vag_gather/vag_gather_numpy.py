"""vag_gather: TSVC vag, a[i] = b[ip[i]] (gather)."""

import numpy as np


def initialize(rng, N):
    # ip is a random permutation of 0 .. N-1.
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
    }


def vag_gather(a, b, ip, N):
    a[:] = b[ip]

"""s4114_reversed_gather: TSVC s4114, a[i] = b[i] + c[N-1-ip[i]] * d[i] for i = N1-1 .. N-1."""

import numpy as np


def initialize(rng, N, N1):
    # ip is a random permutation of 0 .. N-1, so N-1-ip[i] is one too: every element of c
    # the loop reads is read once, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
    }


def s4114_reversed_gather(a, b, c, d, ip, N, N1):
    a[N1 - 1:] = b[N1 - 1:] + c[N - 1 - ip[N1 - 1:]] * d[N1 - 1:]

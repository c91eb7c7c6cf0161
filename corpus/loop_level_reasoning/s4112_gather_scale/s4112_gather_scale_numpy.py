"""s4112_gather_scale: TSVC s4112, a[i] += b[ip[i]] * s (indirect load, scaled)."""

import numpy as np


def initialize(rng, N):
    # ip is a random permutation of 0 .. N-1: every element of b is read once, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
        "s": np.float32(rng.uniform(0.5, 1.5)),
    }


def s4112_gather_scale(a, b, ip, s, N):
    a[:] += b[ip] * s

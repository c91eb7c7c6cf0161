"""s353_unrolled_gather: TSVC s353, a gathered saxpy a[i] += alpha * b[ip[i]] unrolled by hand five times."""

import numpy as np


def initialize(rng, N):
    # ip is a random permutation of 0 .. N-1: every element of b is read once, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "ip": rng.permutation(N).astype(np.int64),
        "alpha": np.float32(rng.uniform(0.5, 1.5)),
    }


def s353_unrolled_gather(a, b, ip, alpha, N):
    # TSVC's body, i = 0, 5, 10, ...: five statements on the elements i .. i+4, written on
    # the rows of five of a and ip (row r holds the elements 5r .. 5r+4).
    ra = a.reshape(N // 5, 5)
    rip = ip.reshape(N // 5, 5)
    ra[:, 0] += alpha * b[rip[:, 0]]
    ra[:, 1] += alpha * b[rip[:, 1]]
    ra[:, 2] += alpha * b[rip[:, 2]]
    ra[:, 3] += alpha * b[rip[:, 3]]
    ra[:, 4] += alpha * b[rip[:, 4]]

"""s128_coupled_induction: TSVC s128, coupled induction variables: a[i] = b[2i] - d[i]; b[2i] = a[i] + c[2i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s128_coupled_induction(a, b, c, d, N):
    # k = j + 1 and j = k + 1 make k = 2i in iteration i: it reads and then rewrites the even
    # element b[2i], which no other iteration touches. b and c seen as N/2 pairs.
    half = N // 2
    bpairs = b.reshape(half, 2)
    cpairs = c.reshape(half, 2)
    a[:half] = bpairs[:, 0] - d[:half]
    bpairs[:, 0] = a[:half] + cpairs[:, 0]

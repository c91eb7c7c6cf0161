"""s2111_wavefront: TSVC s2111-style wavefront, aa[j, i] = (aa[j, i-1] + aa[j-1, i]) / 2.1 + aa[j, i]."""

import numpy as np


def initialize(rng, N):
    return {"aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32)}


def s2111_wavefront(aa, N):
    for j in range(1, N):
        for i in range(1, N):
            aa[j, i] = (aa[j, i - 1] + aa[j - 1, i]) / 2.1 + aa[j, i]

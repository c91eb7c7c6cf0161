"""s2275_loop_distribution: TSVC s2275, for i: { for j: aa[j, i] += bb[j, i] * cc[j, i]; a[i] = b[i] + c[i] * d[i]; }."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s2275_loop_distribution(aa, bb, cc, a, b, c, d, N):
    # The 2-D statement and the 1-D statement share the outer loop but no data: distributed.
    aa[:, :] = aa + bb * cc
    a[:] = b + c * d

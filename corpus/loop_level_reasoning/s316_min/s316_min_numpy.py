"""s316_min: TSVC s316, minimum reduction x = min(a[0], ..., a[N-1])."""

import numpy as np


def initialize(rng, N):
    # Standard normal values: the minimum lies in the tail (about -sqrt(2 ln N)), so it
    # moves by several percent from one draw to the next.
    return {"a": rng.standard_normal(N).astype(np.float32)}


def s316_min(a, N):
    return np.min(a)

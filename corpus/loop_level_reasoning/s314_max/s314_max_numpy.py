"""s314_max: TSVC s314, maximum reduction x = max(a[0], ..., a[N-1])."""

import numpy as np


def initialize(rng, N):
    # Standard normal values: the maximum lies in the tail (about sqrt(2 ln N)), so it moves
    # by several percent from one draw to the next; bounded values (uniform in [-1, 1])
    # would put it at 1 for every draw.
    return {"a": rng.standard_normal(N).astype(np.float32)}


def s314_max(a, N):
    return np.max(a)

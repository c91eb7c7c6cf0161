"""s315_argmax: TSVC s315, maximum with its index, if (a[i] > x) { x = a[i]; index = i; }."""

import numpy as np


def initialize(rng, N):
    # Standard normal values: the maximum lies in the tail and at a random place, so both
    # the value and its index change from one draw to the next.
    return {"a": rng.standard_normal(N).astype(np.float32)}


def s315_argmax(a, N):
    first = np.argmax(a)
    return a[first], first

"""s000_add_one: TSVC s000, a[i] = b[i] + 1."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s000_add_one(a, b, N):
    a[:] = b + 1.0

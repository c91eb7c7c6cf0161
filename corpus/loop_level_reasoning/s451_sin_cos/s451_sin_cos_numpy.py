"""s451_sin_cos: TSVC s451, a[i] = sinf(b[i]) + cosf(c[i])."""

import numpy as np


def initialize(rng, N):
    b = rng.uniform(-3.0, 3.0, N).astype(np.float32)
    c = rng.uniform(-3.0, 3.0, N).astype(np.float32)
    # Outputs kept at least 0.05 from zero: where sin(b) and cos(c) nearly cancel, a sum of
    # a few float32 ulps of each is a large relative error (a correct sinf failed rtol 1e-4 on
    # a one-element case). Negating b turns such a sum into about 2 cos(c); where that is
    # near zero too, sin(b) is, and c = 0 makes the sum about 1.
    def sums():
        return np.abs(np.sin(b.astype(np.float64)) + np.cos(c.astype(np.float64)))
    near = sums() < 0.05
    b[near] = -b[near]
    c[sums() < 0.05] = 0.0
    return {"b": b, "c": c}


def s451_sin_cos(a, b, c, N):
    a[:] = np.sin(b) + np.cos(c)

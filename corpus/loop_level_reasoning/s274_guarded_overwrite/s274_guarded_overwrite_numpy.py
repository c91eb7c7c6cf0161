"""s274_guarded_overwrite: TSVC s274, a[i] = c[i] + e[i] * d[i]; if (a[i] > 0) b[i] = a[i] + b[i]; else a[i] = d[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    b, c, d, e = (rng.uniform(-1.0, 1.0, N).astype(np.float32) for _ in range(4))
    # The guard's c + e*d kept at least 1e-3 from zero: a fused multiply-add rounds it
    # differently from NumPy, and a value within rounding of zero could take the other branch
    # (which writes d*e, far from it).
    s = c.astype(np.float64) + e.astype(np.float64) * d.astype(np.float64)
    near = np.abs(s) < 1e-3
    c[near] += np.where(s[near] >= 0.0, np.float32(2e-3), np.float32(-2e-3))
    return {"b": b, "c": c, "d": d, "e": e}


def s274_guarded_overwrite(a, b, c, d, e, N):
    # b's select reads the first value of a, before the else branch overwrites it.
    a[:] = c + e * d
    b[:] = np.where(a > 0.0, a + b, b)
    a[:] = np.where(a > 0.0, a, d * e)

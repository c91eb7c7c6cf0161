"""s273_sign_guard: TSVC s273, a[i] += d[i] * e[i]; if (a[i] < 0) b[i] += d[i] * e[i]; c[i] += a[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    a, b, c, d, e = (rng.uniform(-1.0, 1.0, N).astype(np.float32) for _ in range(5))
    # The guard's a + d*e kept at least 1e-3 from zero: a fused multiply-add rounds the sum
    # differently from NumPy's product-then-sum, and a sum within rounding of zero could
    # take the other branch (a translation with FMA failed one element in a million).
    s = a.astype(np.float64) + d.astype(np.float64) * e.astype(np.float64)
    near = np.abs(s) < 1e-3
    a[near] += np.where(s[near] >= 0.0, np.float32(2e-3), np.float32(-2e-3))
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


def s273_sign_guard(a, b, c, d, e, N):
    # The test and the update of c read the new a.
    a[:] = a + d * e
    b[:] = np.where(a < 0.0, b + d * e, b)
    c[:] = c + a * d

"""s3112_running_sum: TSVC s3112, sum += a[i]; b[i] = sum (the running sums, and the total)."""

import numpy as np


def initialize(rng, N):
    # Terms of order one, centred a little above zero: the running sums wander like a
    # random walk (about sqrt(N)) and the total (about 3 sqrt(N)) sits some five standard
    # deviations from zero, so it never cancels.
    return {"a": (rng.uniform(-1.0, 1.0, N) + 3.0 / np.sqrt(N)).astype(np.float32)}


def s3112_running_sum(a, b, N):
    # A scan: each running sum needs the one before it (np.cumsum is outside the subset).
    s = np.float32(0.0)
    for i in range(N):
        s = s + a[i]
        b[i] = s
    return s

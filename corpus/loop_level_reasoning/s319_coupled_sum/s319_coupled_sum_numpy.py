"""s319_coupled_sum: TSVC s319, a[i] = c[i] + d[i]; sum += a[i]; b[i] = c[i] + e[i]; sum += b[i]."""

import numpy as np


def initialize(rng, N):
    # Terms of order one, c centred a little above zero: each a[i] + b[i] has mean about
    # 6 / sqrt(N) and standard deviation about 1.4, so the sum (about 6 sqrt(N)) sits some
    # four standard deviations from zero, never cancels, and moves by several percent from
    # one draw to the next.
    return {
        "c": (rng.uniform(-1.0, 1.0, N) + 3.0 / np.sqrt(N)).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s319_coupled_sum(a, b, c, d, e, N):
    # TSVC's order: one accumulator, in the arrays' precision (a Python 0.0 takes the
    # dtype of what is added to it).
    s = 0.0
    for i in range(N):
        a[i] = c[i] + d[i]
        s = s + a[i]
        b[i] = c[i] + e[i]
        s = s + b[i]
    return s

"""s258_conditional_carry: TSVC s258, s = 0; if (a[i] > 0) s = d[i] * d[i];
b[i] = s * c[i] + d[i]; e[i] = (s + 1) * aa[0, i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "aa": rng.uniform(-1.0, 1.0, (1, N)).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s258_conditional_carry(a, aa, b, c, d, e, N):
    # s keeps d[k]^2 for the last k <= i with a[k] > 0 (0 before the first): a sequential scan.
    s = 0.0
    for i in range(N):
        if a[i] > 0.0:
            s = d[i] * d[i]
        b[i] = s * c[i] + d[i]
        e[i] = (s + 1.0) * aa[0, i]

"""s243_three_statements: TSVC s243, a[i] = b[i] + c[i] d[i]; b[i] = a[i] + d[i] e[i];
a[i] = b[i] + a[i+1] d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s243_three_statements(a, b, c, d, e, N):
    # The first a[i] only feeds b[i]: b from it, then a from the new b and the old a[i+1]
    # (the right-hand side is evaluated before a is written).
    b[0:N - 1] = b[0:N - 1] + c[0:N - 1] * d[0:N - 1] + d[0:N - 1] * e[0:N - 1]
    a[0:N - 1] = b[0:N - 1] + a[1:N] * d[0:N - 1]

"""s3251_array_expansion: TSVC s3251, a[i+1] = b[i] + c[i]; b[i] = c[i] * e[i]; d[i] = a[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s3251_array_expansion(a, b, c, d, e, N):
    # Statements reordered: a[i] is written (from the old b) one iteration before d reads it.
    a[1:] = b[: N - 1] + c[: N - 1]
    d[: N - 1] = a[: N - 1] * e[: N - 1]
    b[: N - 1] = c[: N - 1] * e[: N - 1]

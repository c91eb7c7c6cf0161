"""s241_products: TSVC s241, a[i] = b[i] * c[i] * d[i]; b[i] = a[i] * a[i+1] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "b": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "c": rng.uniform(0.5, 1.5, N).astype(np.float32),
        "d": rng.uniform(0.5, 1.5, N).astype(np.float32),
    }


def s241_products(a, b, c, d, N):
    # The new a[i] goes to a temporary so that b can still read the old a[i+1].
    t = np.empty(N - 1, dtype=np.float32)
    t[:] = b[0:N - 1] * c[0:N - 1] * d[0:N - 1]
    b[0:N - 1] = t * a[1:N] * d[0:N - 1]
    a[0:N - 1] = t

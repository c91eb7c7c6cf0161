"""s431_parameter_offset: TSVC s431, a[i] = a[i+k] + b[i] with k = 2*k1 - k2 = 0 from constants."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s431_parameter_offset(a, b, N):
    # TSVC's parameters k1 = 1 and k2 = 2 give the offset k = 2*k1 - k2 = 0, so the loop
    # a[i] = a[i+k] + b[i] reads only the element it writes: a[i] = a[i] + b[i].
    a[:] = a + b

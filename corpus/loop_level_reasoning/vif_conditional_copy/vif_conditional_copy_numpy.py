"""vif_conditional_copy: TSVC vif, if (b[i] > 0) a[i] = b[i] (conditional copy)."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def vif_conditional_copy(a, b, N):
    a[:] = np.where(b > 0.0, b, a)

"""s222_squaring_recurrence: TSVC s222 (with a source term), a[i] += b[i] c[i];
e[i] = e[i-1]^2 + e[i]; a[i] -= b[i] c[i]."""

import numpy as np


def initialize(rng, N):
    # e in [-0.5, 0.2]: x -> x * x + e[i] maps [-0.5, 0.45] into itself and contracts there.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-0.5, 0.2, N).astype(np.float32),
    }


def s222_squaring_recurrence(a, b, c, e, N):
    a[1:N] += b[1:N] * c[1:N]
    for i in range(1, N):
        e[i] = e[i - 1] * e[i - 1] + e[i]
    a[1:N] -= b[1:N] * c[1:N]

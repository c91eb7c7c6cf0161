"""s252_carried_product: TSVC s252, t = 0; s = b[i] * c[i]; a[i] = s + t; t = s."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s252_carried_product(a, b, c, N):
    # t carries the previous product: a[i] = b[i] c[i] + b[i-1] c[i-1], a[0] = b[0] c[0].
    a[0] = b[0] * c[0]
    a[1:] = b[1:] * c[1:] + b[: N - 1] * c[: N - 1]

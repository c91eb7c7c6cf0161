"""s176_convolution: TSVC s176, m = N/2; a[i] += b[i + m - j - 1] * c[j] for j, i = 0 .. m-1."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s176_convolution(a, b, c, N):
    # The outer loop over j as in TSVC, the inner loop over i vectorised: each a[i] gets
    # its terms in the same order (j = 0, 1, ...) as the C nest.
    m = N // 2
    for j in range(m):
        a[:m] += b[m - j - 1 : 2 * m - j - 1] * c[j]

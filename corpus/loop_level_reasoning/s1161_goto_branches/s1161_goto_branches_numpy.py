"""s1161_goto_branches: TSVC s1161, if c[i] < 0: b[i] = a[i] + d[i] * d[i], else a[i] = c[i] + d[i] * e[i] (written with gotos)."""

import numpy as np


def initialize(rng, N):
    # c < 0 for about half the elements, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1161_goto_branches(a, b, c, d, e, N):
    # Iteration i touches only element i, and reads a[i] only on the branch that does not
    # write it: the stores to b use the old a, so they go first.
    b[: N - 1] = np.where(c[: N - 1] < 0.0, a[: N - 1] + d[: N - 1] * d[: N - 1], b[: N - 1])
    a[: N - 1] = np.where(c[: N - 1] < 0.0, a[: N - 1], c[: N - 1] + d[: N - 1] * e[: N - 1])

"""s161_goto_branches: TSVC s161, if b[i] < 0: c[i+1] = a[i] + d[i] * d[i], else a[i] = c[i] + d[i] * e[i] (written with gotos)."""

import numpy as np


def initialize(rng, N):
    # b < 0 for about half the elements, in random order.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s161_goto_branches(a, b, c, d, e, N):
    # Iteration i reads a[i] only on the branch that does not write it, so the stores to c
    # use the old a and can all go first; iteration i then reads c[i], written (or not) by
    # iteration i - 1, i.e. the c just computed. Two if-converted statements, in this order.
    c[1:N] = np.where(b[: N - 1] < 0.0, a[: N - 1] + d[: N - 1] * d[: N - 1], c[1:N])
    a[: N - 1] = np.where(b[: N - 1] < 0.0, a[: N - 1], c[: N - 1] + d[: N - 1] * e[: N - 1])

"""s123_conditional_induction: TSVC s123, an induction variable j advanced once or twice per iteration."""

import numpy as np


def initialize(rng, N):
    # c > 0 for about half the elements, so j advances by 1 or 2 at random.
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s123_conditional_induction(a, b, c, d, e, N):
    # Where a[j] lands depends on how many c > 0 came before: a sequential loop.
    j = -1
    for i in range(N // 2):
        j += 1
        a[j] = b[i] + d[i] * e[i]
        if c[i] > 0.0:
            j += 1
            a[j] = c[i] + d[i] * e[i]

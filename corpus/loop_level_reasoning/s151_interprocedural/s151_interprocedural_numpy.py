"""s151_interprocedural: TSVC s151, a call s151s(a, b, 1) whose body is a[i] = a[i + m] + b[i] for i = 0 .. N-2."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s151_interprocedural(a, b, N):
    # TSVC's s151s(a, b, m) called with m = 1, inlined here (the translator lowers no helper
    # calls). With m = 1 every read of a is ahead of the write, and NumPy evaluates the
    # right-hand side first, as the loop does.
    m = 1
    a[: N - 1] = a[m : N - 1 + m] + b[: N - 1]

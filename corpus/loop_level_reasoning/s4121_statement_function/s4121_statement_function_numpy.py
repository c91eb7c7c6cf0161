"""s4121_statement_function: TSVC s4121, a[i] += f(b[i], c[i]) with the function f(x, y) = x * y."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s4121_statement_function(a, b, c, N):
    # TSVC's f(x, y) = x * y, inlined (the translator does not translate helper calls).
    a[:] += b * c

"""s152_interprocedural: TSVC s152, b[i] = d[i] * e[i] then a call s152s(a, b, c, i) doing a[i] += b[i] * c[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s152_interprocedural(a, b, c, d, e, N):
    # Iteration i writes b[i], then the callee (inlined: the translator lowers no helper
    # calls) reads that b[i] and updates a[i]; no iteration touches another's elements.
    b[:] = d * e
    a[:] += b * c

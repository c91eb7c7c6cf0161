"""s1351_pointer_add: TSVC s1351, *A = *B + *C through three advancing pointers, a[i] = b[i] + c[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s1351_pointer_add(a, b, c, N):
    # TSVC walks three restrict pointers A, B, C that each advance by one per iteration;
    # the element they point to at iteration i is a[i], b[i], c[i].
    a[:] = b + c

"""s279_nested_goto: TSVC s279, if a[i] > 0 then c[i] = -c[i] + e[i] * e[i] else
{b[i] = -b[i] + d[i] * d[i]; if b[i] > a[i] then c[i] += d[i] * e[i]}; then
a[i] = b[i] + c[i] * d[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "a": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s279_nested_goto(a, b, c, d, e, N):
    # b first: the inner test of the else path reads the new b[i]; a is written last,
    # since every test reads the old a.
    b[:] = np.where(a > 0.0, b, -b + d * d)
    c[:] = np.where(a > 0.0, -c + e * e, np.where(b > a, c + d * e, c))
    a[:] = b + c * d

"""s471_call_in_loop: TSVC s471, x[i] = b[i] + d[i]^2; (call); b[i] = c[i] + d[i] * e[i]."""

import numpy as np


def initialize(rng, N):
    return {
        "b": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "c": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "d": rng.uniform(-1.0, 1.0, N).astype(np.float32),
        "e": rng.uniform(-1.0, 1.0, N).astype(np.float32),
    }


def s471_call_in_loop(x, b, c, d, e, N):
    # TSVC calls an empty function s471s() between the two statements; it has no effect.
    # x[i] reads b[i] before the second statement overwrites it, so x is computed first.
    x[:] = b + d * d
    b[:] = c + d * e

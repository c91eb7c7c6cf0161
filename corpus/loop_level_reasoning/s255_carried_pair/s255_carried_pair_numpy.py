"""s255_carried_pair: TSVC s255, x = b[N-1]; y = b[N-2]; a[i] = (b[i] + x + y) * 0.333; y = x; x = b[i]."""

import numpy as np


def initialize(rng, N):
    return {"b": rng.uniform(-1.0, 1.0, N).astype(np.float32)}


def s255_carried_pair(a, b, N):
    # x holds b[i-1] and y b[i-2], wrapping around to b[N-1] and b[N-2].
    a[0] = (b[0] + b[N - 1] + b[N - 2]) * 0.333
    a[1] = (b[1] + b[0] + b[N - 1]) * 0.333
    a[2:] = (b[2:] + b[1 : N - 1] + b[: N - 2]) * 0.333

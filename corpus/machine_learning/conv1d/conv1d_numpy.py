"""conv1d: NCL one-dimensional convolution (cross-correlation) with bias, stride 1, no padding."""

import numpy as np


def initialize(rng, N, C, L, K, R):
    fan_in = C * R
    return {
        "x": rng.standard_normal((N, C, L)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, R)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv1d(x, weight, bias, y, N, C, L, K, R):
    Q = L - R + 1
    for f in range(K):
        y[:, f, :] = bias[f]
    # y[n, f, q] += weight[f, ch, dr] * x[n, ch, q + dr], vectorised over n, f, q:
    # weight[:, ch, dr:dr+1] is K x 1 and x[:, ch:ch+1, ...] is N x 1 x Q.
    for dr in range(R):
        for ch in range(C):
            y[:, :, :] += weight[:, ch, dr:dr + 1] * x[:, ch:ch + 1, dr:dr + Q]

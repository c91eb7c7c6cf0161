"""conv2d: NCHW direct convolution (cross-correlation) with bias, stride 1, no padding."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d(x, weight, bias, y, N, C, H, W, K, R, S):
    P = H - R + 1
    Q = W - S + 1
    for f in range(K):
        y[:, f, :, :] = bias[f]
    # y[n, f, p, q] += weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q:
    # weight[:, ch, dr:dr+1, ds:ds+1] is K x 1 x 1 and x[:, ch:ch+1, ...] is N x 1 x P x Q.
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]

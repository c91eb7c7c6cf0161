"""depthwise_conv2d: NCHW depthwise convolution (groups = C, one R x S filter per channel) with bias."""

import numpy as np


def initialize(rng, N, C, H, W, R, S):
    fan_in = R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(C)).astype(np.float32),
    }


def depthwise_conv2d(x, weight, bias, y, N, C, H, W, R, S):
    P = H - R + 1
    Q = W - S + 1
    for ch in range(C):
        y[:, ch, :, :] = bias[ch]
    # y[n, ch, p, q] += weight[ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, ch, p, q:
    # weight[:, dr:dr+1, ds:ds+1] is C x 1 x 1.
    for dr in range(R):
        for ds in range(S):
            y[:, :, :, :] += weight[:, dr:dr + 1, ds:ds + 1] * x[:, :, dr:dr + P, ds:ds + Q]

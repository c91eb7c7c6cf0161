"""conv2d_dilated: NCHW convolution (cross-correlation) with bias, dilation 2, stride 1, no padding."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d_dilated(x, weight, bias, y, N, C, H, W, K, R, S):
    Ho = H - 2 * (R - 1)
    Wo = W - 2 * (S - 1)
    for f in range(K):
        y[:, f, :, :] = bias[f]
    # y[n, f, p, q] += weight[f, ch, dr, ds] * x[n, ch, p + 2 dr, q + 2 ds], vectorised over n, f, p, q.
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += (weight[:, ch, dr:dr + 1, ds:ds + 1]
                                  * x[:, ch:ch + 1, 2 * dr:2 * dr + Ho, 2 * ds:2 * ds + Wo])

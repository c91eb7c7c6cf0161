"""conv2d_stride_pad: NCHW convolution (cross-correlation) with bias, stride 2 and zero padding P."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S, P):
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d_stride_pad(x, weight, bias, y, N, C, H, W, K, R, S, P):
    Ho = (H + 2 * P - R) // 2 + 1
    Wo = (W + 2 * P - S) // 2 + 1
    # The input with P zero rows and columns on every side.
    xp = np.zeros((N, C, H + 2 * P, W + 2 * P), dtype=np.float32)
    xp[:, :, P:P + H, P:P + W] = x
    for f in range(K):
        y[:, f, :, :] = bias[f]
    # y[n, f, p, q] += weight[f, ch, dr, ds] * xp[n, ch, 2 p + dr, 2 q + ds], vectorised over n, f, p, q
    # with step-2 slices of the padded input.
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += (weight[:, ch, dr:dr + 1, ds:ds + 1]
                                  * xp[:, ch:ch + 1, dr:dr + 2 * Ho - 1:2, ds:ds + 2 * Wo - 1:2])

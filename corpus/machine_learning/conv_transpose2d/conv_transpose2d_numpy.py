"""conv_transpose2d: NCHW transposed convolution with bias, stride 2, no padding (scatter form)."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((C, K, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv_transpose2d(x, weight, bias, y, N, C, H, W, K, R, S):
    for f in range(K):
        y[:, f, :, :] = bias[f]
    # Every input pixel (i, j) adds its weighted filter at (2 i, 2 j):
    # y[n, f, 2 i + dr, 2 j + ds] += x[n, ch, i, j] * weight[ch, f, dr, ds], vectorised over n, f, i, j
    # as a step-2 slice of the output.
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, dr:dr + 2 * H - 1:2, ds:ds + 2 * W - 1:2] += (weight[ch, :, dr:dr + 1, ds:ds + 1]
                                                                      * x[:, ch:ch + 1, :, :])

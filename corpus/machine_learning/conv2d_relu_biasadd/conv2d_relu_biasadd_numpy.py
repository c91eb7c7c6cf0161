"""conv2d_relu_biasadd: NCHW convolution with bias (stride 1, no padding), then ReLU, then a
second per-channel bias added (KernelBench level 2 "1_Conv2D_ReLU_BiasAdd"), float32."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Filters scaled by 1 / sqrt(fan_in) give convolution outputs of order one on both sides
    # of the ReLU's kink; the biases move each channel's share of zeros.
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "bias2": (0.5 * rng.standard_normal((K, 1, 1))).astype(np.float32),
    }


def conv2d_relu_biasadd(x, weight, bias, bias2, out, N, C, H, W, K, R, S):
    P = H - R + 1
    Q = W - S + 1
    # The convolution, accumulated in out: out[n, f, p, q] = bias[f] + the sum over
    # (ch, dr, ds) of weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q.
    for f in range(K):
        out[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                out[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]
    # ReLU, then the K x 1 x 1 bias broadcast over each channel's plane.
    out[:, :, :, :] = np.maximum(out, 0.0) + bias2

"""conv2d_gelu_globalavgpool: NCHW convolution with bias (stride 1, no padding), GELU in its
tanh approximation, then the mean over each output plane (KernelBench level 2
"67_Conv2d_GELU_GlobalAvgPool"), float32, out N x K."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Every (sample, channel) input plane has its own offset in [-1, 1], so each (n, k) output
    # plane sits at its own level on GELU's curve and the N x K means differ by sample.
    fan_in = C * R * S
    x = rng.standard_normal((N, C, H, W)) + rng.uniform(-1.0, 1.0, (N, C, 1, 1))
    return {
        "x": x.astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d_gelu_globalavgpool(x, weight, bias, out, N, C, H, W, K, R, S):
    P = H - R + 1
    Q = W - S + 1
    y = np.empty((N, K, P, Q), dtype=np.float32)
    # The convolution: y[n, f, p, q] = bias[f] + the sum over (ch, dr, ds) of
    # weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q.
    for f in range(K):
        y[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]
    # GELU, 0.5 y (1 + tanh(sqrt(2 / pi) (y + 0.044715 y^3))), then each plane's mean
    # (summed along its rows, then over the rows).
    y[:, :, :, :] = 0.5 * y * (1.0 + np.tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)))
    out[:, :] = np.sum(np.sum(y, axis=3), axis=2) / (P * Q)

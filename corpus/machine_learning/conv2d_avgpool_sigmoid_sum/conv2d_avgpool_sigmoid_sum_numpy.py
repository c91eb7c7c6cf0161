"""conv2d_avgpool_sigmoid_sum: NCHW convolution with bias (stride 1, no padding), 2 x 2
average pooling with stride 2, sigmoid, then the sum over channels, rows and columns
(KernelBench level 2 "65_Conv2d_AvgPool_Sigmoid_Sum"), float32, out one value per sample."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Every (sample, channel) input plane has its own offset in [-1, 1] and spread in
    # [0.5, 2], so the pooled values sit at different places on the sigmoid from sample to
    # sample and the N sums differ by more than the tolerance.
    fan_in = C * R * S
    x = rng.uniform(0.5, 2.0, (N, C, 1, 1)) * rng.standard_normal((N, C, H, W)) + rng.uniform(-1.0, 1.0, (N, C, 1, 1))
    return {
        "x": x.astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d_avgpool_sigmoid_sum(x, weight, bias, out, N, C, H, W, K, R, S):
    P = H - R + 1
    Q = W - S + 1
    Po = P // 2
    Qo = Q // 2
    y = np.empty((N, K, P, Q), dtype=np.float32)
    z = np.empty((N, K, Po, Qo), dtype=np.float32)
    # The convolution: y[n, f, p, q] = bias[f] + the sum over (ch, dr, ds) of
    # weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q.
    for f in range(K):
        y[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]
    # 2 x 2 average pooling, stride 2 (a last odd row or column is dropped): the four
    # stride-2 sub-grids summed, divided by 4; then the sigmoid.
    z[:, :, :, :] = (y[:, :, 0:2 * Po:2, 0:2 * Qo:2] + y[:, :, 0:2 * Po:2, 1:2 * Qo:2]
                     + y[:, :, 1:2 * Po:2, 0:2 * Qo:2] + y[:, :, 1:2 * Po:2, 1:2 * Qo:2]) / 4.0
    z[:, :, :, :] = 1.0 / (1.0 + np.exp(-z))
    # The sum over (f, i, j) of each sample: along the rows, over the rows, over the channels.
    out[:] = np.sum(np.sum(np.sum(z, axis=3), axis=2), axis=1)

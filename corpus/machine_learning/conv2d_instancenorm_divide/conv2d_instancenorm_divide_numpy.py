"""conv2d_instancenorm_divide: NCHW convolution with bias (stride 1, no padding), instance
normalisation of each output plane (no affine), then a division by a constant (KernelBench
level 2 "17_Conv2d_InstanceNorm_Divide"), float32."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Every (sample, channel) input plane has its own offset in [-1, 1] and spread in
    # [0.5, 2], so every output plane has its own mean and variance.
    fan_in = C * R * S
    x = rng.uniform(0.5, 2.0, (N, C, 1, 1)) * rng.standard_normal((N, C, H, W)) + rng.uniform(-1.0, 1.0, (N, C, 1, 1))
    return {
        "x": x.astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "eps": 1e-5,
        "divide_by": 2.0,
    }


def conv2d_instancenorm_divide(x, weight, bias, out, eps, divide_by, N, C, H, W, K, R, S):
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
    # Each (n, f) plane normalised by its own mean and biased variance over (p, q) (summed
    # along each row, then over the rows), then divided by divide_by.
    mean = np.empty((N, K, 1, 1), dtype=np.float32)
    rstd = np.empty((N, K, 1, 1), dtype=np.float32)
    mean[:, :, :, :] = np.sum(np.sum(out, axis=3, keepdims=True), axis=2, keepdims=True) / (P * Q)
    out[:, :, :, :] = out - mean
    rstd[:, :, :, :] = 1.0 / np.sqrt(np.sum(np.sum(out * out, axis=3, keepdims=True), axis=2, keepdims=True) / (P * Q) + eps)
    out[:, :, :, :] = out * rstd / divide_by

"""conv2d_batchnorm_scaling: NCHW convolution with bias (stride 1, no padding), batch
normalisation in training mode (batch statistics, affine), then a multiplication by a
constant (KernelBench level 2 "73_Conv2d_BatchNorm_Scaling"), float32."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Every input channel has its own offset in [-1, 1] and spread in [0.5, 2], so every
    # output channel has its own batch mean and variance.
    fan_in = C * R * S
    x = rng.uniform(0.5, 2.0, (1, C, 1, 1)) * rng.standard_normal((N, C, H, W)) + rng.uniform(-1.0, 1.0, (1, C, 1, 1))
    return {
        "x": x.astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, K).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "eps": 1e-5,
        "scaling_factor": 2.0,
    }


def conv2d_batchnorm_scaling(x, weight, bias, gamma, beta, out, eps, scaling_factor, N, C, H, W, K, R, S):
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
    # Per channel f: the mean and the biased variance over (n, p, q) (summed along each row,
    # over the rows, over the batch), then the affine map, then the scaling.
    mean = np.empty((1, K, 1, 1), dtype=np.float32)
    scale = np.empty((1, K, 1, 1), dtype=np.float32)
    shift = np.empty((1, K, 1, 1), dtype=np.float32)
    mean[0, :, 0, 0] = np.sum(np.sum(np.sum(out, axis=3), axis=2), axis=0) / (N * P * Q)
    out[:, :, :, :] = out - mean
    scale[0, :, 0, 0] = gamma / np.sqrt(np.sum(np.sum(np.sum(out * out, axis=3), axis=2), axis=0) / (N * P * Q) + eps)
    shift[0, :, 0, 0] = beta
    out[:, :, :, :] = (out * scale + shift) * scaling_factor

"""batchnorm: 2-D batch normalisation in training mode (batch statistics), float32, two-pass."""

import numpy as np


def initialize(rng, N, C, H, W):
    # Every channel has its own offset (1 to 5) and spread (1 to 3), so the per-channel mean
    # and variance both matter and a cancelling variance formula loses digits.
    shift = rng.uniform(1.0, 5.0, (1, C, 1, 1))
    spread = rng.uniform(1.0, 3.0, (1, C, 1, 1))
    x = shift + spread * rng.standard_normal((N, C, H, W))
    return {
        "x": x.astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, C).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(C)).astype(np.float32),
        "eps": 1e-5,
    }


def batchnorm(x, gamma, beta, y, eps, N, C, H, W):
    # Per channel c: the mean and the biased variance over (n, h, w), summed along each
    # image row, then over the rows of a plane, then over the batch.
    mean = np.empty((1, C, 1, 1), dtype=np.float32)
    scale = np.empty((1, C, 1, 1), dtype=np.float32)
    shift = np.empty((1, C, 1, 1), dtype=np.float32)
    mean[0, :, 0, 0] = np.sum(np.sum(np.sum(x, axis=3), axis=2), axis=0) / (N * H * W)
    y[:, :, :, :] = x - mean
    scale[0, :, 0, 0] = gamma / np.sqrt(np.sum(np.sum(np.sum(y * y, axis=3), axis=2), axis=0) / (N * H * W) + eps)
    shift[0, :, 0, 0] = beta
    y[:, :, :, :] = y * scale + shift

"""bmm_instancenorm_sum_residualadd_multiply: a linear layer (x W^T + b), instance
normalisation of each row over its features (no affine), then (n + y) * y with a second
input y (float32)."""

import numpy as np


def initialize(rng, B, DIN, DOUT):
    # PyTorch's default Linear initialisation (uniform in +-1/sqrt(DIN)) for the weight; the
    # bias is offset to [0.5, 1.5], so every row has a mean near 1 that the normalisation removes.
    bound = 1.0 / np.sqrt(DIN)
    return {
        "x": rng.standard_normal((B, DIN)).astype(np.float32),
        "weight": rng.uniform(-bound, bound, (DOUT, DIN)).astype(np.float32),
        "bias": rng.uniform(0.5, 1.5, DOUT).astype(np.float32),
        "y": rng.standard_normal((B, DOUT)).astype(np.float32),
        "eps": 1e-5,
    }


def bmm_instancenorm_sum_residualadd_multiply(x, weight, bias, y, out, eps, B, DIN, DOUT):
    a = np.empty((B, DOUT), dtype=np.float32)
    mean = np.empty((B, 1), dtype=np.float32)
    rstd = np.empty((B, 1), dtype=np.float32)
    a[:, :] = x @ weight.T + bias
    # Instance normalisation of each row (one sample, one channel, DOUT values): its own mean
    # and biased variance.
    mean[:, :] = np.sum(a, axis=1, keepdims=True) / DOUT
    a[:, :] = a - mean
    rstd[:, :] = 1.0 / np.sqrt(np.sum(a * a, axis=1, keepdims=True) / DOUT + eps)
    out[:, :] = (a * rstd + y) * y

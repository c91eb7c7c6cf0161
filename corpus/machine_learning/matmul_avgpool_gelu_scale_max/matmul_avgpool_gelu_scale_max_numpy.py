"""matmul_avgpool_gelu_scale_max: a linear layer (x W^T + b), 1-D average pooling over the
features (kernel P, stride P), GELU (tanh form), a scale, then each row's maximum (float32)."""

import numpy as np


def initialize(rng, B, DIN, DOUT, P):
    # PyTorch's default Linear initialisation (uniform in +-1/sqrt(DIN)).
    bound = 1.0 / np.sqrt(DIN)
    return {
        "x": rng.standard_normal((B, DIN)).astype(np.float32),
        "weight": rng.uniform(-bound, bound, (DOUT, DIN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, DOUT).astype(np.float32),
        "scale": 2.0,
    }


def matmul_avgpool_gelu_scale_max(x, weight, bias, out, scale, B, DIN, DOUT, P):
    a = np.empty((B, DOUT), dtype=np.float32)
    pooled = np.empty((B, DOUT // P), dtype=np.float32)
    a[:, :] = x @ weight.T + bias
    # AvgPool1d(P) over the features: the mean of each run of P consecutive features.
    for m in range(DOUT // P):
        pooled[:, m] = np.sum(a[:, m * P:(m + 1) * P], axis=1) / P
    pooled[:, :] = 0.5 * pooled * (1.0 + np.tanh(0.7978845608028654 * (pooled + 0.044715 * pooled * pooled * pooled)))
    pooled[:, :] = pooled * scale
    out[:] = np.max(pooled, axis=1)

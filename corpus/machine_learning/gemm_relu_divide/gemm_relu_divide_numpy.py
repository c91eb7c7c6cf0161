"""gemm_relu_divide: Y = relu(x W^T + bias) / divisor, a torch.nn.Linear (W stored F x IN,
output-major) followed by a ReLU and a division by a scalar (float32)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on standard-normal inputs:
    # pre-activations of spread ~0.6 around zero, so about half of every column is cut by the ReLU.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": rng.standard_normal((B, IN)).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
        "divisor": 2.0,
    }


def gemm_relu_divide(x, W, bias, out, divisor, B, IN, F):
    out[:, :] = x @ W.T + bias
    out[:, :] = np.maximum(out, 0.0) / divisor

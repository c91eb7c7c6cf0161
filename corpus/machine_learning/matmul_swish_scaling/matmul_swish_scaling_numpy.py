"""matmul_swish_scaling: Y = swish(x W^T + bias) * scaling_factor, a torch.nn.Linear (W stored
F x IN, output-major), swish h * sigmoid(h), and a scalar scale (float32)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on inputs of spread 3:
    # pre-activations of spread ~1.7, over swish's minimum near -1.3 and its near-linear side.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": (3.0 * rng.standard_normal((B, IN))).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
        "scaling_factor": 2.0,
    }


def matmul_swish_scaling(x, W, bias, out, scaling_factor, B, IN, F):
    # Swish as h / (1 + exp(-h)), which is -0 where exp(-h) overflows.
    out[:, :] = x @ W.T + bias
    out[:, :] = out / (1.0 + np.exp(-out))
    out[:, :] = out * scaling_factor

"""gemm_add_relu: Y = relu(x W^T + bias), a torch.nn.Linear without its own bias (W stored
F x IN, output-major), a separate per-feature bias added, then a ReLU (float32)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on standard-normal inputs
    # (products of spread ~0.6), and a bias of spread 0.5: some features mostly cut by the
    # ReLU, some mostly passed, none dead everywhere.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": rng.standard_normal((B, IN)).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(F)).astype(np.float32),
    }


def gemm_add_relu(x, W, bias, out, B, IN, F):
    out[:, :] = x @ W.T
    out[:, :] = out + bias
    out[:, :] = np.maximum(out, 0.0)

"""gemm_sigmoid_sum: out[b] = sum_f sigmoid((x W^T + bias)[b, f]), a torch.nn.Linear (W stored
F x IN, output-major), a logistic sigmoid and a sum over the F features (float32)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on inputs of spread 2:
    # pre-activations of spread ~1.2, over the sigmoid's curved middle and into both tails.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": (2.0 * rng.standard_normal((B, IN))).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
    }


def gemm_sigmoid_sum(x, W, bias, out, B, IN, F):
    # 1 / (1 + exp(-h)) has the right limits everywhere in float32: exp(-h) = inf gives 0.
    h = np.empty((B, F), dtype=np.float32)
    h[:, :] = x @ W.T + bias
    h[:, :] = 1.0 / (1.0 + np.exp(-h))
    out[:] = np.sum(h, axis=1)

"""matmul_mish_mish: a torch.nn.Linear (W stored F x IN, output-major), then Mish,
h * tanh(softplus(h)), applied twice (float32)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on inputs of spread 3:
    # pre-activations of spread ~1.7, over Mish's minimum near -1.2 and its near-linear side.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": (3.0 * rng.standard_normal((B, IN))).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
    }


def matmul_mish_mish(x, W, bias, out, B, IN, F):
    # softplus as max(h, 0) + log(1 + exp(-|h|)), which never overflows; in float32 it equals
    # PyTorch's thresholded softplus (h itself above 20) there too.
    sp = np.empty((B, F), dtype=np.float32)
    out[:, :] = x @ W.T + bias
    sp[:, :] = np.maximum(out, 0.0) + np.log(1.0 + np.exp(-np.abs(out)))
    out[:, :] = out * np.tanh(sp)
    sp[:, :] = np.maximum(out, 0.0) + np.log(1.0 + np.exp(-np.abs(out)))
    out[:, :] = out * np.tanh(sp)

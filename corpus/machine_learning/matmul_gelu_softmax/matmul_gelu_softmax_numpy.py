"""matmul_gelu_softmax: a torch.nn.Linear (W stored F x IN, output-major), GELU in its tanh
approximation, then a softmax over each row's F features (float32)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on inputs of spread 4:
    # pre-activations of spread ~2.3, over GELU's curved region and its linear side, so the
    # softmax weights spread over about two orders of magnitude (far from uniform or one-hot).
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": (4.0 * rng.standard_normal((B, IN))).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
    }


def matmul_gelu_softmax(x, W, bias, out, B, IN, F):
    # GELU(h) = 0.5 h (1 + tanh(sqrt(2 / pi) (h + 0.044715 h^3))); the softmax with the row
    # maximum subtracted.
    out[:, :] = x @ W.T + bias
    out[:, :] = 0.5 * out * (1.0 + np.tanh(0.7978845608028654 * (out + 0.044715 * out * out * out)))
    out[:, :] = np.exp(out - np.max(out, axis=1, keepdims=True))
    out[:, :] = out / np.sum(out, axis=1, keepdims=True)

"""deep_narrow_mlp: a deep, narrow multi-layer perceptron: IN -> H, then DEPTH - 1 more
H -> H layers, ReLU after every hidden layer, then H -> OUT (float32; weights stored
input-major, y = x W + b)."""

import numpy as np


def initialize(rng, B, IN, H, DEPTH, OUT):
    # He-scaled weights keep the activations of order one through all DEPTH ReLU layers (as
    # the mlp kernel does); small biases.
    return {
        "x": rng.standard_normal((B, IN)).astype(np.float32),
        "W_in": (rng.standard_normal((IN, H)) * np.sqrt(2.0 / IN)).astype(np.float32),
        "b_in": (0.1 * rng.standard_normal(H)).astype(np.float32),
        "W_hid": (rng.standard_normal((DEPTH - 1, H, H)) * np.sqrt(2.0 / H)).astype(np.float32),
        "b_hid": (0.1 * rng.standard_normal((DEPTH - 1, H))).astype(np.float32),
        "W_out": (rng.standard_normal((H, OUT)) * np.sqrt(2.0 / H)).astype(np.float32),
        "b_out": (0.1 * rng.standard_normal(OUT)).astype(np.float32),
    }


def deep_narrow_mlp(x, W_in, b_in, W_hid, b_hid, W_out, b_out, y, B, IN, H, DEPTH, OUT):
    act = np.empty((B, H), dtype=np.float32)
    nxt = np.empty((B, H), dtype=np.float32)
    act[:, :] = np.maximum(x @ W_in + b_in, 0.0)
    for d in range(DEPTH - 1):
        nxt[:, :] = np.maximum(act @ W_hid[d, :, :] + b_hid[d, :], 0.0)
        act[:, :] = nxt
    y[:, :] = act @ W_out + b_out

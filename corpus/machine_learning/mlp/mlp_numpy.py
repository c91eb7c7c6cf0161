"""mlp: three dense layers with bias, ReLU after the first two (float32)."""

import numpy as np


def initialize(rng, B, DIN, DH, DOUT):
    def dense(fan_in, fan_out):
        # He-scaled weights keep activations of order one through the ReLU layers.
        return (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    return {
        "x": rng.standard_normal((B, DIN)).astype(np.float32),
        "W1": dense(DIN, DH),
        "b1": (0.1 * rng.standard_normal(DH)).astype(np.float32),
        "W2": dense(DH, DH),
        "b2": (0.1 * rng.standard_normal(DH)).astype(np.float32),
        "W3": dense(DH, DOUT),
        "b3": (0.1 * rng.standard_normal(DOUT)).astype(np.float32),
    }


def mlp(x, W1, b1, W2, b2, W3, b3, y, B, DIN, DH, DOUT):
    h1 = np.empty((B, DH), dtype=np.float32)
    h2 = np.empty((B, DH), dtype=np.float32)
    h1[:, :] = np.maximum(x @ W1 + b1, 0.0)
    h2[:, :] = np.maximum(h1 @ W2 + b2, 0.0)
    y[:, :] = h2 @ W3 + b3

"""lenet5: LeNet-5 forward pass on a batch of 32 x 32 single-channel float32 images:
two convolution + bias + ReLU + 2 x 2 max-pool stages, then three fully connected layers
(ReLU after the first two). Linear weights are stored as torch.nn.Linear stores them,
output-major (fc1_w is 120 x 400): y = x W^T + b."""

import numpy as np


def initialize(rng, N, NC):
    def he(shape, fan_in):
        # He-scaled normal weights keep activations of order one through the ReLU layers
        # (as the mlp kernel does): no ReLU is dead everywhere, none is the identity.
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def bias(n):
        return (0.1 * rng.standard_normal(n)).astype(np.float32)

    return {
        "x": rng.standard_normal((N, 1, 32, 32)).astype(np.float32),
        "conv1_w": he((6, 1, 5, 5), 25),
        "conv1_b": bias(6),
        "conv2_w": he((16, 6, 5, 5), 150),
        "conv2_b": bias(16),
        "fc1_w": he((120, 400), 400),
        "fc1_b": bias(120),
        "fc2_w": he((84, 120), 120),
        "fc2_b": bias(84),
        "fc3_w": he((NC, 84), 84),
        "fc3_b": bias(NC),
    }


def lenet5(x, conv1_w, conv1_b, conv2_w, conv2_b, fc1_w, fc1_b, fc2_w, fc2_b, fc3_w, fc3_b,
           out, N, NC):
    # Stage 1: conv 1 -> 6 channels, 5 x 5, 32 x 32 -> 28 x 28; ReLU; 2 x 2 max-pool -> 14 x 14.
    c1 = np.empty((N, 6, 28, 28), dtype=np.float32)
    for f in range(6):
        c1[:, f, :, :] = conv1_b[f]
    for dr in range(5):
        for ds in range(5):
            c1[:, :, :, :] += conv1_w[:, 0, dr:dr + 1, ds:ds + 1] * x[:, 0:1, dr:dr + 28, ds:ds + 28]
    c1[:, :, :, :] = np.maximum(c1, 0.0)
    p1 = np.empty((N, 6, 14, 14), dtype=np.float32)
    p1[:, :, :, :] = np.maximum(np.maximum(c1[:, :, 0:28:2, 0:28:2], c1[:, :, 0:28:2, 1:28:2]),
                                np.maximum(c1[:, :, 1:28:2, 0:28:2], c1[:, :, 1:28:2, 1:28:2]))
    # Stage 2: conv 6 -> 16 channels, 5 x 5, 14 x 14 -> 10 x 10; ReLU; 2 x 2 max-pool -> 5 x 5.
    c2 = np.empty((N, 16, 10, 10), dtype=np.float32)
    for f in range(16):
        c2[:, f, :, :] = conv2_b[f]
    for dr in range(5):
        for ds in range(5):
            for ch in range(6):
                c2[:, :, :, :] += conv2_w[:, ch, dr:dr + 1, ds:ds + 1] * p1[:, ch:ch + 1, dr:dr + 10, ds:ds + 10]
    c2[:, :, :, :] = np.maximum(c2, 0.0)
    # The pooled 16 x 5 x 5 maps go straight into the flattened 400 features, in (channel,
    # row, column) order: feature c * 25 + i * 5 + j.
    flat = np.empty((N, 400), dtype=np.float32)
    for c in range(16):
        for i in range(5):
            flat[:, c * 25 + i * 5:c * 25 + i * 5 + 5] = np.maximum(
                np.maximum(c2[:, c, 2 * i, 0:10:2], c2[:, c, 2 * i, 1:10:2]),
                np.maximum(c2[:, c, 2 * i + 1, 0:10:2], c2[:, c, 2 * i + 1, 1:10:2]))
    # Then 400 -> 120 -> 84 -> NC.
    h1 = np.empty((N, 120), dtype=np.float32)
    h2 = np.empty((N, 84), dtype=np.float32)
    h1[:, :] = np.maximum(flat @ fc1_w.T + fc1_b, 0.0)
    h2[:, :] = np.maximum(h1 @ fc2_w.T + fc2_b, 0.0)
    out[:, :] = h2 @ fc3_w.T + fc3_b

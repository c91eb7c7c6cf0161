"""resnet_basic_block: ResNet's BasicBlock (stride 1, C -> C channels), conv3x3 - BN - ReLU -
conv3x3 - BN - add the input - ReLU, with training-mode batch normalisation (float32, NCHW)."""

import numpy as np


def initialize(rng, N, C, H, W):
    # Convolution weights at torch.nn.Conv2d's default bound, uniform in +-1/sqrt(C * 9);
    # BatchNorm scales in [0.5, 1.5] and shifts of spread 0.5, so each ReLU passes about
    # half of its inputs and the final sum weighs the block and the identity alike.
    bound = 1.0 / np.sqrt(9 * C)
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "w1": rng.uniform(-bound, bound, (C, C, 3, 3)).astype(np.float32),
        "g1": rng.uniform(0.5, 1.5, C).astype(np.float32),
        "b1": (0.5 * rng.standard_normal(C)).astype(np.float32),
        "w2": rng.uniform(-bound, bound, (C, C, 3, 3)).astype(np.float32),
        "g2": rng.uniform(0.5, 1.5, C).astype(np.float32),
        "b2": (0.5 * rng.standard_normal(C)).astype(np.float32),
        "eps": 1e-5,
    }


def resnet_basic_block(x, w1, g1, b1, w2, g2, b2, out, eps, N, C, H, W):
    # Each filter tap (dr, ds) as a C x C matrix, so that a 3 x 3 convolution with zero
    # padding 1 is, per image row and tap, a C x C times C x W product on the padded input.
    wt = np.empty((3, 3, C, C), dtype=np.float32)
    xp = np.zeros((N, C, H + 2, W + 2), dtype=np.float32)
    t = np.empty((N, C, H, W), dtype=np.float32)
    mean = np.empty((1, C, 1, 1), dtype=np.float32)
    scale = np.empty((1, C, 1, 1), dtype=np.float32)
    shift = np.empty((1, C, 1, 1), dtype=np.float32)

    # conv1 (no bias) on the zero-padded input.
    for dr in range(3):
        for ds in range(3):
            wt[dr, ds, :, :] = w1[:, :, dr, ds]
    xp[:, :, 1:H + 1, 1:W + 1] = x
    t[:, :, :, :] = 0.0
    for img in range(N):
        for row in range(H):
            for dr in range(3):
                for ds in range(3):
                    t[img, :, row, :] += wt[dr, ds, :, :] @ xp[img, :, row + dr, ds:ds + W]
    # bn1 (batch statistics over n, h, w; biased variance), then relu, into the padded buffer.
    mean[0, :, 0, 0] = np.sum(np.sum(np.sum(t, axis=3), axis=2), axis=0) / (N * H * W)
    t[:, :, :, :] = t - mean
    scale[0, :, 0, 0] = g1 / np.sqrt(np.sum(np.sum(np.sum(t * t, axis=3), axis=2), axis=0) / (N * H * W) + eps)
    shift[0, :, 0, 0] = b1
    xp[:, :, 1:H + 1, 1:W + 1] = np.maximum(t * scale + shift, 0.0)

    # conv2 (no bias).
    for dr in range(3):
        for ds in range(3):
            wt[dr, ds, :, :] = w2[:, :, dr, ds]
    t[:, :, :, :] = 0.0
    for img in range(N):
        for row in range(H):
            for dr in range(3):
                for ds in range(3):
                    t[img, :, row, :] += wt[dr, ds, :, :] @ xp[img, :, row + dr, ds:ds + W]
    # bn2, the identity shortcut, relu.
    mean[0, :, 0, 0] = np.sum(np.sum(np.sum(t, axis=3), axis=2), axis=0) / (N * H * W)
    t[:, :, :, :] = t - mean
    scale[0, :, 0, 0] = g2 / np.sqrt(np.sum(np.sum(np.sum(t * t, axis=3), axis=2), axis=0) / (N * H * W) + eps)
    shift[0, :, 0, 0] = b2
    out[:, :, :, :] = np.maximum(t * scale + shift + x, 0.0)

"""mobilenet_inverted_residual: MobileNetV2's inverted residual block (stride 1, C -> C channels,
expansion E): 1x1 expand - BN - ReLU6 - 3x3 depthwise - BN - ReLU6 - 1x1 project - BN, plus the
input, with training-mode batch normalisation (float32, NCHW)."""

import numpy as np


def initialize(rng, N, C, H, W, E):
    # Convolution weights at torch.nn.Conv2d's default bound, uniform in +-1/sqrt(fan_in).
    # The two BatchNorms before a ReLU6 have scales in [2, 4] and shifts in [0, 2], so each
    # ReLU6 clips both below 0 (about a third of its inputs) and above 6 (about 5 percent);
    # the last BatchNorm (no activation) has scales in [0.5, 1.5].
    CE = C * E
    b_exp = 1.0 / np.sqrt(C)
    b_dw = 1.0 / 3.0
    b_proj = 1.0 / np.sqrt(CE)
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "w_exp": rng.uniform(-b_exp, b_exp, (CE, C)).astype(np.float32),
        "g1": rng.uniform(2.0, 4.0, CE).astype(np.float32),
        "b1": rng.uniform(0.0, 2.0, CE).astype(np.float32),
        "w_dw": rng.uniform(-b_dw, b_dw, (CE, 3, 3)).astype(np.float32),
        "g2": rng.uniform(2.0, 4.0, CE).astype(np.float32),
        "b2": rng.uniform(0.0, 2.0, CE).astype(np.float32),
        "w_proj": rng.uniform(-b_proj, b_proj, (C, CE)).astype(np.float32),
        "g3": rng.uniform(0.5, 1.5, C).astype(np.float32),
        "b3": (0.5 * rng.standard_normal(C)).astype(np.float32),
        "eps": 1e-5,
    }


def mobilenet_inverted_residual(x, w_exp, g1, b1, w_dw, g2, b2, w_proj, g3, b3, out, eps, N, C, H, W, E):
    CE = C * E
    hp = np.zeros((N, CE, H + 2, W + 2), dtype=np.float32)
    t = np.empty((N, CE, H, W), dtype=np.float32)
    mean_e = np.empty((1, CE, 1, 1), dtype=np.float32)
    scale_e = np.empty((1, CE, 1, 1), dtype=np.float32)
    shift_e = np.empty((1, CE, 1, 1), dtype=np.float32)
    mean_c = np.empty((1, C, 1, 1), dtype=np.float32)
    scale_c = np.empty((1, C, 1, 1), dtype=np.float32)
    shift_c = np.empty((1, C, 1, 1), dtype=np.float32)

    # 1x1 expansion C -> CE (no bias): a CE x C times C x W product per image row.
    for img in range(N):
        for row in range(H):
            t[img, :, row, :] = w_exp @ x[img, :, row, :]
    # BN (batch statistics over n, h, w; biased variance), ReLU6, into a zero-padded buffer.
    mean_e[0, :, 0, 0] = np.sum(np.sum(np.sum(t, axis=3), axis=2), axis=0) / (N * H * W)
    t[:, :, :, :] = t - mean_e
    scale_e[0, :, 0, 0] = g1 / np.sqrt(np.sum(np.sum(np.sum(t * t, axis=3), axis=2), axis=0) / (N * H * W) + eps)
    shift_e[0, :, 0, 0] = b1
    hp[:, :, 1:H + 1, 1:W + 1] = np.minimum(np.maximum(t * scale_e + shift_e, 0.0), 6.0)

    # 3x3 depthwise convolution, padding 1 (no bias): one filter per channel, tap by tap.
    t[:, :, :, :] = 0.0
    for dr in range(3):
        for ds in range(3):
            t[:, :, :, :] += w_dw[:, dr:dr + 1, ds:ds + 1] * hp[:, :, dr:dr + H, ds:ds + W]
    # BN, ReLU6.
    mean_e[0, :, 0, 0] = np.sum(np.sum(np.sum(t, axis=3), axis=2), axis=0) / (N * H * W)
    t[:, :, :, :] = t - mean_e
    scale_e[0, :, 0, 0] = g2 / np.sqrt(np.sum(np.sum(np.sum(t * t, axis=3), axis=2), axis=0) / (N * H * W) + eps)
    shift_e[0, :, 0, 0] = b2
    t[:, :, :, :] = np.minimum(np.maximum(t * scale_e + shift_e, 0.0), 6.0)

    # 1x1 projection CE -> C (no bias, no activation), BN, then the residual add.
    for img in range(N):
        for row in range(H):
            out[img, :, row, :] = w_proj @ t[img, :, row, :]
    mean_c[0, :, 0, 0] = np.sum(np.sum(np.sum(out, axis=3), axis=2), axis=0) / (N * H * W)
    out[:, :, :, :] = out - mean_c
    scale_c[0, :, 0, 0] = g3 / np.sqrt(np.sum(np.sum(np.sum(out * out, axis=3), axis=2), axis=0) / (N * H * W) + eps)
    shift_c[0, :, 0, 0] = b3
    out[:, :, :, :] = out * scale_c + shift_c + x

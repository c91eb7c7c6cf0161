"""conv_transpose2d_subtract_tanh: NCHW transposed convolution with bias (stride 2, padding 1,
output_padding 1), minus a per-channel bias, then tanh (float32)."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # At stride 2 an output pixel gathers about C R S / 4 taps: weights of standard deviation
    # 2 / sqrt(C R S) give a convolution of spread ~1, and the two biases shift each channel
    # by up to ~2, so tanh sees its linear middle and both bends in every channel.
    fan = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (2.0 * rng.standard_normal((C, K, R, S)) / np.sqrt(fan)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "bias2": rng.uniform(-1.0, 1.0, (K, 1, 1)).astype(np.float32),
    }


def conv_transpose2d_subtract_tanh(x, weight, bias, bias2, out, N, C, H, W, K, R, S):
    # The uncropped transposed convolution (scatter form): every input pixel (i, j) adds its
    # weighted filter at (2 i, 2 j), full[n, f, 2 i + dr, 2 j + ds] += x[n, ch, i, j] weight[ch, f, dr, ds].
    # It is 2 (H - 1) + R rows high; padding 1 drops its first and last row, output_padding 1
    # adds the last one back, so out is full[:, :, 1:, 1:], 2 H + R - 3 rows by 2 W + S - 3 columns.
    full = np.empty((N, K, 2 * (H - 1) + R, 2 * (W - 1) + S), dtype=np.float32)
    for f in range(K):
        full[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                full[:, :, dr:dr + 2 * H - 1:2, ds:ds + 2 * W - 1:2] += (weight[ch, :, dr:dr + 1, ds:ds + 1]
                                                                         * x[:, ch:ch + 1, :, :])
    out[:, :, :, :] = np.tanh(full[:, :, 1:, 1:] - bias2)

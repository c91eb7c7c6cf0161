"""conv_transpose2d_maxpool_hardtanh_mean_tanh: NCHW transposed convolution with bias
(stride 2, padding 1), 2 x 2 max pooling (stride 2), hardtanh to [-1, 1], the mean over each
channel's pixels, then tanh (float32)."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # At stride 2 an output pixel gathers about C R S / 4 taps: weights of standard deviation
    # 1.2 / sqrt(C R S) give a convolution of spread ~0.6, and biases from -1.5 to 0.5 put the
    # channels' pooled maxima across [-1, 1] with some clipped at either end.
    fan = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (1.2 * rng.standard_normal((C, K, R, S)) / np.sqrt(fan)).astype(np.float32),
        "bias": rng.uniform(-1.5, 0.5, K).astype(np.float32),
    }


def conv_transpose2d_maxpool_hardtanh_mean_tanh(x, weight, bias, out, N, C, H, W, K, R, S):
    # The uncropped transposed convolution (scatter form), 2 (H - 1) + R rows high: every
    # input pixel (i, j) adds its weighted filter at (2 i, 2 j). Padding 1 drops its first and
    # last row and column: the convolution's output is full[:, :, 1:2 H + R - 3, 1:2 W + S - 3],
    # Ho = 2 H + R - 4 rows, pooled 2 x 2 into Hp = Ho // 2 rows (an odd last row is dropped).
    Hp = (2 * H + R - 4) // 2
    Wp = (2 * W + S - 4) // 2
    full = np.empty((N, K, 2 * (H - 1) + R, 2 * (W - 1) + S), dtype=np.float32)
    pool = np.empty((N, K, Hp, Wp), dtype=np.float32)
    for f in range(K):
        full[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                full[:, :, dr:dr + 2 * H - 1:2, ds:ds + 2 * W - 1:2] += (weight[ch, :, dr:dr + 1, ds:ds + 1]
                                                                         * x[:, ch:ch + 1, :, :])
    # Pooled pixel (i, j) is the maximum of output rows 2 i, 2 i + 1 and columns 2 j, 2 j + 1,
    # which are full's rows 2 i + 1, 2 i + 2 and columns 2 j + 1, 2 j + 2.
    pool[:, :, :, :] = np.maximum(np.maximum(full[:, :, 1:2 * Hp:2, 1:2 * Wp:2], full[:, :, 2:2 * Hp + 1:2, 1:2 * Wp:2]),
                                  np.maximum(full[:, :, 1:2 * Hp:2, 2:2 * Wp + 1:2], full[:, :, 2:2 * Hp + 1:2, 2:2 * Wp + 1:2]))
    pool[:, :, :, :] = np.minimum(np.maximum(pool, -1.0), 1.0)
    out[:, :, :, :] = np.tanh(np.sum(np.sum(pool, axis=3, keepdims=True), axis=2, keepdims=True) / (Hp * Wp))

"""conv2d_subtract_hardswish_maxpool_mish: NCHW convolution with bias (stride 1, no padding),
minus a constant, HardSwish, 2 x 2 max pooling with stride 2, then Mish (KernelBench level 2
"35_Conv2d_Subtract_HardSwish_MaxPool_Mish"), float32, out N x K x P // 2 x Q // 2."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Filters scaled by 2 / sqrt(fan_in): convolution outputs of spread about 2, so after the
    # subtraction values lie below -3, between -3 and 3 and above 3 (HardSwish's three pieces),
    # and the pooled values cover Mish's curved part.
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (2.0 * rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "subtract_value": 0.5,
    }


def conv2d_subtract_hardswish_maxpool_mish(x, weight, bias, out, subtract_value, N, C, H, W, K, R, S):
    P = H - R + 1
    Q = W - S + 1
    Po = P // 2
    Qo = Q // 2
    y = np.empty((N, K, P, Q), dtype=np.float32)
    # The convolution: y[n, f, p, q] = bias[f] + the sum over (ch, dr, ds) of
    # weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q.
    for f in range(K):
        y[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]
    # Subtract, then HardSwish: y * min(max(y + 3, 0), 6) / 6.
    y[:, :, :, :] = y - subtract_value
    y[:, :, :, :] = y * np.minimum(np.maximum(y + 3.0, 0.0), 6.0) / 6.0
    # 2 x 2 max pooling, stride 2 (a last odd row or column is dropped): the maximum of the
    # four stride-2 sub-grids.
    out[:, :, :, :] = np.maximum(np.maximum(y[:, :, 0:2 * Po:2, 0:2 * Qo:2], y[:, :, 0:2 * Po:2, 1:2 * Qo:2]),
                                 np.maximum(y[:, :, 1:2 * Po:2, 0:2 * Qo:2], y[:, :, 1:2 * Po:2, 1:2 * Qo:2]))
    # Mish, softplus(x) = log(1 + e^x) written max(x, 0) + log(1 + e^-|x|), which never overflows.
    out[:, :, :, :] = out * np.tanh(np.maximum(out, 0.0) + np.log(1.0 + np.exp(-np.abs(out))))

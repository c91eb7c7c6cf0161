"""conv2d_min_tanh_tanh: NCHW convolution with bias (stride 1, no padding), the minimum over
the output channels (kept as a dimension of one), then tanh twice (KernelBench level 2
"25_Conv2d_Min_Tanh_Tanh"), float32, out N x 1 x P x Q."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S):
    # Filters scaled by 0.5 / sqrt(fan_in), biases of spread 0.25 and a per-(sample, channel)
    # input offset in [-1, 1]: which channel is the minimum changes from pixel to pixel, and
    # the minima (mostly between -1.6 and -0.5) stay on tanh's curved part.
    fan_in = C * R * S
    x = rng.standard_normal((N, C, H, W)) + rng.uniform(-1.0, 1.0, (N, C, 1, 1))
    return {
        "x": x.astype(np.float32),
        "weight": (0.5 * rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.25 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d_min_tanh_tanh(x, weight, bias, out, N, C, H, W, K, R, S):
    P = H - R + 1
    Q = W - S + 1
    y = np.empty((N, K, P, Q), dtype=np.float32)
    # The convolution: y[n, f, p, q] = bias[f] + the sum over (ch, dr, ds) of
    # weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q.
    for f in range(K):
        y[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                y[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]
    out[:, :, :, :] = np.min(y, axis=1, keepdims=True)
    out[:, :, :, :] = np.tanh(np.tanh(out))

"""conv3d_relu_leakyrelu_gelu_sigmoid_biasadd: NCDHW convolution with bias (stride 1, no
padding), then ReLU, leaky ReLU (slope 0.01), GELU (tanh form), sigmoid and a per-channel
bias (float32)."""

import numpy as np


def initialize(rng, N, C, D, H, W, K, T, R, S):
    # Weights of standard deviation 1 / sqrt(C T R S) give a convolution of spread ~1 around
    # its bias, so about half the values pass the ReLU and GELU and sigmoid see their curved
    # range; bias2 (up to +-1) differs per channel.
    fan_in = C * T * R * S
    return {
        "x": rng.standard_normal((N, C, D, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, T, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "bias2": rng.uniform(-1.0, 1.0, (K, 1, 1, 1)).astype(np.float32),
    }


def conv3d_relu_leakyrelu_gelu_sigmoid_biasadd(x, weight, bias, bias2, out, N, C, D, H, W, K, T, R, S):
    Dout = D - T + 1
    Hout = H - R + 1
    Wout = W - S + 1
    y = np.empty((N, K, Dout, Hout, Wout), dtype=np.float32)
    for f in range(K):
        y[:, f, :, :, :] = bias[f]
    # y[n, f, o, p, q] += weight[f, ch, dt, dr, ds] * x[n, ch, o + dt, p + dr, q + ds],
    # vectorised over n, f, o, p, q: weight[:, ch, dt:dt+1, dr:dr+1, ds:ds+1] is K x 1 x 1 x 1.
    for dt in range(T):
        for dr in range(R):
            for ds in range(S):
                for ch in range(C):
                    y[:, :, :, :, :] += (weight[:, ch, dt:dt + 1, dr:dr + 1, ds:ds + 1]
                                         * x[:, ch:ch + 1, dt:dt + Dout, dr:dr + Hout, ds:ds + Wout])
    y[:, :, :, :, :] = np.maximum(y, 0.0)                     # ReLU
    y[:, :, :, :, :] = np.where(y >= 0.0, y, 0.01 * y)        # leaky ReLU (the identity after the ReLU)
    y[:, :, :, :, :] = 0.5 * y * (1.0 + np.tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)))   # GELU, tanh form
    out[:, :, :, :, :] = 1.0 / (1.0 + np.exp(-y)) + bias2     # sigmoid, then + bias2

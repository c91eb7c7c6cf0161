"""conv3d_min_softmax: NCDHW convolution with bias (stride 1, no padding), the minimum over
depth, then a softmax over the channels (float32)."""

import numpy as np


def initialize(rng, N, C, D, H, W, K, T, R, S):
    # Weights of standard deviation 1 / sqrt(C T R S) give a convolution of spread ~1; with
    # biases of spread 0.5 the channels' depth minima differ by about one, so the softmax over
    # channels is neither uniform nor one-hot.
    fan_in = C * T * R * S
    return {
        "x": rng.standard_normal((N, C, D, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, T, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv3d_min_softmax(x, weight, bias, out, N, C, D, H, W, K, T, R, S):
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
    # The minimum over depth, then a stable softmax over the K channels of each (n, p, q).
    low = np.empty((N, K, Hout, Wout), dtype=np.float32)
    top = np.empty((N, 1, Hout, Wout), dtype=np.float32)
    low[:, :, :, :] = np.min(y, axis=2)
    top[:, :, :, :] = np.max(low, axis=1, keepdims=True)
    out[:, :, :, :] = np.exp(low - top)
    out[:, :, :, :] = out / np.sum(out, axis=1, keepdims=True)

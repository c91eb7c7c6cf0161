"""conv3d: NCDHW three-dimensional convolution (cross-correlation) with bias, stride 1, no padding."""

import numpy as np


def initialize(rng, N, C, D, H, W, K, T, R, S):
    fan_in = C * T * R * S
    return {
        "x": rng.standard_normal((N, C, D, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, T, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv3d(x, weight, bias, y, N, C, D, H, W, K, T, R, S):
    Dout = D - T + 1
    Hout = H - R + 1
    Wout = W - S + 1
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

"""conv2d_grouped: NCHW grouped convolution (cross-correlation) with bias, stride 1 and zero
padding P: the C input and K output channels split into G groups, each output channel seeing
only its group's C / G input channels (torch.nn.Conv2d(C, K, (R, S), padding=P, groups=G))."""

import numpy as np


def initialize(rng, N, C, H, W, K, G, R, S, P):
    fan_in = (C // G) * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C // G, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
    }


def conv2d_grouped(x, weight, bias, y, N, C, H, W, K, G, R, S, P):
    Ho = H + 2 * P - R + 1
    Wo = W + 2 * P - S + 1
    Cg = C // G
    Kg = K // G
    # The input with P zero rows and columns on every side.
    xp = np.zeros((N, C, H + 2 * P, W + 2 * P), dtype=np.float32)
    xp[:, :, P:P + H, P:P + W] = x
    for f in range(K):
        y[:, f, :, :] = bias[f]
    # Output channel f = grp * Kg + k of group grp reads input channel grp * Cg + ch through
    # weight[f, ch, :, :]:
    #   y[n, f, p, q] += weight[f, ch, dr, ds] * xp[n, grp * Cg + ch, p + dr, q + ds],
    # vectorised over n, the group's Kg output channels, p and q.
    for grp in range(G):
        for dr in range(R):
            for ds in range(S):
                for ch in range(Cg):
                    y[:, grp * Kg:(grp + 1) * Kg, :, :] += (weight[grp * Kg:(grp + 1) * Kg, ch, dr:dr + 1, ds:ds + 1]
                                                          * xp[:, grp * Cg + ch:grp * Cg + ch + 1, dr:dr + Ho, ds:ds + Wo])

"""deriche: Deriche's recursive (IIR) edge-detection filter on an image, in float32 (PolyBench/C
deriche, its coefficients as PolyBench writes them)."""

import numpy as np


def initialize(rng, W, H):
    # A random image in [0, 1) (no smooth pattern, so the filtered output keeps detail) and
    # PolyBench's alpha.
    return {
        "imgIn": rng.random((W, H), dtype=np.float32),
        "alpha": np.float32(0.25),
    }


def deriche(imgIn, imgOut, alpha, W, H):
    # PolyBench's coefficients, in float32 (a5..a8 = a1..a4, c1 = c2 = 1).
    k = (1.0 - np.exp(-alpha)) * (1.0 - np.exp(-alpha)) / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    a1 = k
    a2 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    y1 = np.empty((W, H), dtype=np.float32)
    y2 = np.empty((W, H), dtype=np.float32)
    u = np.empty((W, H), dtype=np.float32)

    # Four passes, each a second-order recurrence along one axis with zero initial state,
    # y[n] = (a x[n] + a' x[n -+ 1]) + b1 y[n -+ 1] + b2 y[n -+ 2], summed in PolyBench's
    # order. The input terms do not depend on the recurrence: they are computed for the
    # whole image first (into u); the recurrence runs step by step, each step a vector
    # across the independent rows (or columns).
    # 1. along j, causal.
    u[:, 0] = a1 * imgIn[:, 0]
    u[:, 1:H] = a1 * imgIn[:, 1:H] + a2 * imgIn[:, 0:H - 1]
    y1[:, 0] = u[:, 0]
    for j in range(1, H):
        if j == 1:
            y1[:, 1] = u[:, 1] + b1 * y1[:, 0]
        else:
            y1[:, j] = u[:, j] + b1 * y1[:, j - 1] + b2 * y1[:, j - 2]
    # 2. along j, anticausal (j = H-1 down to 0).
    y2[:, H - 1] = 0.0
    if H > 1:
        u[:, H - 2] = a3 * imgIn[:, H - 1]
        u[:, 0:H - 2] = a3 * imgIn[:, 1:H - 1] + a4 * imgIn[:, 2:H]
    for jj in range(1, H):
        jb = H - 1 - jj
        if jj == 1:
            y2[:, jb] = u[:, jb] + b1 * y2[:, jb + 1]
        else:
            y2[:, jb] = u[:, jb] + b1 * y2[:, jb + 1] + b2 * y2[:, jb + 2]
    imgOut[:, :] = y1 + y2
    # 3. along i, causal, on the horizontal result.
    u[0, :] = a1 * imgOut[0, :]
    u[1:W, :] = a1 * imgOut[1:W, :] + a2 * imgOut[0:W - 1, :]
    y1[0, :] = u[0, :]
    for i in range(1, W):
        if i == 1:
            y1[1, :] = u[1, :] + b1 * y1[0, :]
        else:
            y1[i, :] = u[i, :] + b1 * y1[i - 1, :] + b2 * y1[i - 2, :]
    # 4. along i, anticausal.
    y2[W - 1, :] = 0.0
    if W > 1:
        u[W - 2, :] = a3 * imgOut[W - 1, :]
        u[0:W - 2, :] = a3 * imgOut[1:W - 1, :] + a4 * imgOut[2:W, :]
    for ii in range(1, W):
        ib = W - 1 - ii
        if ii == 1:
            y2[ib, :] = u[ib, :] + b1 * y2[ib + 1, :]
        else:
            y2[ib, :] = u[ib, :] + b1 * y2[ib + 1, :] + b2 * y2[ib + 2, :]
    imgOut[:, :] = y1 + y2

"""maxpool3d: 3-D max pooling of NCDHW float32 volumes, a K x K x K window moved by stride S,
P planes of padding on every side that never win (they act as -inf), no dilation
(torch.nn.MaxPool3d(K, stride=S, padding=P))."""

import numpy as np


def initialize(rng, N, C, D, H, W, K, S, P):
    # Standard normal voxels: every window's maximum is a different input, and which
    # position wins varies from window to window.
    return {"x": rng.standard_normal((N, C, D, H, W)).astype(np.float32)}


def maxpool3d(x, y, N, C, D, H, W, K, S, P):
    Dout = (D + 2 * P - K) // S + 1
    Hout = (H + 2 * P - K) // S + 1
    Wout = (W + 2 * P - K) // S + 1
    # The maximum over a box is taken one axis at a time: D, then H, then W (the inner axis
    # last, on the smallest array). The window of output position q along an axis of extent E
    # covers q * S - P .. q * S - P + K - 1; padding never wins a maximum, so the window is
    # clipped to the input, 0 .. E - 1.
    rd = np.empty((N, C, Dout, H, W), dtype=np.float32)
    for o in range(Dout):
        first = max(o * S - P, 0)
        last = min(o * S - P + K, D)
        rd[:, :, o, :, :] = np.max(x[:, :, first:last, :, :], axis=2)
    rh = np.empty((N, C, Dout, Hout, W), dtype=np.float32)
    for r in range(Hout):
        first = max(r * S - P, 0)
        last = min(r * S - P + K, H)
        rh[:, :, :, r, :] = np.max(rd[:, :, :, first:last, :], axis=3)
    for q in range(Wout):
        first = max(q * S - P, 0)
        last = min(q * S - P + K, W)
        y[:, :, :, :, q] = np.max(rh[:, :, :, :, first:last], axis=4)

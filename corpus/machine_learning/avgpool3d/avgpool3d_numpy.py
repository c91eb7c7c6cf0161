"""avgpool3d: 3-D average pooling of NCDHW float32 volumes, a K x K x K window moved by stride S,
P planes of zero padding on every side that count in the divisor (PyTorch's default
count_include_pad=True: every window divides by K * K * K)
(torch.nn.AvgPool3d(K, stride=S, padding=P))."""

import numpy as np


def initialize(rng, N, C, D, H, W, K, S, P):
    # Voxels with a per-channel offset and spread: window means vary across windows and
    # channels instead of all sitting near zero.
    x = rng.uniform(0.5, 2.0, (1, C, 1, 1, 1)) * rng.standard_normal((N, C, D, H, W)) + rng.uniform(-1.0, 1.0, (1, C, 1, 1, 1))
    return {"x": x.astype(np.float32)}


def avgpool3d(x, y, N, C, D, H, W, K, S, P):
    Dout = (D + 2 * P - K) // S + 1
    Hout = (H + 2 * P - K) // S + 1
    Wout = (W + 2 * P - K) // S + 1
    # The sum over a box is taken one axis at a time: D, then H, then W (the inner axis last,
    # on the smallest array). The window of output position q along an axis of extent E covers
    # q * S - P .. q * S - P + K - 1; the padding adds zeros, so the sum runs over the window
    # clipped to the input, 0 .. E - 1, while the divisor stays K * K * K.
    rd = np.empty((N, C, Dout, H, W), dtype=np.float32)
    for o in range(Dout):
        first = max(o * S - P, 0)
        last = min(o * S - P + K, D)
        rd[:, :, o, :, :] = np.sum(x[:, :, first:last, :, :], axis=2)
    rh = np.empty((N, C, Dout, Hout, W), dtype=np.float32)
    for r in range(Hout):
        first = max(r * S - P, 0)
        last = min(r * S - P + K, H)
        rh[:, :, :, r, :] = np.sum(rd[:, :, :, first:last, :], axis=3)
    for q in range(Wout):
        first = max(q * S - P, 0)
        last = min(q * S - P + K, W)
        y[:, :, :, :, q] = np.sum(rh[:, :, :, :, first:last], axis=4) / (K * K * K)

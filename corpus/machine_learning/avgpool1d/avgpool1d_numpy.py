"""avgpool1d: 1-D average pooling of N x C x L float32 sequences, a window of K moved by stride S,
P zeros of padding at both ends that count in the divisor (PyTorch's default
count_include_pad=True: every window divides by K) (torch.nn.AvgPool1d(K, stride=S, padding=P))."""

import numpy as np


def initialize(rng, N, C, L, K, S, P):
    # Samples with a per-channel offset and spread: window means vary across windows and
    # channels instead of all sitting near zero.
    x = rng.uniform(0.5, 2.0, (1, C, 1)) * rng.standard_normal((N, C, L)) + rng.uniform(-1.0, 1.0, (1, C, 1))
    return {"x": x.astype(np.float32)}


def avgpool1d(x, y, N, C, L, K, S, P):
    Lout = (L + 2 * P - K) // S + 1
    # y[n, c, j] = (sum over 0 <= d < K of x[n, c, j * S - P + d], zero outside 0 .. L - 1) / K:
    # the window is clipped to the input, the divisor stays K. The stride S is a size, so the
    # output positions are walked one at a time, each vectorised over sequences and channels.
    for j in range(Lout):
        first = max(j * S - P, 0)
        last = min(j * S - P + K, L)
        y[:, :, j] = np.sum(x[:, :, first:last], axis=2) / K

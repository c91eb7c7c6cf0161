"""maxpool1d: 1-D max pooling of N x C x L float32 sequences, a window of K moved by stride S,
no padding, no dilation (torch.nn.MaxPool1d(K, stride=S))."""

import numpy as np


def initialize(rng, N, C, L, K, S):
    # Standard normal samples: every window's maximum is a different input, and which
    # position wins varies from window to window.
    return {"x": rng.standard_normal((N, C, L)).astype(np.float32)}


def maxpool1d(x, y, N, C, L, K, S):
    Lo = (L - K) // S + 1
    # y[n, c, j] = max over 0 <= d < K of x[n, c, j * S + d]; the stride S is a size, so the
    # output positions are walked one at a time, each vectorised over sequences and channels.
    for j in range(Lo):
        y[:, :, j] = np.max(x[:, :, j * S:j * S + K], axis=2)

"""maxpool2d: 2-D max pooling of NCHW float32 images, a K x K window moved by stride S,
no padding, no dilation (torch.nn.MaxPool2d(K, stride=S))."""

import numpy as np


def initialize(rng, N, C, H, W, K, S):
    # Standard normal pixels: every window's maximum is a different input, and which
    # position wins varies from window to window.
    return {"x": rng.standard_normal((N, C, H, W)).astype(np.float32)}


def maxpool2d(x, y, N, C, H, W, K, S):
    Ho = (H - K) // S + 1
    Wo = (W - K) // S + 1
    # y[n, c, i, j] = max over 0 <= di, dj < K of x[n, c, i * S + di, j * S + dj], taken for
    # each output row i over the window's K input rows (whole rows at a time), then over the
    # K columns of each output column's window: the stride S is a size, so the columns are
    # walked one output column at a time.
    rowmax = np.empty((N, C, W), dtype=np.float32)
    for i in range(Ho):
        rowmax[:, :, :] = x[:, :, i * S, :]
        for di in range(1, K):
            rowmax[:, :, :] = np.maximum(rowmax, x[:, :, i * S + di, :])
        for j in range(Wo):
            y[:, :, i, j] = np.max(rowmax[:, :, j * S:j * S + K], axis=2)

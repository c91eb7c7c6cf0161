"""avgpool2d: 2-D average pooling of NCHW float32 images, a K x K window moved by stride S,
no padding (torch.nn.AvgPool2d(K, stride=S))."""

import numpy as np


def initialize(rng, N, C, H, W, K, S):
    # Pixels with a per-channel offset and spread: window means vary across windows and
    # channels instead of all sitting near zero.
    x = rng.uniform(0.5, 2.0, (1, C, 1, 1)) * rng.standard_normal((N, C, H, W)) + rng.uniform(-1.0, 1.0, (1, C, 1, 1))
    return {"x": x.astype(np.float32)}


def avgpool2d(x, y, N, C, H, W, K, S):
    Ho = (H - K) // S + 1
    Wo = (W - K) // S + 1
    # y[n, c, i, j] = (sum over 0 <= di, dj < K of x[n, c, i * S + di, j * S + dj]) / (K * K),
    # summed for each output row i over the window's K input rows (whole rows at a time),
    # then over the K columns of each output column's window: the stride S is a size, so the
    # columns are walked one output column at a time.
    rowsum = np.empty((N, C, W), dtype=np.float32)
    for i in range(Ho):
        rowsum[:, :, :] = x[:, :, i * S, :]
        for di in range(1, K):
            rowsum[:, :, :] = rowsum + x[:, :, i * S + di, :]
        for j in range(Wo):
            y[:, :, i, j] = np.sum(rowsum[:, :, j * S:j * S + K], axis=2) / (K * K)

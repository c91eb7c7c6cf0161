"""mse_loss: mean squared error between B x N float32 predictions and targets
(torch.nn.MSELoss())."""

import numpy as np


def initialize(rng, B, N):
    # Regression targets around a per-row level in [-100, 100], and predictions off by a
    # residual whose scale is drawn once per case (so the loss differs from case to case).
    # Same-level values subtract exactly in float32; rounded to float16 (a spacing of up to
    # 0.06 there) they bias the mean square far outside the float32 band.
    sigma = rng.uniform(0.3, 1.0)
    targets = rng.uniform(-100.0, 100.0, (B, 1)) + rng.standard_normal((B, N))
    predictions = targets + sigma * rng.standard_normal((B, N))
    return {"predictions": predictions.astype(np.float32), "targets": targets.astype(np.float32)}


def mse_loss(predictions, targets, B, N):
    # loss = (1 / (B N)) sum_{b, n} (predictions[b, n] - targets[b, n])^2, summed row by row
    # and then over the rows.
    rowsum = np.empty(B, dtype=np.float32)
    rowsum[:] = np.sum((predictions - targets) * (predictions - targets), axis=1)
    return np.sum(rowsum) / (B * N)

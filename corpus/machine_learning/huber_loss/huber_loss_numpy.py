"""huber_loss: mean Huber loss between B x N float32 predictions and targets with threshold
delta (torch.nn.HuberLoss(delta=delta))."""

import numpy as np


def initialize(rng, B, N):
    # Regression targets around a per-row level in [-500, 1000], and predictions off by a
    # residual on the scale of delta (drawn once per case, like delta itself), so that
    # both branches take a large share of the elements. Same-level values subtract exactly
    # in float32; rounded to float16 (a spacing of up to 0.5 there) they move the loss far
    # outside the float32 band.
    delta = rng.uniform(0.5, 1.5)
    sigma = delta * rng.uniform(0.8, 2.0)
    targets = rng.uniform(-500.0, 1000.0, (B, 1)) + rng.standard_normal((B, N))
    predictions = targets + sigma * rng.standard_normal((B, N))
    return {"predictions": predictions.astype(np.float32), "targets": targets.astype(np.float32),
            "delta": delta}


def huber_loss(predictions, targets, delta, B, N):
    # loss = (1 / (B N)) sum of h(|predictions - targets|), h(a) = a^2 / 2 for a < delta
    # and delta (a - delta / 2) beyond (equal at a = delta: continuous, with its slope),
    # summed row by row and then over the rows.
    r = np.empty((B, N), dtype=np.float32)
    rowsum = np.empty(B, dtype=np.float32)
    r[:, :] = np.abs(predictions - targets)
    rowsum[:] = np.sum(np.where(r < delta, 0.5 * r * r, delta * (r - 0.5 * delta)), axis=1)
    return np.sum(rowsum) / (B * N)

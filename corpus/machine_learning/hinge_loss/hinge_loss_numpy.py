"""hinge_loss: mean hinge loss max(1 - predictions * targets, 0) of B float32 predictions
against labels of +-1."""

import numpy as np


def initialize(rng, B):
    # Labels of +-1 with even odds, and scores around mu * label with noise sigma (both drawn
    # once per case): most predictions are on the right side, some beyond the margin (loss 0),
    # many inside it and some on the wrong side (the loss grows linearly there).
    mu = rng.uniform(0.5, 1.5)
    sigma = rng.uniform(0.5, 1.5)
    targets = np.where(rng.random(B) < 0.5, -1.0, 1.0)
    predictions = mu * targets + sigma * rng.standard_normal(B)
    return {"predictions": predictions.astype(np.float32), "targets": targets.astype(np.float32)}


def hinge_loss(predictions, targets, B):
    # loss = (1 / B) sum_i max(1 - predictions[i] targets[i], 0), summed in blocks of 4096
    # and then over the blocks (the last one partial, possibly empty), so that the float32 sum
    # stays accurate however it is translated: one running float32 sum over B = 2e7 terms
    # is already off by 0.6%.
    nblk = B // 4096
    part = np.empty(nblk + 1, dtype=np.float32)
    for c in range(nblk):
        part[c] = np.sum(np.maximum(1.0 - predictions[c * 4096:c * 4096 + 4096] * targets[c * 4096:c * 4096 + 4096], 0.0))
    part[nblk] = np.sum(np.maximum(1.0 - predictions[nblk * 4096:B] * targets[nblk * 4096:B], 0.0))
    return np.sum(part) / B

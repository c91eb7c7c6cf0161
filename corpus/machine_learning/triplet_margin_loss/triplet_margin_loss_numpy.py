"""triplet_margin_loss: mean over B triplets of max(d(a, p) - d(a, n) + margin, 0), with
d(u, v) = ||u - v + eps||_2 and eps = 1e-6 (torch.nn.TripletMarginLoss(margin, p=2))."""

import numpy as np


def initialize(rng, B, D):
    # Anchors of normals with a spread of 4 (embedding components of order a few: rounded to
    # float16, with a spacing of up to 2^-6 there, they blur the differences below and move
    # the loss far outside the float32 band); positives and negatives the anchor plus Gaussian noise
    # scaled so that d(a, p) is about r in [0.5, 2.5] and d(a, n) about r + margin * s with
    # s in [-0.5, 1.5], both drawn per triplet, and the margin drawn per case in [0.5, 2]:
    # about a quarter of the triplets are already separated by more than the margin (no
    # loss), the others are active, some with the negative nearer than the positive.
    margin = rng.uniform(0.5, 2.0)
    r = rng.uniform(0.5, 2.5, (B, 1))
    s = rng.uniform(-0.5, 1.5, (B, 1))
    anchor = 4.0 * rng.standard_normal((B, D))
    positive = anchor + rng.standard_normal((B, D)) * (r / np.sqrt(D))
    negative = anchor + rng.standard_normal((B, D)) * ((r + margin * s) / np.sqrt(D))
    return {"anchor": anchor.astype(np.float32), "positive": positive.astype(np.float32),
            "negative": negative.astype(np.float32), "margin": margin}


def triplet_margin_loss(anchor, positive, negative, margin, B, D):
    # PyTorch's pairwise_distance adds eps = 1e-6 to every difference before the norm:
    # d(u, v) = sqrt(sum_k (u_k - v_k + eps)^2).
    diff = np.empty((B, D), dtype=np.float32)
    dap = np.empty(B, dtype=np.float32)
    dan = np.empty(B, dtype=np.float32)
    diff[:, :] = anchor - positive + 1e-6
    dap[:] = np.sqrt(np.sum(diff * diff, axis=1))
    diff[:, :] = anchor - negative + 1e-6
    dan[:] = np.sqrt(np.sum(diff * diff, axis=1))
    return np.sum(np.maximum(dap - dan + margin, 0.0)) / B

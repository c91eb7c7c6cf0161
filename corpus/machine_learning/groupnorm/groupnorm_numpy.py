"""groupnorm: group normalisation with a per-channel affine scale and shift, float32, two-pass."""

import numpy as np


def initialize(rng, N, C, G, H, W):
    # Every (sample, channel) plane has its own offset (1 to 5) and spread (1 to 3), so a
    # group's statistics mix channels of different means and the variance matters.
    shift = rng.uniform(1.0, 5.0, (N, C, 1, 1))
    spread = rng.uniform(1.0, 3.0, (N, C, 1, 1))
    x = shift + spread * rng.standard_normal((N, C, H, W))
    return {
        "x": x.astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, C).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(C)).astype(np.float32),
        "eps": 1e-5,
    }


def groupnorm(x, gamma, beta, y, eps, N, C, G, H, W):
    # The C channels of a sample split into G groups of C // G consecutive channels; each
    # (sample, group) block of (C // G) * H * W values is normalised by its own mean and
    # biased variance (plane sums first, then summed over the group's channels, and copied
    # to every channel of the group); then channel c is scaled by gamma[c], shifted by beta[c].
    cg = C // G
    plane = np.empty((N, C), dtype=np.float32)
    mean = np.empty((N, C, 1, 1), dtype=np.float32)
    scale = np.empty((N, C, 1, 1), dtype=np.float32)
    shift = np.empty((1, C, 1, 1), dtype=np.float32)
    plane[:, :] = np.sum(np.sum(x, axis=3), axis=2)
    for grp in range(G):
        mean[:, grp * cg:(grp + 1) * cg, 0, 0] = np.sum(plane[:, grp * cg:(grp + 1) * cg], axis=1, keepdims=True) / (cg * H * W)
    y[:, :, :, :] = x - mean
    plane[:, :] = np.sum(np.sum(y * y, axis=3), axis=2)
    for grp in range(G):
        scale[:, grp * cg:(grp + 1) * cg, 0, 0] = 1.0 / np.sqrt(
            np.sum(plane[:, grp * cg:(grp + 1) * cg], axis=1, keepdims=True) / (cg * H * W) + eps)
    scale[:, :, 0, 0] = scale[:, :, 0, 0] * gamma
    shift[0, :, 0, 0] = beta
    y[:, :, :, :] = y * scale + shift

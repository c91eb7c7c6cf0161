"""conv3d_groupnorm_mean: NCDHW convolution with bias (stride 1, no padding), group
normalisation with a per-channel affine scale and shift, then the mean of each sample's
normalised volume (float32)."""

import numpy as np


def initialize(rng, N, C, D, H, W, K, T, R, S, G):
    # Every (sample, input channel) volume has its own offset and spread, so the filters'
    # responses differ in mean from sample to sample and channel to channel within a group;
    # gamma varies around 1 so each channel's deviation from its group's mean weighs
    # differently. The output, mean(beta) + sum_k gamma[k] (mean_k - mean_group) / std_group / K,
    # then differs from sample to sample by more than the tolerance.
    fan_in = C * T * R * S
    shift = rng.uniform(-1.0, 1.0, (N, C, 1, 1, 1))
    spread = rng.uniform(0.5, 1.5, (N, C, 1, 1, 1))
    x = shift + spread * rng.standard_normal((N, C, D, H, W))
    return {
        "x": x.astype(np.float32),
        "weight": (rng.standard_normal((K, C, T, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "gamma": rng.uniform(0.0, 2.0, K).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "eps": 1e-5,
    }


def conv3d_groupnorm_mean(x, weight, bias, gamma, beta, out, eps, N, C, D, H, W, K, T, R, S, G):
    Dout = D - T + 1
    Hout = H - R + 1
    Wout = W - S + 1
    vol = Dout * Hout * Wout
    kg = K // G
    y = np.empty((N, K, Dout, Hout, Wout), dtype=np.float32)
    for f in range(K):
        y[:, f, :, :, :] = bias[f]
    # y[n, f, o, p, q] += weight[f, ch, dt, dr, ds] * x[n, ch, o + dt, p + dr, q + ds],
    # vectorised over n, f, o, p, q: weight[:, ch, dt:dt+1, dr:dr+1, ds:ds+1] is K x 1 x 1 x 1.
    for dt in range(T):
        for dr in range(R):
            for ds in range(S):
                for ch in range(C):
                    y[:, :, :, :, :] += (weight[:, ch, dt:dt + 1, dr:dr + 1, ds:ds + 1]
                                         * x[:, ch:ch + 1, dt:dt + Dout, dr:dr + Hout, ds:ds + Wout])
    # GroupNorm: the K channels split into G groups of K // G consecutive channels; each
    # (sample, group) block of (K // G) * vol values is normalised by its own mean and biased
    # variance (volume sums first, then summed over the group's channels and copied to each
    # of them); then channel f is scaled by gamma[f] and shifted by beta[f].
    chan = np.empty((N, K), dtype=np.float32)
    mean = np.empty((N, K, 1, 1, 1), dtype=np.float32)
    scale = np.empty((N, K, 1, 1, 1), dtype=np.float32)
    shift = np.empty((1, K, 1, 1, 1), dtype=np.float32)
    chan[:, :] = np.sum(np.sum(np.sum(y, axis=4), axis=3), axis=2)
    for grp in range(G):
        mean[:, grp * kg:(grp + 1) * kg, 0, 0, 0] = np.sum(chan[:, grp * kg:(grp + 1) * kg], axis=1, keepdims=True) / (kg * vol)
    y[:, :, :, :, :] = y - mean
    chan[:, :] = np.sum(np.sum(np.sum(y * y, axis=4), axis=3), axis=2)
    for grp in range(G):
        scale[:, grp * kg:(grp + 1) * kg, 0, 0, 0] = 1.0 / np.sqrt(
            np.sum(chan[:, grp * kg:(grp + 1) * kg], axis=1, keepdims=True) / (kg * vol) + eps)
    scale[:, :, 0, 0, 0] = scale[:, :, 0, 0, 0] * gamma
    shift[0, :, 0, 0, 0] = beta
    y[:, :, :, :, :] = y * scale + shift
    # The mean over everything but the batch: channel, depth, height, width.
    out[:] = np.sum(np.sum(np.sum(np.sum(y, axis=4), axis=3), axis=2), axis=1) / (K * vol)

"""conv2d_groupnorm_tanh_hardswish_residual_logsumexp: NCHW convolution with bias (stride 1, no
padding) giving c; GroupNorm (affine) of c, tanh, HardSwish, added back to c, then the
log-sum-exp over the channels, kept as a dimension of one (KernelBench level 2
"92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp"), float32, out N x 1 x P x Q."""

import numpy as np


def initialize(rng, N, C, H, W, K, R, S, G):
    # Filters scaled by 1 / sqrt(fan_in) and biases of spread 1: no channel dominates the
    # log-sum-exp everywhere, and the group statistics mix channels of different levels.
    fan_in = C * R * S
    return {
        "x": rng.standard_normal((N, C, H, W)).astype(np.float32),
        "weight": (rng.standard_normal((K, C, R, S)) / np.sqrt(fan_in)).astype(np.float32),
        "bias": rng.standard_normal(K).astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, K).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(K)).astype(np.float32),
        "eps": 1e-5,
    }


def conv2d_groupnorm_tanh_hardswish_residual_logsumexp(x, weight, bias, gamma, beta, out, eps, N, C, H, W, K, R, S, G):
    P = H - R + 1
    Q = W - S + 1
    kg = K // G
    conv = np.empty((N, K, P, Q), dtype=np.float32)
    z = np.empty((N, K, P, Q), dtype=np.float32)
    plane = np.empty((N, K), dtype=np.float32)
    mean = np.empty((N, K, 1, 1), dtype=np.float32)
    scale = np.empty((N, K, 1, 1), dtype=np.float32)
    shift = np.empty((1, K, 1, 1), dtype=np.float32)
    # The convolution: conv[n, f, p, q] = bias[f] + the sum over (ch, dr, ds) of
    # weight[f, ch, dr, ds] * x[n, ch, p + dr, q + ds], vectorised over n, f, p, q.
    for f in range(K):
        conv[:, f, :, :] = bias[f]
    for dr in range(R):
        for ds in range(S):
            for ch in range(C):
                conv[:, :, :, :] += weight[:, ch, dr:dr + 1, ds:ds + 1] * x[:, ch:ch + 1, dr:dr + P, ds:ds + Q]
    # GroupNorm: the K channels split into G groups of K // G consecutive channels; each
    # (sample, group) block is normalised by its own mean and biased variance (plane sums,
    # then summed over the group's channels and copied to each of them), then channel f is
    # scaled by gamma[f] and shifted by beta[f].
    plane[:, :] = np.sum(np.sum(conv, axis=3), axis=2)
    for grp in range(G):
        mean[:, grp * kg:(grp + 1) * kg, 0, 0] = np.sum(plane[:, grp * kg:(grp + 1) * kg], axis=1, keepdims=True) / (kg * P * Q)
    z[:, :, :, :] = conv - mean
    plane[:, :] = np.sum(np.sum(z * z, axis=3), axis=2)
    for grp in range(G):
        scale[:, grp * kg:(grp + 1) * kg, 0, 0] = 1.0 / np.sqrt(
            np.sum(plane[:, grp * kg:(grp + 1) * kg], axis=1, keepdims=True) / (kg * P * Q) + eps)
    scale[:, :, 0, 0] = scale[:, :, 0, 0] * gamma
    shift[0, :, 0, 0] = beta
    z[:, :, :, :] = z * scale + shift
    # tanh, HardSwish (t * min(max(t + 3, 0), 6) / 6), and the residual: conv + that.
    z[:, :, :, :] = np.tanh(z)
    z[:, :, :, :] = conv + z * np.minimum(np.maximum(z + 3.0, 0.0), 6.0) / 6.0
    # Log-sum-exp over the channels, stably: the channel maximum plus the log of the sum of
    # the exponentials of the differences from it.
    out[:, :, :, :] = np.max(z, axis=1, keepdims=True)
    out[:, :, :, :] = out + np.log(np.sum(np.exp(z - out), axis=1, keepdims=True))

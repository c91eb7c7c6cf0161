"""gemm_groupnorm_swish_multiply_swish: a torch.nn.Linear (W stored F x IN, output-major),
GroupNorm(G, F) over each row's F features, swish, a per-feature multiply, swish (float32)."""

import numpy as np


def initialize(rng, B, IN, F, G):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on standard-normal inputs;
    # GroupNorm's gamma and beta away from 1 and 0; the multiply weight standard normal, so
    # the second swish sees both signs and magnitudes up to ~4.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": rng.standard_normal((B, IN)).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, F).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(F)).astype(np.float32),
        "multiply_weight": rng.standard_normal(F).astype(np.float32),
        "eps": 1e-5,
    }


def gemm_groupnorm_swish_multiply_swish(x, W, bias, gamma, beta, multiply_weight, out, eps, B, IN, F, G):
    # GroupNorm: each row's F features split into G groups of F // G consecutive ones, each
    # (row, group) normalised by its own mean and biased variance, then feature f scaled by
    # gamma[f] and shifted by beta[f]. Swish as h / (1 + exp(-h)), which is -0 when exp overflows.
    cg = F // G
    mean = np.empty((B, 1), dtype=np.float32)
    rstd = np.empty((B, 1), dtype=np.float32)
    out[:, :] = x @ W.T + bias
    for grp in range(G):
        lo = grp * cg
        hi = lo + cg
        mean[:, :] = np.sum(out[:, lo:hi], axis=1, keepdims=True) / cg
        out[:, lo:hi] = out[:, lo:hi] - mean
        rstd[:, :] = 1.0 / np.sqrt(np.sum(out[:, lo:hi] * out[:, lo:hi], axis=1, keepdims=True) / cg + eps)
        out[:, lo:hi] = out[:, lo:hi] * rstd * gamma[lo:hi] + beta[lo:hi]
    out[:, :] = out / (1.0 + np.exp(-out))
    out[:, :] = out * multiply_weight
    out[:, :] = out / (1.0 + np.exp(-out))

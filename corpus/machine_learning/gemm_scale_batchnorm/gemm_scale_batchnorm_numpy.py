"""gemm_scale_batchnorm: a torch.nn.Linear (W stored F x IN, output-major), a per-feature scale,
then BatchNorm1d(F) in training mode: each feature normalised by its batch mean and biased
batch variance over the B rows, then scaled by gamma and shifted by beta (float32, two-pass)."""

import numpy as np


def initialize(rng, B, IN, F):
    # PyTorch's default Linear init (uniform in +-1/sqrt(IN)) on standard-normal inputs; the
    # scale standard normal (so of both signs), gamma and beta away from BatchNorm's 1 and 0.
    bound = 1.0 / np.sqrt(IN)
    return {
        "x": rng.standard_normal((B, IN)).astype(np.float32),
        "W": rng.uniform(-bound, bound, (F, IN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, F).astype(np.float32),
        "scale": rng.standard_normal(F).astype(np.float32),
        "gamma": rng.uniform(0.5, 1.5, F).astype(np.float32),
        "beta": (0.5 * rng.standard_normal(F)).astype(np.float32),
        "eps": 1e-5,
    }


def gemm_scale_batchnorm(x, W, bias, scale, gamma, beta, out, eps, B, IN, F):
    mean = np.empty(F, dtype=np.float32)
    factor = np.empty(F, dtype=np.float32)
    out[:, :] = (x @ W.T + bias) * scale
    mean[:] = np.sum(out, axis=0) / B
    out[:, :] = out - mean
    factor[:] = gamma / np.sqrt(np.sum(out * out, axis=0) / B + eps)
    out[:, :] = out * factor + beta

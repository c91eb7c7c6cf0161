"""gemm_batchnorm_gelu_groupnorm_mean_relu: a linear layer (x W^T + b), batch normalisation in
training mode, GELU (tanh form), group normalisation with a per-feature affine scale and
shift, each row's mean, then ReLU (float32)."""

import numpy as np


def initialize(rng, B, DIN, DOUT, G):
    # PyTorch's default Linear initialisation (uniform in +-1/sqrt(DIN)). The row means that
    # the final ReLU sees are mean(gn_beta) plus a row-dependent sum of gn_gamma times the
    # normalised features: gn_beta is centred (mean 0 up to rounding) and gn_gamma spread
    # over [0, 2], so that sum decides the sign and the ReLU keeps about half of the rows.
    bound = 1.0 / np.sqrt(DIN)
    gn_beta = 0.5 * rng.standard_normal(DOUT)
    return {
        "x": rng.standard_normal((B, DIN)).astype(np.float32),
        "weight": rng.uniform(-bound, bound, (DOUT, DIN)).astype(np.float32),
        "bias": rng.uniform(-bound, bound, DOUT).astype(np.float32),
        "bn_gamma": rng.uniform(0.8, 1.2, DOUT).astype(np.float32),
        "bn_beta": (0.1 * rng.standard_normal(DOUT)).astype(np.float32),
        "gn_gamma": rng.uniform(0.0, 2.0, DOUT).astype(np.float32),
        "gn_beta": (gn_beta - np.mean(gn_beta)).astype(np.float32),
        "bn_eps": 1e-5,
        "gn_eps": 1e-5,
    }


def gemm_batchnorm_gelu_groupnorm_mean_relu(x, weight, bias, bn_gamma, bn_beta, gn_gamma, gn_beta, out,
                                            bn_eps, gn_eps, B, DIN, DOUT, G):
    a = np.empty((B, DOUT), dtype=np.float32)
    colmean = np.empty((1, DOUT), dtype=np.float32)
    colscale = np.empty((1, DOUT), dtype=np.float32)
    rowmean = np.empty((B, 1), dtype=np.float32)
    rowscale = np.empty((B, 1), dtype=np.float32)
    a[:, :] = x @ weight.T + bias
    # BatchNorm1d in training mode: each feature's mean and biased variance over the batch.
    colmean[:, :] = np.sum(a, axis=0, keepdims=True) / B
    a[:, :] = a - colmean
    colscale[0, :] = bn_gamma / np.sqrt(np.sum(a * a, axis=0) / B + bn_eps)
    a[:, :] = a * colscale + bn_beta
    # GELU, tanh form.
    a[:, :] = 0.5 * a * (1.0 + np.tanh(0.7978845608028654 * (a + 0.044715 * a * a * a)))
    # GroupNorm(G, DOUT): each row's DOUT // G consecutive features of a group normalised by
    # their own mean and biased variance, then feature f scaled by gn_gamma[f], shifted by gn_beta[f].
    cg = DOUT // G
    for grp in range(G):
        lo = grp * cg
        hi = lo + cg
        rowmean[:, :] = np.sum(a[:, lo:hi], axis=1, keepdims=True) / cg
        a[:, lo:hi] = a[:, lo:hi] - rowmean
        rowscale[:, :] = 1.0 / np.sqrt(np.sum(a[:, lo:hi] * a[:, lo:hi], axis=1, keepdims=True) / cg + gn_eps)
        a[:, lo:hi] = a[:, lo:hi] * rowscale * gn_gamma[lo:hi] + gn_beta[lo:hi]
    # Each row's mean over its features (keepdim), then ReLU.
    out[:, :] = np.maximum(np.sum(a, axis=1, keepdims=True) / DOUT, 0.0)

"""correlation: Pearson correlation matrix of the M columns of an N x M data matrix, the data
centred and reduced in place (PolyBench/C correlation)."""

import numpy as np


def initialize(rng, M, N):
    # Columns driven by three common factors plus their own noise, so that correlations are
    # of order one; each column gets an offset (means of order one) and a spread. Every
    # eighth column has a spread of 0.03, below PolyBench's eps = 0.1, so that the
    # near-zero-deviation rule (the deviation replaced by 1.0) changes the answer.
    K = 3
    loads = rng.standard_normal((K, M))
    X = rng.standard_normal((N, K)) @ loads + rng.standard_normal((N, M))
    X /= np.sqrt(np.sum(loads * loads, axis=0) + 1.0)
    spread = rng.uniform(0.5, 2.0, M)
    spread[7::8] = 0.03
    offset = rng.uniform(1.0, 3.0, M) * rng.choice([-1.0, 1.0], M)
    return {"data": offset + spread * X}


def correlation(data, mean, stddev, corr, M, N):
    float_n = np.float64(N)
    eps = 0.1
    mean[:] = np.sum(data, axis=0) / float_n
    stddev[:] = np.sqrt(np.sum((data - mean) * (data - mean), axis=0) / float_n)
    stddev[:] = np.where(stddev <= eps, 1.0, stddev)
    data[:, :] = (data - mean) / (np.sqrt(float_n) * stddev)
    for i in range(M - 1):
        corr[i, i] = 1.0
        corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
        corr[i + 1:M, i] = corr[i, i + 1:M]
    corr[M - 1, M - 1] = 1.0

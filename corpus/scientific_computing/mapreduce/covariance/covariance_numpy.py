"""covariance: sample covariance matrix of the M columns of an N x M data matrix, the data
centred in place (PolyBench/C covariance)."""

import numpy as np


def initialize(rng, M, N):
    # Columns driven by three common factors plus their own noise, so that covariances are
    # of order one; each column gets an offset (means of order one) and a spread.
    K = 3
    loads = rng.standard_normal((K, M))
    X = rng.standard_normal((N, K)) @ loads + rng.standard_normal((N, M))
    X /= np.sqrt(np.sum(loads * loads, axis=0) + 1.0)
    spread = rng.uniform(0.5, 2.0, M)
    offset = rng.uniform(1.0, 3.0, M) * rng.choice([-1.0, 1.0], M)
    return {"data": offset + spread * X}


def covariance(data, mean, cov, M, N):
    float_n = np.float64(N)
    mean[:] = np.sum(data, axis=0) / float_n
    data[:, :] = data - mean
    for i in range(M):
        cov[i, i:M] = (data[:, i] @ data[:, i:M]) / (float_n - 1.0)
        cov[i:M, i] = cov[i, i:M]

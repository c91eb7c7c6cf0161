"""durbin: Durbin's algorithm for the Yule-Walker system T y = -r (PolyBench/C durbin)."""

import numpy as np


def initialize(rng, N):
    # r is built from reflection coefficients drawn uniformly with sum of squares about
    # 1/4 (the inverse of Durbin's recursion: each step picks alpha and solves for r[k]).
    # Then T (symmetric Toeplitz, first column 1, r[0], ..., r[N-2]) is positive definite and
    # well conditioned (condition number about 20 at N = 2000), every alpha stays inside
    # (-1, 1), and the solution's entries are all of one size, about 1 / sqrt(N).
    target = rng.uniform(-1.0, 1.0, N) * 0.5 * np.sqrt(3.0 / max(N, 1))
    r = np.empty(N)
    y = np.empty(N)
    back = np.empty(N)              # back[N - 1 - i] = y[i]
    r[0] = -target[0]
    y[0] = back[N - 1] = target[0]
    beta = 1.0
    for k in range(1, N):
        beta = (1.0 - target[k - 1] ** 2) * beta
        r[k] = -target[k] * beta - r[0:k] @ back[N - k:N]
        z = y[0:k] + target[k] * back[N - k:N]
        back[N - k:N] += target[k] * y[0:k]
        y[0:k] = z
        y[k] = back[N - 1 - k] = target[k]
    return {"r": r}


def durbin(r, y, N):
    # PolyBench's recursion: step k updates beta, finds alpha from the dot product of
    # r[0:k] reversed with y[0:k], then y[i] += alpha * y[k-1-i] through z. Each step needs
    # the whole previous y (a true recurrence); within a step both loops are independent.
    # yr mirrors y (yr[N-1-i] = y[i]) so that the reversed reads are forward slices.
    z = np.empty(N, dtype=np.float64)
    yr = np.empty(N, dtype=np.float64)
    y[0] = -r[0]
    yr[N - 1] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, N):
        beta = (1.0 - alpha * alpha) * beta
        total = r[0:k] @ yr[N - k:N]               # sum_i r[k-1-i] y[i]
        alpha = -(r[k] + total) / beta
        z[0:k] = y[0:k] + alpha * yr[N - k:N]      # y[i] + alpha y[k-1-i]
        yr[N - k:N] = yr[N - k:N] + alpha * y[0:k]
        y[0:k] = z[0:k]
        y[k] = alpha
        yr[N - 1 - k] = alpha

"""hmm_backward: the scaled backward pass of a discrete hidden Markov model and the posterior
state probabilities gamma (Rabiner 1989, sec. III.A, III.C and V.A), given the scaled
forward variables and the forward pass's scale factors."""

import numpy as np


def _stochastic_rows(rng, rows, cols, shape):
    # Peaked random distributions (gamma variates, normalised), bounded away from zero.
    w = rng.gamma(shape, 1.0, (rows, cols)) + 1e-6
    return w / np.sum(w, axis=1, keepdims=True)


def initialize(rng, T, N, K):
    A = _stochastic_rows(rng, N, N, 0.3)       # A[i, j] = P(state j at t+1 | state i at t)
    B = _stochastic_rows(rng, N, K, 0.5)       # B[i, k] = P(symbol k | state i)
    pi = _stochastic_rows(rng, 1, N, 1.0)[0]
    obs = rng.integers(0, K, size=T, dtype=np.int64)
    # The forward pass that precedes this one: rows of alpha normalised to sum to one, each
    # row's sum before normalisation in scale.
    alpha = np.empty((T, N))
    scale = np.empty(T)
    a = pi * B[:, obs[0]]
    for t in range(T):
        if t > 0:
            a = (a @ A) * B[:, obs[t]]
        scale[t] = a.sum()
        a = a / scale[t]
        alpha[t] = a
    return {"A": A, "B": B, "obs": obs, "alpha": alpha, "scale": scale}


def hmm_backward(A, B, obs, alpha, scale, beta, gamma, T, N, K):
    # Rabiner's scaled backward variables, with c_t = 1 / scale[t]:
    # beta[T-1, i] = c_{T-1}, beta[t, i] = c_t * sum_j A[i, j] B[j, o_{t+1}] beta[t+1, j];
    # then gamma[t, i] = P(state i at t | all observations) = alpha[t, i] beta[t, i] / c_t.
    wb = np.empty(N, dtype=np.float64)     # B[j, o_{t+1}] beta[t+1, j], once per j
    beta[T - 1, :] = 1.0 / scale[T - 1]
    gamma[T - 1, :] = alpha[T - 1, :] * beta[T - 1, :] * scale[T - 1]
    for r in range(2, T + 1):
        step = T - r
        wb[:] = B[:, obs[step + 1]] * beta[step + 1, :]
        beta[step, :] = (A @ wb) / scale[step]
        gamma[step, :] = alpha[step, :] * beta[step, :] * scale[step]

"""viterbi: the most likely state path of a discrete hidden Markov model given its
observations (Viterbi 1967; Rabiner 1989, sec. III.B), by max-product in log space."""

import numpy as np


def _stochastic_rows(rng, rows, cols, shape):
    # Peaked random distributions (gamma variates, normalised), bounded away from zero.
    w = rng.gamma(shape, 1.0, (rows, cols)) + 1e-6
    return w / np.sum(w, axis=1, keepdims=True)


def _dyadic_log(p):
    # Log-probabilities rounded to multiples of 2**-24: every sum of them below (at most
    # a few 1e7 in magnitude) is exact in float64, so the scores do not depend on the order
    # of evaluation and ties between predecessors are exact ties.
    return np.round(np.log(p) * 2.0 ** 24) / 2.0 ** 24


def initialize(rng, T, N, K):
    A = _stochastic_rows(rng, N, N, 0.3)      # P(state j at t+1 | state i at t)
    B = _stochastic_rows(rng, N, K, 0.5)      # P(symbol k | state i)
    pi = _stochastic_rows(rng, 1, N, 1.0)[0]
    if N >= 3:
        # State N - 1 is an indistinguishable twin of state 0 (the same transitions out, the
        # mass into them split equally, the same emissions): their scores are always equal,
        # so ties occur and the lowest-index rule decides them.
        A[:, 0] = 0.5 * (A[:, 0] + A[:, N - 1])
        A[:, N - 1] = A[:, 0]
        A[N - 1, :] = A[0, :]
        B[N - 1, :] = B[0, :]
        pi[0] = 0.5 * (pi[0] + pi[N - 1])
        pi[N - 1] = pi[0]
    return {
        "logA": _dyadic_log(A),
        "logB": _dyadic_log(B),
        "logpi": _dyadic_log(pi),
        "obs": rng.integers(0, K, size=T, dtype=np.int64),
    }


def viterbi(logA, logB, logpi, obs, psi, path, T, N, K):
    # delta[i] = the best score of a path ending in state i at the current step;
    # psi[t, j] = the best predecessor of state j at step t (the lowest i on a tie).
    delta = np.empty((N, 1), dtype=np.float64)
    cand = np.empty((N, N), dtype=np.float64)
    delta[:, 0] = logpi + logB[:, obs[0]]
    psi[0, :] = 0
    for step in range(1, T):
        cand[:, :] = delta + logA                   # cand[i, j] = delta[i] + logA[i, j]
        psi[step, :] = np.argmax(cand, axis=0)
        delta[:, 0] = np.max(cand, axis=0) + logB[:, obs[step]]
    # Termination (the lowest state on a tie), then the backtrace, a sequential loop.
    path[T - 1] = np.argmax(delta[:, 0])
    for r in range(1, T):
        path[T - 1 - r] = psi[T - r, path[T - r]]
    return np.max(delta[:, 0])

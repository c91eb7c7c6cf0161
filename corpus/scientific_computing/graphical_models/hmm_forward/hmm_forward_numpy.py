"""hmm_forward: the scaled forward algorithm of a discrete hidden Markov model (Rabiner 1989,
sec. III.A and V.A): the normalised forward variables alpha, the per-step scale factors and
the log-likelihood of the observation sequence."""

import numpy as np


def _stochastic_rows(rng, rows, cols, shape):
    # Rows drawn from a sparse-ish Dirichlet (gamma variates, normalised): peaked, so that
    # the state matters, and bounded away from zero.
    w = rng.gamma(shape, 1.0, (rows, cols)) + 1e-6
    return w / np.sum(w, axis=1, keepdims=True)


def initialize(rng, T, N, K):
    A = _stochastic_rows(rng, N, N, 0.3)       # A[i, j] = P(state j at t+1 | state i at t)
    B = _stochastic_rows(rng, N, K, 0.5)       # B[i, k] = P(symbol k | state i)
    pi = _stochastic_rows(rng, 1, N, 1.0)[0]   # initial state distribution
    obs = rng.integers(0, K, size=T, dtype=np.int64)
    return {"A": A, "B": B, "pi": pi, "obs": obs}


def hmm_forward(A, B, pi, obs, alpha, scale, T, N, K):
    # alpha[t, j] = P(o_0 .. o_t, state j at t) / (scale[0] * .. * scale[t]): each row is
    # normalised to sum to one, scale[t] being its sum before normalisation, so that
    # log P(o_0 .. o_{T-1}) = sum_t log scale[t].
    alpha[0, :] = pi * B[:, obs[0]]
    s0 = np.sum(alpha[0, :])
    scale[0] = s0
    alpha[0, :] = alpha[0, :] / s0
    for step in range(1, T):
        # Induction: alpha_t(j) = [sum_i alpha_{t-1}(i) A[i, j]] * B[j, o_t].
        alpha[step, :] = (alpha[step - 1, :] @ A) * B[:, obs[step]]
        st = np.sum(alpha[step, :])
        scale[step] = st
        alpha[step, :] = alpha[step, :] / st
    return np.sum(np.log(scale))

"""hmm_backward's independent check: the backward variables and the posteriors by summing over
every state path (tiny sizes), and Rabiner's scaled backward recursion as explicit loops over
Python floats; gamma's rows sum to one."""

import itertools
import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _weight(v, path, start):
    # prod over the path's steps after `start` of A[q_{t-1}, q_t] B[q_t, o_t].
    w = 1.0
    for t in range(start + 1, start + len(path)):
        i = t - start
        w *= float(v["A"][path[i - 1], path[i]] * v["B"][path[i], v["obs"][t]])
    return w


@each(shape=[(1, 1, 1), (1, 3, 2), (5, 3, 4), (6, 2, 3), (4, 4, 2)], seed=SEEDS)
def check_against_path_enumeration(kernel, shape, seed):
    T, N, K = shape
    v, out = run(kernel, {"T": T, "N": N, "K": K}, seed)
    scale = v["scale"].tolist()
    for t in range(T):
        # beta_t(i) = P(o_{t+1} .. o_{T-1} | q_t = i), scaled by prod_{s >= t} 1 / scale[s].
        norm = math.prod(scale[t:])
        for i in range(N):
            suffixes = itertools.product(range(N), repeat=T - 1 - t)
            b = math.fsum(_weight(v, (i,) + s, t) for s in suffixes)
            np.testing.assert_allclose(out["beta"][t, i], b / norm, rtol=1e-12)
    # gamma_t(i) = P(q_t = i | O): P(path, O) summed over the whole paths through (t, i).
    # pi is not an input; alpha[0] is proportional to pi * B[:, o_0], which is enough here.
    pi = v["alpha"][0] / v["B"][:, v["obs"][0]]
    joint = np.zeros((T, N))
    for path in itertools.product(range(N), repeat=T):
        p = float(pi[path[0]] * v["B"][path[0], v["obs"][0]]) * _weight(v, path, 0)
        for t in range(T):
            joint[t, path[t]] += p
    np.testing.assert_allclose(out["gamma"], joint / joint.sum(axis=1, keepdims=True), rtol=1e-12, atol=1e-15)


@each(shape=[(40, 7, 5), (200, 16, 3), (2, 9, 9)], seed=SEEDS)
def check_against_rabiner_loops(kernel, shape, seed):
    T, N, K = shape
    v, out = run(kernel, {"T": T, "N": N, "K": K}, seed)
    A, B, obs = v["A"].tolist(), v["B"].tolist(), v["obs"].tolist()
    alpha, c = v["alpha"].tolist(), [1.0 / s for s in v["scale"].tolist()]
    np.testing.assert_allclose(v["alpha"].sum(axis=1), 1.0, rtol=1e-13)
    beta = [[0.0] * N for _ in range(T)]
    for i in range(N):
        beta[T - 1][i] = c[T - 1]
    for t in range(T - 2, -1, -1):
        for i in range(N):
            beta[t][i] = c[t] * math.fsum(A[i][j] * B[j][obs[t + 1]] * beta[t + 1][j] for j in range(N))
    gamma = [[alpha[t][i] * beta[t][i] / c[t] for i in range(N)] for t in range(T)]
    np.testing.assert_allclose(out["beta"], beta, rtol=1e-12)
    np.testing.assert_allclose(out["gamma"], gamma, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out["gamma"].sum(axis=1), 1.0, rtol=1e-12)
    assert_judged_like_an_oracle(kernel, out, {"beta": np.array(beta), "gamma": np.array(gamma)})

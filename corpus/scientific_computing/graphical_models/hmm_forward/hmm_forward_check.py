"""hmm_forward's independent check: P(O) and the filtered state probabilities by summing over
every state path (tiny sizes), and Rabiner's scaled recursion with reciprocal scale factors
c_t = 1 / sum_i alpha_t(i), written as explicit loops over Python floats."""

import itertools
import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _path_probability(v, path):
    p = v["pi"][path[0]] * v["B"][path[0], v["obs"][0]]
    for t in range(1, len(path)):
        p *= v["A"][path[t - 1], path[t]] * v["B"][path[t], v["obs"][t]]
    return float(p)


@each(shape=[(1, 1, 1), (1, 3, 2), (5, 3, 4), (6, 2, 3), (4, 4, 2)], seed=SEEDS)
def check_against_path_enumeration(kernel, shape, seed):
    T, N, K = shape
    v, out = run(kernel, {"T": T, "N": N, "K": K}, seed)
    # alpha_t(j) = P(o_0 .. o_t, q_t = j): the sum over every path of length t + 1 ending in j.
    for t in range(T):
        joint = [0.0] * N
        for prefix in itertools.product(range(N), repeat=t + 1):
            joint[prefix[-1]] += _path_probability(v, prefix)
        total = math.fsum(joint)
        np.testing.assert_allclose(out["alpha"][t], np.array(joint) / total, rtol=1e-12, atol=1e-14)
    likelihood = math.fsum(_path_probability(v, path) for path in itertools.product(range(N), repeat=T))
    np.testing.assert_allclose(out["loglik"][0], math.log(likelihood), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["scale"][0], float(v["pi"] @ v["B"][:, v["obs"][0]]), rtol=1e-13)


@each(shape=[(40, 7, 5), (200, 16, 3), (2, 9, 9)], seed=SEEDS)
def check_against_rabiner_loops(kernel, shape, seed):
    T, N, K = shape
    v, out = run(kernel, {"T": T, "N": N, "K": K}, seed)
    A, B, pi, obs = v["A"].tolist(), v["B"].tolist(), v["pi"].tolist(), v["obs"].tolist()
    assert min(obs) >= 0 and max(obs) < K
    np.testing.assert_allclose(v["A"].sum(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(v["B"].sum(axis=1), 1.0, rtol=1e-14)
    alpha = [[0.0] * N for _ in range(T)]
    c = [0.0] * T
    for i in range(N):
        alpha[0][i] = pi[i] * B[i][obs[0]]
    c[0] = 1.0 / math.fsum(alpha[0])
    for i in range(N):
        alpha[0][i] *= c[0]
    for t in range(1, T):
        for j in range(N):
            alpha[t][j] = math.fsum(alpha[t - 1][i] * A[i][j] for i in range(N)) * B[j][obs[t]]
        c[t] = 1.0 / math.fsum(alpha[t])
        for j in range(N):
            alpha[t][j] *= c[t]
    loglik = -math.fsum(math.log(ct) for ct in c)
    np.testing.assert_allclose(out["alpha"], alpha, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out["scale"], [1.0 / ct for ct in c], rtol=1e-12)
    np.testing.assert_allclose(out["loglik"][0], loglik, rtol=1e-12)
    np.testing.assert_allclose(out["alpha"].sum(axis=1), 1.0, rtol=1e-13)
    assert_judged_like_an_oracle(kernel, out, {"alpha": np.array(alpha), "scale": 1.0 / np.array(c),
                                               "loglik": np.array([loglik])})

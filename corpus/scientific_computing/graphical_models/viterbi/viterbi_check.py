"""viterbi's independent check: the best score over every state path (tiny sizes), and the
recursion and backtrace as explicit loops over Python floats with a strict > (the first,
lowest-index maximum wins); the inputs' sums are exact, so the comparison is exact."""

import itertools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _path_score(v, path):
    s = v["logpi"][path[0]] + v["logB"][path[0], v["obs"][0]]
    for t in range(1, len(path)):
        s += v["logA"][path[t - 1], path[t]] + v["logB"][path[t], v["obs"][t]]
    return float(s)


def _viterbi_loops(v, T, N):
    A, B, pi, obs = v["logA"].tolist(), v["logB"].tolist(), v["logpi"].tolist(), v["obs"].tolist()
    delta = [pi[i] + B[i][obs[0]] for i in range(N)]
    psi = [[0] * N for _ in range(T)]
    for t in range(1, T):
        new = [0.0] * N
        for j in range(N):
            best, arg = delta[0] + A[0][j], 0
            for i in range(1, N):
                if delta[i] + A[i][j] > best:
                    best, arg = delta[i] + A[i][j], i
            psi[t][j] = arg
            new[j] = best + B[j][obs[t]]
        delta = new
    last = 0
    for i in range(1, N):
        if delta[i] > delta[last]:
            last = i
    path = [0] * T
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = psi[t][path[t]]
    return psi, path, delta[last]


@each(shape=[(1, 1, 1), (1, 4, 2), (5, 3, 4), (6, 2, 3), (4, 4, 2)], seed=SEEDS)
def check_against_path_enumeration(kernel, shape, seed):
    T, N, K = shape
    v, out = run(kernel, {"T": T, "N": N, "K": K}, seed)
    best = max(_path_score(v, p) for p in itertools.product(range(N), repeat=T))
    assert out["score"][0] == best
    assert _path_score(v, out["path"].tolist()) == best       # the path returned attains it
    assert np.all(out["psi"][0] == 0)


@each(shape=[(60, 9, 5), (300, 24, 7), (2, 30, 3), (40, 1, 3)], seed=SEEDS)
def check_against_loops(kernel, shape, seed):
    T, N, K = shape
    v, out = run(kernel, {"T": T, "N": N, "K": K}, seed)
    for name in ("logA", "logB", "logpi"):              # dyadic, so sums are exact
        np.testing.assert_array_equal(v[name] * 2.0 ** 24, np.round(v[name] * 2.0 ** 24))
    psi, path, score = _viterbi_loops(v, T, N)
    np.testing.assert_array_equal(out["psi"], psi)
    np.testing.assert_array_equal(out["path"], path)
    assert out["score"][0] == score
    assert out["psi"].dtype == np.int64 and out["path"].dtype == np.int64
    if N > 1 and T > 2:
        assert len(set(path)) > 1
        assert_judged_like_an_oracle(kernel, out, {"psi": np.array(psi), "path": np.array(path),
                                                   "score": np.array([score])})


def check_ties_go_to_the_lowest_state(kernel):
    # State N - 1 is a twin of state 0, so equal candidate scores occur: the reference must
    # resolve them as the strict-> loop does (checked above), and they do occur.
    T, N = 200, 48
    v, _ = run(kernel, {"T": T, "N": N, "K": 8}, 5)
    delta = v["logpi"] + v["logB"][:, v["obs"][0]]
    ties = 0
    for t in range(1, T):
        cand = delta[:, None] + v["logA"]
        top = cand.max(axis=0)
        ties += int(np.sum(np.sum(cand == top, axis=0) > 1))
        delta = top + v["logB"][:, v["obs"][t]]
    assert ties > 0

"""knapsack_bnb's independent check: every subset enumerated at tiny N (itertools.product), the
classic dynamic programme over the capacity (Bellman) at larger N, and hand-made instances."""

import itertools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _by_enumeration(w, v, c):
    return max(sum(vi for vi, t in zip(v, take) if t) for take in itertools.product((0, 1), repeat=len(w))
               if sum(wi for wi, t in zip(w, take) if t) <= c)


def _by_dp(w, v, c):
    # f[s]: the best value within capacity s using the items seen so far.
    f = [0] * (c + 1)
    for wi, vi in zip(w, v):
        for s in range(c, wi - 1, -1):
            f[s] = max(f[s], f[s - wi] + vi)
    return f[c]


@each(sizes=[(1, 1), (3, 2), (4, 3), (5, 6), (6, 10)], seed=SEEDS)
def check_against_enumeration(kernel, sizes, seed):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, seed)
    w, val, c = v["weights"].tolist(), v["values"].tolist(), v["capacity"].tolist()
    expected = [_by_enumeration(w[k], val[k], c[k]) for k in range(b)]
    np.testing.assert_array_equal(out["best"], expected)


@each(sizes=[(8, 14), (6, 20), (3, 24)], seed=SEEDS)
def check_against_dp(kernel, sizes, seed):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, seed)
    w, val, c = v["weights"].tolist(), v["values"].tolist(), v["capacity"].tolist()
    expected = np.array([_by_dp(w[k], val[k], c[k]) for k in range(b)], dtype=np.int64)
    np.testing.assert_array_equal(out["best"], expected)
    assert expected.min() > 0 and len(set(expected.tolist())) > 1
    assert_judged_like_an_oracle(kernel, out, {"best": expected})


def check_hand_made_instances(kernel):
    fn = kernel.reference().function
    # (weights, values, capacity, optimum), items already sorted by value / weight. First:
    # greedy takes the items of weight 10 and 20 (160) and the 30 no longer fits, the
    # optimum is 20 + 30 (220); second: nothing fits; third: everything fits exactly;
    # fourth: the two best-ratio items (7) beat the single one of weight 5 (6).
    cases = [([10, 20, 30, 1000], [60, 100, 120, 1], 50, 220),
             ([5, 6, 7, 8], [10, 11, 12, 13], 4, 0),
             ([1, 2, 3, 4], [4, 6, 7, 8], 10, 25),
             ([2, 3, 4, 5], [3, 4, 5, 6], 5, 7)]
    weights = np.array([c[0] for c in cases], dtype=np.int64)
    values = np.array([c[1] for c in cases], dtype=np.int64)
    capacity = np.array([c[2] for c in cases], dtype=np.int64)
    best = np.full(4, -1, dtype=np.int64)
    fn(weights, values, capacity, best, 4, 4)
    np.testing.assert_array_equal(best, [c[3] for c in cases])
    for c in cases:
        assert _by_dp(c[0], c[1], c[2]) == c[3]

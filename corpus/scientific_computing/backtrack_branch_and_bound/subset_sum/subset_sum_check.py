"""subset_sum's independent check: every subset enumerated at tiny N (itertools), a meet-in-the-
middle count (the sums of each half's subsets, one side tallied in a Counter) and the classic
counting dynamic programme over sums, at larger N; and hand-made instances."""

import collections
import itertools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _by_enumeration(w, t):
    return sum(1 for r in range(len(w) + 1) for c in itertools.combinations(w, r) if sum(c) == t)


def _meet_in_the_middle(w, t):
    half = len(w) // 2

    def sums(part):
        out = [0]
        for x in part:
            out = out + [s + x for s in out]
        return out

    right = collections.Counter(sums(w[half:]))
    return sum(right[t - s] for s in sums(w[:half]))


def _by_dp(w, t):
    ways = [1] + [0] * t
    for x in w:
        for s in range(t, x - 1, -1):
            ways[s] += ways[s - x]
    return ways[t]


@each(sizes=[(1, 1), (3, 2), (4, 3), (5, 6), (6, 10)], seed=SEEDS)
def check_against_enumeration(kernel, sizes, seed):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, seed)
    w, t = v["weights"].tolist(), v["target"].tolist()
    expected = [_by_enumeration(w[k], t[k]) for k in range(b)]
    np.testing.assert_array_equal(out["counts"], expected)
    assert min(expected) >= 1


@each(sizes=[(8, 12), (6, 15), (4, 18)], seed=SEEDS)
def check_against_meet_in_the_middle_and_dp(kernel, sizes, seed):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, seed)
    w, t = v["weights"].tolist(), v["target"].tolist()
    assert all(x > 0 for row in w for x in row) and all(x > 0 for x in t)
    expected = np.array([_meet_in_the_middle(w[k], t[k]) for k in range(b)], dtype=np.int64)
    np.testing.assert_array_equal(expected, [_by_dp(w[k], t[k]) for k in range(b)])
    np.testing.assert_array_equal(out["counts"], expected)
    assert expected.min() >= 1 and len(set(expected.tolist())) > 1      # varied and nonzero
    assert_judged_like_an_oracle(kernel, out, {"counts": expected})


def check_hand_made_instances(kernel):
    fn = kernel.reference().function
    # Ten ones make 5 in C(10, 5) = 252 ways; 9 7 5 3 1 cannot reach 30 (their sum is 25)
    # nor make 2; 12 is made from {1 .. 8} by 10 subsets; 1 2 4 8 16 makes 31 once. Rows
    # are padded to ten weights with 1000s, too large to be in any hit.
    rows = [[1] * 10, [9, 7, 5, 3, 1], [9, 7, 5, 3, 1], list(range(8, 0, -1)), [16, 8, 4, 2, 1]]
    weights = np.array([[1000] * (10 - len(r)) + r for r in rows], dtype=np.int64)
    target = np.array([5, 30, 2, 12, 31], dtype=np.int64)
    counts = np.full(5, -1, dtype=np.int64)
    fn(weights, target, counts, 5, 10)
    np.testing.assert_array_equal(counts, [252, 0, 0, 10, 1])

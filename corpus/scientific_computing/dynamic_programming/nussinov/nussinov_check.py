"""nussinov's independent check: PolyBench/C's loop nest (i from N-1 down, j up, every split
k) over Python integers, and the textbook recursion of Nussinov's algorithm with memoization,
read from the definition (the most non-crossing pairs on i..j)."""

import functools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def polybench_nussinov(seq):
    n = len(seq)
    s = [int(b) for b in seq]
    t = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if j - 1 >= 0:
                t[i][j] = max(t[i][j], t[i][j - 1])
            if i + 1 < n:
                t[i][j] = max(t[i][j], t[i + 1][j])
            if j - 1 >= 0 and i + 1 < n:
                if i < j - 1:
                    t[i][j] = max(t[i][j], t[i + 1][j - 1] + (1 if s[i] + s[j] == 3 else 0))
                else:
                    t[i][j] = max(t[i][j], t[i + 1][j - 1])
            for k in range(i + 1, j):
                t[i][j] = max(t[i][j], t[i][k] + t[k + 1][j])
    return np.array(t, dtype=np.int32).reshape(n, n)


def most_pairs(seq, i, j):
    """The most non-crossing complementary pairs among bases i..j, pairs not adjacent."""
    s = [int(b) for b in seq]

    @functools.lru_cache(maxsize=None)
    def best(a, b):
        if b - a < 2:
            return 0
        found = best(a + 1, b)                          # a unpaired
        for k in range(a + 2, b + 1):                   # a paired with k
            if s[a] + s[k] == 3:
                found = max(found, 1 + best(a + 1, k - 1) + best(k + 1, b))
        return found

    return best(i, j)


@each(n=[1, 2, 3, 10, 60], seed=SEEDS)
def check_against_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    expected = polybench_nussinov(v["seq"])
    np.testing.assert_array_equal(out["table"], expected)
    if n > 3:
        assert_judged_like_an_oracle(kernel, out, {"table": expected})


@each(seed=SEEDS)
def check_against_the_definition(kernel, seed):
    n = 40
    v, out = run(kernel, {"N": n}, seed)
    table = out["table"]
    for i in range(0, n, 3):
        for j in range(i, n, 2):
            assert table[i, j] == most_pairs(v["seq"], i, j), (i, j)
    assert table[0, n - 1] > 5

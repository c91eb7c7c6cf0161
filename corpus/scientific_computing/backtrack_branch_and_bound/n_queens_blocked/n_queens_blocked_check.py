"""n_queens_blocked's independent check: every permutation of columns tested directly at
small N (itertools.permutations), a recursive set-based search at larger N, the known
solution counts of the unblocked board (OEIS A000170), and hand-made boards."""

import itertools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

# Placements of n non-attacking queens on the empty n x n board, n = 1 .. 11 (OEIS A000170).
UNBLOCKED = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680]


def _free(blocked, n):
    return [[not (int(blocked[r]) >> c) & 1 for c in range(n)] for r in range(n)]


def _by_permutations(blocked, n):
    free = _free(blocked, n)
    percol = [0] * n
    for perm in itertools.permutations(range(n)):
        if all(free[r][perm[r]] for r in range(n)) and \
                len({r + perm[r] for r in range(n)}) == n and len({r - perm[r] for r in range(n)}) == n:
            percol[perm[0]] += 1
    return percol


def _by_recursion(blocked, n):
    free = _free(blocked, n)
    percol = [0] * n

    def place(r, cols, sums, diffs, first):
        if r == n:
            percol[first] += 1
            return
        for c in range(n):
            if free[r][c] and c not in cols and r + c not in sums and r - c not in diffs:
                place(r + 1, cols | {c}, sums | {r + c}, diffs | {r - c}, c if r == 0 else first)

    place(0, frozenset(), frozenset(), frozenset(), 0)
    return percol


@each(sizes=[(1, 1), (3, 2), (2, 3), (3, 4), (2, 5), (2, 6), (2, 7), (3, 8)], seed=SEEDS)
def check_against_permutations(kernel, sizes, seed):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, seed)
    assert 0 <= int(v["blocked"].min()) and int(v["blocked"].max()) < 2 ** n
    expected = [_by_permutations(v["blocked"][k], n) for k in range(b)]
    np.testing.assert_array_equal(out["percol"], expected)
    np.testing.assert_array_equal(out["counts"], [sum(row) for row in expected])


@each(sizes=[(2, 9), (1, 10)], seed=SEEDS)
def check_against_recursion(kernel, sizes, seed):
    b, n = sizes
    v, out = run(kernel, {"B": b, "N": n}, seed)
    expected = np.array([_by_recursion(v["blocked"][k], n) for k in range(b)], dtype=np.int64)
    np.testing.assert_array_equal(out["percol"], expected)
    np.testing.assert_array_equal(out["counts"], expected.sum(axis=1))
    assert (0 < expected.sum(axis=1)).all() and (expected.sum(axis=1) < UNBLOCKED[n - 1]).all()
    assert_judged_like_an_oracle(kernel, out, {"percol": expected, "counts": expected.sum(axis=1)})


def check_unblocked_counts(kernel):
    # The empty board's search tree is the largest: it needs the whole step bound.
    fn = kernel.reference().function
    for n, solutions in enumerate(UNBLOCKED, start=1):
        percol = np.full((1, n), -1, dtype=np.int64)
        counts = np.full(1, -1, dtype=np.int64)
        fn(np.zeros((1, n), dtype=np.int64), percol, counts, 1, n)
        assert counts[0] == solutions and percol.sum() == solutions
        np.testing.assert_array_equal(percol[0], percol[0, ::-1])          # mirror symmetry
        if n <= 8:
            assert percol[0].tolist() == _by_permutations(np.zeros(n, dtype=np.int64), n)


def check_hand_made_boards(kernel):
    fn = kernel.reference().function
    # 4 x 4: the two solutions have the first queen in columns 1 and 2; block (0, 1) on the
    # first board, a whole row on the second, nothing on the third.
    blocked = np.array([[0b0010, 0, 0, 0], [0, 0, 0b1111, 0], [0, 0, 0, 0]], dtype=np.int64)
    percol = np.full((3, 4), -1, dtype=np.int64)
    counts = np.full(3, -1, dtype=np.int64)
    fn(blocked, percol, counts, 3, 4)
    np.testing.assert_array_equal(counts, [1, 0, 2])
    np.testing.assert_array_equal(percol, [[0, 0, 1, 0], [0, 0, 0, 0], [0, 1, 1, 0]])
    # 8 x 8, the main diagonal blocked.
    diag = np.array([[1 << r for r in range(8)]], dtype=np.int64)
    percol = np.full((1, 8), -1, dtype=np.int64)
    fn(diag, percol, counts[:1], 1, 8)
    expected = _by_permutations(diag[0], 8)
    assert counts[0] == sum(expected) < 92
    np.testing.assert_array_equal(percol[0], expected)

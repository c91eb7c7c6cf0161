"""needleman_wunsch's independent check: the textbook row-major loop nest over Python integers;
Hirschberg's identity (the score of the whole alignment is the best split of a middle row
between the table of the prefixes and that of the reversed suffixes); and the textbook example
GATTACA / GCATGCU (match +1, mismatch -1, gap 1: score 0)."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def row_major(a, b, sub, gap):
    n, m = len(a), len(b)
    f = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        f[i][0] = -i * gap
    for j in range(m + 1):
        f[0][j] = -j * gap
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            f[i][j] = max(f[i - 1][j - 1] + sub[a[i - 1]][b[j - 1]],
                          f[i - 1][j] - gap, f[i][j - 1] - gap)
    return f


@each(sizes=[(1, 1), (1, 6), (5, 1), (7, 3), (40, 33), (64, 64)], seed=SEEDS)
def check_against_loops(kernel, sizes, seed):
    N, M = sizes
    v, out = run(kernel, {"N": N, "M": M}, seed)
    sub = v["sub"]
    assert np.array_equal(sub, sub.T)
    expected = np.array(row_major(v["seqa"].tolist(), v["seqb"].tolist(), sub.tolist(), int(v["gap"])),
                        dtype=np.int32)
    np.testing.assert_array_equal(out["score"], expected)
    if N * M > 100:
        assert_judged_like_an_oracle(kernel, out, {"score": expected})


@each(seed=SEEDS)
def check_hirschberg_split(kernel, seed):
    N, M = 50, 70
    v, out = run(kernel, {"N": N, "M": M}, seed)
    a, b, sub, gap = v["seqa"].tolist(), v["seqb"].tolist(), v["sub"].tolist(), int(v["gap"])
    h = N // 2
    # The table of the reversed suffixes a[h:], b[j:]: back[N - h][M - j] scores them.
    back = row_major(a[h:][::-1], b[::-1], sub, gap)
    score = out["score"]
    best = max(int(score[h, j]) + back[N - h][M - j] for j in range(M + 1))
    assert best == int(score[N, M])
    # Related sequences: the alignment beats all-gaps by far.
    assert score[N, M] > -(N + M) * gap // 2


def check_textbook_example(kernel):
    fn = kernel.reference().function
    letters = {"A": 0, "C": 1, "G": 2, "T": 3, "U": 4}
    a = np.array([letters[c] for c in "GATTACA"], dtype=np.int8)
    b = np.array([letters[c] for c in "GCATGCU"], dtype=np.int8)
    sub = np.full((20, 20), -1, dtype=np.int32)
    np.fill_diagonal(sub, 1)
    score = np.full((8, 8), -999, dtype=np.int32)
    fn(a, b, sub, score, np.int32(1), 7, 7)
    assert score[7, 7] == 0
    assert score[1, 1] == 1 and score[7, 0] == -7 and score[0, 3] == -3

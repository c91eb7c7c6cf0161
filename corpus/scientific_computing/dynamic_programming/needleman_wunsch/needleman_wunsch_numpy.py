"""needleman_wunsch: the global alignment score table of two protein sequences
(Needleman and Wunsch 1970; Rodinia nw), with a substitution table and a linear gap penalty."""

import numpy as np


def initialize(rng, N, M):
    # A BLOSUM-like substitution table over 20 letters: symmetric, matches 4..11,
    # mismatches -4..3.
    off = rng.integers(-4, 4, size=(20, 20))
    sub = np.triu(off, 1) + np.triu(off, 1).T + np.diag(rng.integers(4, 12, size=20))
    # Related sequences, so that the best alignment is informative: b follows a (stretched
    # to length M) with about 40% of its letters replaced at random.
    seqa = rng.integers(0, 20, size=N)
    seqb = seqa[np.arange(M) * N // M]
    mutate = rng.random(M) < 0.4
    seqb = np.where(mutate, rng.integers(0, 20, size=M), seqb)
    return {
        "seqa": seqa.astype(np.int8),
        "seqb": seqb.astype(np.int8),
        "sub": sub.astype(np.int32),
        "gap": np.int32(rng.integers(5, 12)),
    }


def needleman_wunsch(seqa, seqb, sub, score, gap, N, M):
    # The recurrence, row by row in Rodinia and the textbook:
    #   score[i, 0] = -i gap, score[0, j] = -j gap,
    #   score[i, j] = max(score[i-1, j-1] + sub[a[i-1], b[j-1]],
    #                     score[i-1, j] - gap, score[i, j-1] - gap).
    # Cell (i, j) needs only cells of the anti-diagonals d - 1 and d - 2 (d = i + j), so the
    # cells of one anti-diagonal are independent: the loop runs over d, each step a vector
    # (integer max is exact, so this is the row-major recurrence's table bit for bit).
    # Anti-diagonal d is kept as a row of a skewed table: P[d, i] = score[i, d - i].
    subf = np.empty((400,), dtype=np.int32)      # sub flattened: sub[x, y] = subf[20 x + y]
    ra = np.empty((N,), dtype=np.int64)          # ra[i] = 20 a[i]: a row offset into subf
    rb = np.empty((M,), dtype=np.int64)          # rb[k] = b[M - 1 - k]: b reversed, so that
    P = np.empty((N + M + 1, N + 1), dtype=np.int32)   # b[d - i - 1] = rb[M - d + i] rises with i
    for x in range(20):
        subf[20 * x:20 * x + 20] = sub[x, :]
    ra[:] = seqa.astype(np.int64) * 20
    for k in range(M):
        rb[k] = seqb[M - 1 - k]
    P[0, 0] = 0
    for d in range(1, N + M + 1):
        lo = max(1, d - M)
        hi = min(N, d - 1)
        if lo <= hi:
            P[d, lo:hi + 1] = np.maximum(
                P[d - 2, lo - 1:hi] + subf[ra[lo - 1:hi] + rb[M - d + lo:M - d + hi + 1]],
                np.maximum(P[d - 1, lo - 1:hi], P[d - 1, lo:hi + 1]) - gap)
        if d <= M:
            P[d, 0] = -d * gap
        if d <= N:
            P[d, d] = -d * gap
    for i in range(N + 1):
        score[i, 0:M + 1] = P[i:i + M + 1, i]

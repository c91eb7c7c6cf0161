"""smith_waterman: the local alignment score table of two protein sequences with affine gap
penalties (Smith and Waterman 1981; Gotoh 1982), and the best local alignment score."""

import numpy as np


def initialize(rng, N, M):
    # A BLOSUM-like substitution table over 20 letters: symmetric, matches 4..11,
    # mismatches -4..2 (negative on average, so that random pairs score below zero and
    # alignments are local).
    off = rng.integers(-4, 3, size=(20, 20))
    sub = np.triu(off, 1) + np.triu(off, 1).T + np.diag(rng.integers(4, 12, size=20))
    # b is random in its first and last quarters and follows a (stretched to length M,
    # about 35% of the letters replaced) in between: a strong local alignment among noise.
    seqa = rng.integers(0, 20, size=N)
    j = np.arange(M)
    seqb = np.where((rng.random(M) < 0.35) | (4 * j < M) | (4 * j >= 3 * M),
                    rng.integers(0, 20, size=M), seqa[j * N // M])
    return {
        "seqa": seqa.astype(np.int8),
        "seqb": seqb.astype(np.int8),
        "sub": sub.astype(np.int32),
        "gap_open": np.int32(rng.integers(8, 13)),
        "gap_extend": np.int32(rng.integers(1, 3)),
    }


def smith_waterman(seqa, seqb, sub, H, gap_open, gap_extend, N, M):
    # Gotoh's recurrences (a gap of k letters costs gap_open + (k - 1) gap_extend):
    #   E[i, j] = max(E[i, j-1] - gap_extend, H[i, j-1] - gap_open)   (gap in a)
    #   F[i, j] = max(F[i-1, j] - gap_extend, H[i-1, j] - gap_open)   (gap in b)
    #   H[i, j] = max(0, H[i-1, j-1] + sub[a[i-1], b[j-1]], E[i, j], F[i, j]),
    # with H[i, 0] = H[0, j] = 0 and E[i, 0] = F[0, j] = -infinity; the best local score is
    # the largest H. Cell (i, j) needs only cells of the anti-diagonals d - 1 and d - 2
    # (d = i + j), so the cells of one anti-diagonal are independent: the loop runs over d,
    # each step a vector (integer max is exact: the row-major recurrence's tables bit for
    # bit). H's anti-diagonal d is row d of a skewed table, P[d, i] = H[i, d - i]; E and F
    # keep only the last two anti-diagonals, Eg[d % 2, i] = E[i, d - i] (Fg likewise).
    neg = -1073741824                            # minus infinity: E[i, 0], F[0, j]
    subf = np.empty((400,), dtype=np.int32)      # sub flattened: sub[x, y] = subf[20 x + y]
    ra = np.empty((N,), dtype=np.int64)          # ra[i] = 20 a[i]: a row offset into subf
    rb = np.empty((M,), dtype=np.int64)          # rb[k] = b[M - 1 - k]: b reversed, so that
    P = np.empty((N + M + 1, N + 1), dtype=np.int32)   # b[d - i - 1] = rb[M - d + i] rises with i
    Eg = np.empty((2, N + 1), dtype=np.int32)
    Fg = np.empty((2, N + 1), dtype=np.int32)
    for x in range(20):
        subf[20 * x:20 * x + 20] = sub[x, :]
    ra[:] = seqa.astype(np.int64) * 20
    for k in range(M):
        rb[k] = seqb[M - 1 - k]
    P[0, 0] = 0
    for d in range(1, N + M + 1):
        cur = d % 2
        prv = 1 - cur
        lo = max(1, d - M)
        hi = min(N, d - 1)
        if lo <= hi:
            Eg[cur, lo:hi + 1] = np.maximum(Eg[prv, lo:hi + 1] - gap_extend, P[d - 1, lo:hi + 1] - gap_open)
            Fg[cur, lo:hi + 1] = np.maximum(Fg[prv, lo - 1:hi] - gap_extend, P[d - 1, lo - 1:hi] - gap_open)
            P[d, lo:hi + 1] = np.maximum(
                np.maximum(P[d - 2, lo - 1:hi] + subf[ra[lo - 1:hi] + rb[M - d + lo:M - d + hi + 1]], 0),
                np.maximum(Eg[cur, lo:hi + 1], Fg[cur, lo:hi + 1]))
        if d <= M:                               # the cell (0, d)
            P[d, 0] = 0
            Fg[cur, 0] = neg
        if d <= N:                               # the cell (d, 0)
            P[d, d] = 0
            Eg[cur, d] = neg
    for i in range(N + 1):
        H[i, 0:M + 1] = P[i:i + M + 1, i]
    return np.max(H)

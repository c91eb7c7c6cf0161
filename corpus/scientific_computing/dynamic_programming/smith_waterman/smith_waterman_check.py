"""smith_waterman's independent check: Gotoh's row-major loop nest over Python integers; and
the definition of a local alignment read directly (H[i, j] is the best of 0 and every global
affine-gap alignment of a[i0:i] with b[j0:j], over all start points i0, j0), by a global
Gotoh table per start point at tiny sizes."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

NEG = -(10 ** 9)


def gotoh_local(a, b, sub, go, ge):
    n, m = len(a), len(b)
    H = [[0] * (m + 1) for _ in range(n + 1)]
    E = [[NEG] * (m + 1) for _ in range(n + 1)]
    F = [[NEG] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            E[i][j] = max(E[i][j - 1] - ge, H[i][j - 1] - go)
            F[i][j] = max(F[i - 1][j] - ge, H[i - 1][j] - go)
            H[i][j] = max(0, H[i - 1][j - 1] + sub[a[i - 1]][b[j - 1]], E[i][j], F[i][j])
    return H


def best_global_from(a, b, sub, go, ge):
    """Best global affine alignment score of a[:i] with b[:j], for every (i, j): the most of
    its three end states (letter pair, gap in a, gap in b)."""
    n, m = len(a), len(b)
    pair, gapa, gapb = {}, {}, {}
    out = {}
    for i in range(n + 1):
        for j in range(m + 1):
            pair[i, j] = (0 if i == 0 and j == 0 else
                          max(pair[i - 1, j - 1], gapa[i - 1, j - 1], gapb[i - 1, j - 1]) + sub[a[i - 1]][b[j - 1]]
                          if i > 0 and j > 0 else NEG)
            gapa[i, j] = max(gapa[i, j - 1] - ge, max(pair[i, j - 1], gapb[i, j - 1]) - go) if j > 0 else NEG
            gapb[i, j] = max(gapb[i - 1, j] - ge, max(pair[i - 1, j], gapa[i - 1, j]) - go) if i > 0 else NEG
            out[i, j] = max(pair[i, j], gapa[i, j], gapb[i, j])
    return out


@each(sizes=[(1, 1), (1, 5), (6, 1), (9, 4), (40, 31), (64, 64)], seed=SEEDS)
def check_against_loops(kernel, sizes, seed):
    N, M = sizes
    v, out = run(kernel, {"N": N, "M": M}, seed)
    sub = v["sub"]
    assert np.array_equal(sub, sub.T)
    H = np.array(gotoh_local(v["seqa"].tolist(), v["seqb"].tolist(), sub.tolist(),
                             int(v["gap_open"]), int(v["gap_extend"])), dtype=np.int32)
    np.testing.assert_array_equal(out["H"], H)
    assert out["best"][0] == H.max()
    if N * M >= 1000:
        assert H.max() > 20 and np.count_nonzero(H) > N * M // 10
        assert_judged_like_an_oracle(kernel, out, {"H": H, "best": np.array([H.max()])})


@each(sizes=[(8, 8), (11, 7)], seed=SEEDS)
def check_against_definition(kernel, sizes, seed):
    N, M = sizes
    v, out = run(kernel, {"N": N, "M": M}, seed)
    a, b, sub = v["seqa"].tolist(), v["seqb"].tolist(), v["sub"].tolist()
    go, ge = int(v["gap_open"]), int(v["gap_extend"])
    H = np.zeros((N + 1, M + 1), dtype=np.int64)
    for i0 in range(N + 1):
        for j0 in range(M + 1):
            g = best_global_from(a[i0:], b[j0:], sub, go, ge)
            for (di, dj), s in g.items():
                H[i0 + di, j0 + dj] = max(H[i0 + di, j0 + dj], s)
    np.testing.assert_array_equal(out["H"], H)
    assert out["best"][0] == H.max()


def check_gap_costs(kernel):
    # a = ACDE.., b = the same with three letters missing: one gap of 3 (open + 2 extend)
    # beats three separate gaps and beats stopping short.
    fn = kernel.reference().function
    sub = np.full((20, 20), -3, dtype=np.int32)
    np.fill_diagonal(sub, 5)
    a = np.arange(12, dtype=np.int8)
    b = np.concatenate([a[:5], a[8:]]).astype(np.int8)
    H = np.full((13, 10), -7, dtype=np.int32)
    best = fn(a, b, sub, H, np.int32(6), np.int32(1), 12, 9)
    assert best == 9 * 5 - (6 + 2) == H[12, 9]
    assert H[5, 5] == 25 and H[8, 5] == 25 - 8 and H[0, 4] == 0 and H[3, 0] == 0

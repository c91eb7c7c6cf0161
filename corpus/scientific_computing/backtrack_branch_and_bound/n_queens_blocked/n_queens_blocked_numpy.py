"""n_queens_blocked: for each of B boards, the number of ways to place N non-attacking queens
on the N x N board some of whose cells are blocked, one queen per row, by depth-first backtracking over rows
with the attacked columns and diagonals kept as bit masks (Wirth 1976; the bitboard form of
Richards), written iteratively: an explicit stack of masks, and a loop over a bound on the
number of steps guarded by a 'done' flag. The boards are independent searches."""

import numpy as np


def initialize(rng, B, N):
    # Each cell blocked with probability 1 / N: about a third of the unblocked board's
    # solutions survive, so the count (and its split by the first row's column) depends
    # on which cells are blocked. Bit c of blocked[k, r] blocks cell (r, c) of board k.
    cells = rng.random((B, N, N)) < 1.0 / N
    weights = np.int64(1) << np.arange(N, dtype=np.int64)
    blocked = (cells.astype(np.int64) * weights[None, None, :]).sum(axis=2).astype(np.int64)
    return {"blocked": blocked}


def n_queens_blocked(blocked, percol, counts, B, N):
    # Nodes (partial placements of rows 0 .. j - 1, j = 1 .. N) in the search tree of the
    # board with no cell blocked: blocking only prunes that tree, so each step count below
    # bounds every board's. Per board, a step tries one column (a node) or pops one level, so at most
    # 2 tree[N] + 1 steps are taken.
    tree = np.empty(15, dtype=np.int64)
    tree[0] = 0
    tree[1] = 1
    tree[2] = 2
    tree[3] = 5
    tree[4] = 16
    tree[5] = 53
    tree[6] = 152
    tree[7] = 551
    tree[8] = 2056
    tree[9] = 8393
    tree[10] = 35538
    tree[11] = 166925
    tree[12] = 856188
    tree[13] = 4674889
    tree[14] = 27358552
    steps = 2 * tree[N] + 1
    full = (np.int64(1) << N) - 1
    # Stack level d: the columns and the two diagonals attacked in row d by the queens of
    # rows 0 .. d - 1, and the columns of row d still to try.
    cols = np.empty(N, dtype=np.int64)
    diagl = np.empty(N, dtype=np.int64)
    diagr = np.empty(N, dtype=np.int64)
    avail = np.empty(N, dtype=np.int64)
    for k in range(B):
        percol[k, :] = 0
        cols[0] = 0
        diagl[0] = 0
        diagr[0] = 0
        avail[0] = full & ~blocked[k, 0]
        depth = 0
        col0 = 0
        found = 0
        done = 0
        for step in range(steps):
            if done == 0:
                left = avail[depth]
                if left != 0:
                    # Place a queen in the lowest untried column of row depth.
                    bit = left & (-left)
                    avail[depth] = left ^ bit
                    if depth == 0:
                        for c in range(N):
                            if bit == (np.int64(1) << c):
                                col0 = c
                    if depth == N - 1:
                        found += 1
                        percol[k, col0] += 1
                    else:
                        cols[depth + 1] = cols[depth] | bit
                        diagl[depth + 1] = ((diagl[depth] | bit) << 1) & full
                        diagr[depth + 1] = (diagr[depth] | bit) >> 1
                        avail[depth + 1] = full & ~(cols[depth + 1] | diagl[depth + 1] | diagr[depth + 1] | blocked[k, depth + 1])
                        depth += 1
                elif depth == 0:
                    done = 1
                else:
                    depth -= 1
        counts[k] = found

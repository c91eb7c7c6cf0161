"""nussinov: Nussinov's RNA folding, the maximum number of base pairs of every subsequence
(PolyBench/C nussinov)."""

import numpy as np


def initialize(rng, N):
    # A random RNA sequence: bases 0..3 (A, C, G, U); A-U (0 + 3) and C-G (1 + 2) pair.
    return {"seq": rng.integers(0, 4, N).astype(np.int8)}


def nussinov(seq, table, N):
    # PolyBench's recurrence for i < j (every other entry stays 0):
    #   table[i, j] = max(table[i, j-1], table[i+1, j],
    #                     table[i+1, j-1] + match(seq[i], seq[j]) (only when i < j-1),
    #                     max over i < k < j of table[i, k] + table[k+1, j]).
    # Entry (i, j) needs only entries of shorter spans j - i, so the cells of one diagonal
    # d = j - i are independent: the loop runs over d (the recurrence), each step a vector.
    # The diagonals are kept skewed so that every term is a plain slice:
    #   P[i, d] = table[i, i + d] (along a row) and Q[j, N - d] = table[j - d, j] (up a column).
    # Then table[i, k] = P[i, k - i] and table[k+1, j] = Q[j, N - (j - k - 1)].
    P = np.zeros((N, N), dtype=np.int32)
    Q = np.zeros((N, N + 1), dtype=np.int32)
    best = np.empty((N,), dtype=np.int32)
    for d in range(1, N):
        # table[i, j-1] and table[i+1, j], spans d - 1.
        best[0:N - d] = np.maximum(P[0:N - d, d - 1], P[1:N - d + 1, d - 1])
        if d > 1:
            # table[i+1, j-1] + match, span d - 2; then the split points k = i+1 .. j-1.
            best[0:N - d] = np.maximum(best[0:N - d],
                                       P[1:N - d + 1, d - 2] + np.where(seq[0:N - d] + seq[d:N] == 3, 1, 0))
            best[0:N - d] = np.maximum(best[0:N - d],
                                       np.max(P[0:N - d, 1:d] + Q[d:N, N - d + 2:N + 1], axis=1))
        P[0:N - d, d] = best[0:N - d]
        Q[d:N, N - d] = best[0:N - d]
    table[:, :] = 0
    for i in range(N):
        table[i, i:N] = P[i, 0:N - i]

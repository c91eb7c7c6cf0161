"""subset_sum: for each of B instances (N positive integer weights, sorted descending, and a
target), the number of subsets whose weights sum exactly to the target, by depth-first
branch and bound over include / exclude decisions (Horowitz and Sahni 1974's enumeration
with its two prunes), written iteratively: an explicit stack of partial sums and of the
decision next to try at each depth, and a bounded loop over the steps guarded by a 'done'
flag. The instances are independent searches."""

import numpy as np


def initialize(rng, B, N):
    # Weights uniform in [1, 100], sorted descending; the target is the sum of a random
    # half of them (so at least one subset hits it, and usually tens to thousands do, a count that
    # varies with the target).
    w = rng.integers(1, 101, size=(B, N), dtype=np.int64)
    weights = -np.sort(-w, axis=1)
    pick = rng.random((B, N)) < 0.5
    target = (weights * pick.astype(np.int64)).sum(axis=1).astype(np.int64)
    target = np.maximum(target, weights[:, N - 1])
    return {"weights": weights, "target": target}


def subset_sum(weights, target, counts, B, N):
    # Every node pushed is a partial decision on items 0 .. d - 1 (d < N), at most 2**N - 1
    # of them; a node takes three steps (try include, try exclude, pop), and the root's
    # last pop sets done: at most 3 (2**N - 1) + 1 steps. They run in blocks of 4096 so
    # that the steps left after done cost one test per block.
    steps = 3 * ((np.int64(1) << N) - 1) + 1
    blk = 4096
    nblk = steps // blk + 1
    rem = np.empty(N + 1, dtype=np.int64)        # rem[d]: sum of weights d .. N - 1
    psum = np.empty(N, dtype=np.int64)           # partial sum of the node at depth d
    state = np.empty(N, dtype=np.int64)          # 0: include next, 1: exclude next, 2: pop
    for k in range(B):
        rem[N] = 0
        for i in range(N):
            rem[N - 1 - i] = rem[N - i] + weights[k, N - 1 - i]
        tgt = target[k]
        psum[0] = 0
        state[0] = 0
        depth = 0
        found = 0
        done = 0
        for ob in range(nblk):
            if done == 0:
                for ib in range(blk):
                    if done == 0:
                        st = state[depth]
                        if st == 0:
                            # Include item depth: a hit is counted (the rest excluded is
                            # its only completion); a branch over the target, or one the
                            # remaining weights cannot lift to it, is pruned.
                            state[depth] = 1
                            s = psum[depth] + weights[k, depth]
                            if s == tgt:
                                found += 1
                            elif s < tgt and s + rem[depth + 1] >= tgt:
                                psum[depth + 1] = s
                                state[depth + 1] = 0
                                depth += 1
                        elif st == 1:
                            # Exclude item depth (the partial sum is below the target).
                            state[depth] = 2
                            s = psum[depth]
                            if s + rem[depth + 1] >= tgt:
                                psum[depth + 1] = s
                                state[depth + 1] = 0
                                depth += 1
                        elif depth == 0:
                            done = 1
                        else:
                            depth -= 1
        counts[k] = found

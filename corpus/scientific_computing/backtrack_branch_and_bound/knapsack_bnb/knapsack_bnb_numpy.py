"""knapsack_bnb: for each of B 0/1 knapsack instances (N items with positive integer weights
and values, sorted by value / weight descending, and a capacity), the optimal total value,
by depth-first branch and bound over include / exclude decisions with Dantzig's fractional
upper bound (Horowitz and Sahni 1974; Martello and Toth 1990, section 2.5), written
iteratively: an explicit stack of partial weights, values and the decision next to try at
each depth, and a bounded loop over the steps guarded by a 'done' flag."""

import numpy as np


def initialize(rng, B, N):
    # Strongly correlated instances, the hard class for this bound (Martello and Toth 1990,
    # section 2.10): weights uniform in [1, 1000], value = weight + 100, capacity half the
    # total weight; items sorted by value / weight, best first (here: lightest first).
    w = rng.integers(1, 1001, size=(B, N), dtype=np.int64)
    v = w + 100
    order = np.argsort(-(v / w), axis=1, kind="stable")
    weights = np.take_along_axis(w, order, axis=1).astype(np.int64)
    values = np.take_along_axis(v, order, axis=1).astype(np.int64)
    capacity = (weights.sum(axis=1) // 2).astype(np.int64)
    return {"weights": weights, "values": values, "capacity": capacity}


def knapsack_bnb(weights, values, capacity, best, B, N):
    # Every node pushed is a partial decision on items 0 .. d - 1 (d < N), at most 2**N - 1
    # of them; a node takes three steps (try include, try exclude, pop), and the root's
    # last pop sets done: at most 3 (2**N - 1) + 1 steps, run in blocks of 4096 so that the
    # steps left after done cost one test per block.
    steps = 3 * ((np.int64(1) << N) - 1) + 1
    blk = 4096
    nblk = steps // blk + 1
    # Bisection steps that find the critical item among at most N + 1 candidates.
    nbis = 0
    for q in range(N + 1):
        if (1 << q) < N + 1:
            nbis = q + 1
    cw = np.empty(N + 1, dtype=np.int64)          # cw[i]: weight of items 0 .. i - 1
    cv = np.empty(N + 1, dtype=np.int64)          # cv[i]: value of items 0 .. i - 1
    pw = np.empty(N, dtype=np.int64)              # weight of the node at depth d
    pv = np.empty(N, dtype=np.int64)              # value of the node at depth d
    state = np.empty(N, dtype=np.int64)           # 0: include next, 1: exclude next, 2: pop
    for k in range(B):
        cw[0] = 0
        cv[0] = 0
        for i in range(N):
            cw[i + 1] = cw[i] + weights[k, i]
            cv[i + 1] = cv[i] + values[k, i]
        cap = capacity[k]
        inc = 0                                   # the incumbent: the empty knapsack
        pw[0] = 0
        pv[0] = 0
        state[0] = 0
        depth = 0
        done = 0
        for ob in range(nblk):
            if done == 0:
                for ib in range(blk):
                    if done == 0:
                        st = state[depth]
                        child = 0
                        nw = 0
                        nv = 0
                        if st == 0:
                            # Include item depth if it fits: a feasible packing, so a
                            # candidate for the incumbent.
                            state[depth] = 1
                            nw = pw[depth] + weights[k, depth]
                            if nw <= cap:
                                nv = pv[depth] + values[k, depth]
                                if nv > inc:
                                    inc = nv
                                child = 1
                        elif st == 1:
                            # Exclude item depth.
                            state[depth] = 2
                            nw = pw[depth]
                            nv = pv[depth]
                            child = 1
                        elif depth == 0:
                            done = 1
                        else:
                            depth -= 1
                        if child == 1 and depth + 1 < N:
                            # Dantzig's bound on the child's subtree: items depth + 1 ..
                            # taken greedily until the critical item c, the first that
                            # does not fit (cw[c + 1] > lim), then the fitting fraction of it.
                            j = depth + 1
                            lim = cw[j] + cap - nw
                            lo = j
                            hi = N
                            for it in range(nbis):
                                if lo < hi:
                                    mid = (lo + hi) // 2
                                    if cw[mid + 1] > lim:
                                        hi = mid
                                    else:
                                        lo = mid + 1
                            ub = nv + cv[lo] - cv[j]
                            if lo < N:
                                ub = ub + (lim - cw[lo]) * values[k, lo] // weights[k, lo]
                            if ub > inc:
                                pw[j] = nw
                                pv[j] = nv
                                state[j] = 0
                                depth = j
        best[k] = inc

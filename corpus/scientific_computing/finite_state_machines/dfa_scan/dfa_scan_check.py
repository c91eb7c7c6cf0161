"""dfa_scan's independent check: the scan as a loop over Python lists; the Aho-Corasick
property of the automata drawn (the state after any text is the state reached from the root
over its last W bytes, W the automaton's depth), computed for every position at once; and
a hand-built automaton with a known answer."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _scan(table, accept, text):
    state, hits = 0, 0
    for b in text:
        state = table[state][b]
        hits += accept[state] != 0
    return hits, state


@each(sizes=[(1, 2), (50, 7), (3001, 40), (20000, 3000)], seed=SEEDS)
def check_against_loops(kernel, sizes, seed):
    N, S = sizes
    v, out = run(kernel, {"N": N, "S": S}, seed)
    assert v["table"].min() >= 0 and v["table"].max() < S
    assert set(np.unique(v["accept"]).tolist()) <= {0, 1}
    hits, final = _scan(v["table"].tolist(), v["accept"].tolist(), v["text"].tolist())
    assert out["count"][0] == hits and out["final"][0] == final
    if N > 1000:
        assert 0 < hits < N // 2                  # informative: keywords end here and there
        assert_judged_like_an_oracle(kernel, out, {"count": np.array([hits]), "final": np.array([final])})


def _depth(table):
    # The largest breadth-first distance of a state from the root.
    S = table.shape[0]
    dist = np.full(S, -1)
    dist[0] = 0
    frontier = [0]
    while frontier:
        nxt = np.unique(table[frontier].ravel())
        nxt = nxt[dist[nxt] < 0]
        dist[nxt] = dist[frontier[0]] + 1
        frontier = nxt.tolist()
    return int(dist.max())


@each(sizes=[(5000, 300), (40000, 10000)], seed=SEEDS)
def check_windowed_restart(kernel, sizes, seed):
    N, S = sizes
    v, out = run(kernel, {"N": N, "S": S}, seed)
    table, text = v["table"], v["text"].astype(np.int64)
    W = _depth(table)
    assert 6 <= W <= 12
    # The state at every position at once: W steps from the root over the window before it.
    states = np.zeros(N, dtype=np.int64)
    pos = np.arange(N)
    for k in range(W):
        at = pos - (W - 1) + k
        states = np.where(at >= 0, table[states, text[np.maximum(at, 0)]], states)
    assert out["final"][0] == states[-1]
    assert out["count"][0] == np.count_nonzero(v["accept"][states])


def check_known_automaton(kernel):
    # The matcher of "aba" over bytes (KMP automaton): states = length of the matched prefix.
    fn = kernel.reference().function
    table = np.zeros((4, 256), dtype=np.int32)
    a, b = ord("a"), ord("b")
    table[0, a] = 1
    table[1, a], table[1, b] = 1, 2
    table[2, a] = 3
    table[3, a], table[3, b] = 1, 2
    accept = np.array([0, 0, 0, 1], dtype=np.int8)
    text = np.frombuffer(b"abababa xaba abba", dtype=np.uint8)
    hits, final = fn(table, accept, text, len(text), 4)
    assert (hits, final) == (4, 1)
    assert fn(table, accept, text[:3], 3, 4) == (1, 3)
    assert fn(table, accept, text[:1], 1, 4) == (0, 1)

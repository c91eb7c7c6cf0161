"""dfa_scan: a deterministic finite automaton over bytes run over a text; the number of steps
that end in an accepting state, and the final state. The automaton drawn is an Aho-Corasick
keyword matcher (Aho and Corasick 1975), so the count is the number of text positions at
which some keyword ends."""

import numpy as np

LETTERS = np.array([65, 67, 71, 84])      # b"ACGT": the keywords' alphabet


def _keyword_trie(rng, S):
    # Random DNA keywords of 6 .. 12 letters inserted into a trie until it has exactly S
    # nodes (the last keyword cut short when the nodes run out); child[s, c] = -1: none.
    child = np.full((S, 4), -1, dtype=np.int64)
    end = np.zeros(S, dtype=bool)
    nodes = 1
    while nodes < S:
        s = 0
        for c in rng.integers(0, 4, size=int(rng.integers(6, 13))):
            if child[s, c] < 0:
                if nodes == S:
                    break
                child[s, c] = nodes
                nodes += 1
            s = child[s, c]
        end[s] = s != 0
    return child, end


def initialize(rng, N, S):
    child, end = _keyword_trie(rng, S)
    # The Aho-Corasick automaton as a full byte table: goto where the trie has an edge,
    # else the failure state's move; bytes outside ACGT lead back to the root (state 0).
    # A state accepts when a keyword is a suffix of the string it stands for.
    table = np.zeros((S, 256), dtype=np.int32)
    accept = end.copy()
    fail = np.zeros(S, dtype=np.int64)
    order = [0]
    for s in order:                          # breadth-first: order grows as states are found
        for c in range(4):
            u = child[s, c]
            if u >= 0:
                fail[u] = table[fail[s], LETTERS[c]] if s != 0 else 0
                accept[u] = accept[u] or accept[fail[u]]
                table[s, LETTERS[c]] = u
                order.append(u)
            else:
                table[s, LETTERS[c]] = table[fail[s], LETTERS[c]] if s != 0 else 0
    # The text: ACGT, with about 2% arbitrary bytes (separators, other symbols) mixed in.
    text = LETTERS[rng.integers(0, 4, size=N)]
    other = rng.random(N) < 0.02
    text[other] = rng.integers(0, 256, size=int(other.sum()))
    return {"table": table, "accept": accept.astype(np.int8), "text": text.astype(np.uint8)}


def dfa_scan(table, accept, text, N, S):
    state = 0
    hits = 0
    for i in range(N):
        state = table[state, text[i]]
        if accept[state] != 0:
            hits += 1
    return hits, np.int64(state)

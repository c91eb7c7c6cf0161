"""kmp: Knuth-Morris-Pratt string matching (Knuth, Morris and Pratt 1977): for each of P
patterns of M symbols, its failure function and the number of its (possibly overlapping)
occurrences in a text of N symbols. The failure-link fallback, a while loop in the textbook,
is a bounded loop guarded by a flag (no DFA table is built). In the scan it is flattened
into a loop over the amortised bound on the steps: each step either consumes a text symbol
or follows one link, and links followed never outnumber symbols consumed, so 2 N steps
finish; an end marker after the text stops a pattern that has read it all. In the failure
function, symbol q's fallback loop runs q times (k < q bounds the links it can follow),
guarded by 'k > 0 and the symbols differ'. The P patterns are independent and step
together."""

import numpy as np

LETTERS = np.array([65, 67, 71, 84])      # b"ACGT"


def initialize(rng, N, P, M):
    # Patterns: half periodic (a unit of 1 .. 4 letters repeated, sometimes one letter
    # changed), so that failure links are long and occurrences overlap, planted into a
    # random text (extended by whole periods into longer runs: overlapping occurrences);
    # then the other half copied from that text and planted too. About as many letters are
    # planted as the text has.
    text = LETTERS[rng.integers(0, 4, size=N)]
    patterns = np.empty((P, M), dtype=np.int64)
    period = np.full(P, M)
    periodic = (rng.random(P) < 0.5) | (N < M)
    for r in range(P):
        if periodic[r]:
            unit = LETTERS[rng.integers(0, 4, size=int(rng.integers(1, 5)))]
            patterns[r] = np.resize(unit, M)
            if rng.random() < 0.3:
                patterns[r, int(rng.integers(0, M))] = LETTERS[int(rng.integers(0, 4))]
            else:
                period[r] = min(len(unit), M)
    for stage in (0, 1):
        if stage == 1:
            for r in np.flatnonzero(~periodic):
                at = int(rng.integers(0, N - M + 1))
                patterns[r] = text[at:at + M]
        chosen = np.flatnonzero(periodic if stage == 0 else ~periodic)
        for _ in range(N // (2 * M) if len(chosen) else 0):
            r = int(rng.choice(chosen))
            run = np.resize(patterns[r], M + period[r] * int(rng.integers(0, 3)))[:N]
            at = int(rng.integers(0, N - len(run) + 1))
            text[at:at + len(run)] = run
    return {"text": text.astype(np.uint8), "patterns": patterns.astype(np.uint8)}


def kmp(text, patterns, fail, count, N, P, M):
    # The patterns and the failure functions kept symbol-major, all patterns side by side:
    # symbol q of pattern r is pat[q * P + r], fail[r, q] is link[q * P + r].
    idx = np.empty(P, dtype=np.int64)
    idx[:] = np.arange(0, P, dtype=np.int64)
    pat = np.empty(M * P, dtype=np.int64)
    link = np.empty(M * P, dtype=np.int64)
    for q in range(M):
        pat[q * P:q * P + P] = patterns[:, q]
    pos = np.empty(P, dtype=np.int64)        # the next text symbol to read, per pattern
    k = np.empty(P, dtype=np.int64)          # the length of the prefix matched, per pattern
    nk = np.empty(P, dtype=np.int64)
    at = np.empty(P, dtype=np.int64)
    a = np.empty(P, dtype=np.int64)
    c = np.empty(P, dtype=np.int64)
    back = np.empty(P, dtype=np.int64)
    # The failure function: fail[r, q] is the length of the longest proper prefix of
    # pattern r's first q + 1 symbols that is also their suffix. For each q, k (the
    # previous one) falls back along the links while symbol k differs from symbol q (at
    # most q times: the loop runs q times, guarded), then extends by one if they agree.
    link[0:P] = 0
    k[:] = 0
    for q in range(1, M):
        a[:] = patterns[:, q]
        for f in range(q):
            c[:] = pat[k * P + idx]
            back[:] = link[np.maximum(k - 1, 0) * P + idx]
            k[:] = np.where((k > 0) & (c != a), back, k)
        c[:] = pat[k * P + idx]
        k[:] = np.where(c == a, k + 1, k)
        link[q * P:q * P + P] = k
    for q in range(M):
        fail[:, q] = link[q * P:q * P + P]
    # The scan, over the text followed by an end marker (-1) that no symbol equals. A step
    # compares text symbol pos with pattern symbol k: equal, both advance; different, k
    # falls back to fail[k - 1], or pos advances when k = 0 (link[idx - P] below is then
    # clamped to fail[0] = 0). Symbols consumed never exceed N and links followed never
    # exceed symbols consumed, so 2 N steps finish every pattern; one that has read the
    # whole text falls back to k = 0 at the end marker and stays at pos = N.
    txt = np.empty(N + 1, dtype=np.int64)
    txt[0:N] = text
    txt[N] = -1
    count[:] = 0
    pos[:] = 0
    k[:] = 0
    for step in range(2 * N):
        at[:] = k * P + idx
        a[:] = txt[pos]
        c[:] = pat[at]
        back[:] = link[np.maximum(at - P, idx)]
        nk[:] = np.where(a == c, k + 1, back)
        pos[:] = np.minimum(pos + np.where(nk >= k, 1, 0), N)
        # A whole pattern matched: count it and continue from its longest border.
        count[:] += np.where(nk == M, 1, 0)
        k[:] = np.where(nk == M, link[(M - 1) * P + idx], nk)

"""bitap: exact string matching by the shift-and algorithm (Baeza-Yates and Gonnet 1992):
the state of every prefix of the pattern kept as bits of one machine word."""

import numpy as np

LETTERS = np.array([65, 67, 71, 84])      # b"ACGT"


def initialize(rng, N, P):
    # A periodic pattern (a random unit of 3 .. 7 letters repeated), so that occurrences
    # can overlap; a random ACGT text with occurrences planted, some as longer periodic
    # runs holding several overlapping ones, and near misses (one letter changed).
    unit = LETTERS[rng.integers(0, 4, size=int(rng.integers(3, 8)))]
    period = len(unit)
    pattern = np.resize(unit, P)
    text = LETTERS[rng.integers(0, 4, size=N)]
    for _ in range(max(1, N // 400)):
        extra = period * int(rng.integers(0, 4))
        length = min(P + extra, N)
        at = int(rng.integers(0, N - length + 1))
        text[at:at + length] = np.resize(unit, length)
        if rng.random() < 0.3:
            # A near miss: one letter of the planted run changed to another.
            k = at + int(rng.integers(0, length))
            text[k] = LETTERS[(np.searchsorted(LETTERS, text[k]) + int(rng.integers(1, 4))) % 4]
    return {"text": text.astype(np.uint8), "pattern": pattern.astype(np.uint8)}


def bitap(text, pattern, match, N, P):
    # masks[c] has bit j set where pattern[j] == c. After text[i], bit j of d is set when
    # pattern[0 .. j] ends at i; a match ends at i when bit P - 1 is set.
    one = np.int64(1)        # a 64-bit one: its shifts stay 64-bit in any language
    masks = np.zeros(256, dtype=np.int64)
    for j in range(P):
        masks[pattern[j]] = masks[pattern[j]] | (one << j)
    top = one << (P - 1)
    below = top - 1          # bits 0 .. P - 2: the shift never reaches the sign bit (P <= 63)
    d = 0
    hits = 0
    for i in range(N):
        d = (((d & below) << 1) | 1) & masks[text[i]]
        if (d & top) != 0:
            match[i] = 1
            hits += 1
        else:
            match[i] = 0
    return hits

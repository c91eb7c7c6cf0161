"""hamming_distances: the Hamming distance (popcount of the XOR) between every pair of Q
query and R reference bit-vectors of W 64-bit words, as in binary-descriptor matching
(ORB/BRIEF) and fingerprint search. Each word is an int64 holding the 64 bits of a uint64;
popcount is the SWAR (divide-and-conquer) count of Hacker's Delight, done on the two 32-bit
halves of a word, each masked out of the int64 first, so that no step is arithmetic on an
unsigned type, overflows or depends on the sign: the shifts see only nonnegative values."""

import numpy as np


def initialize(rng, Q, R, W):
    # Random bits in the full int64 range (the sign bit is a bit like any other). Every
    # fifth reference is a query with a few bits flipped (a near match), and some words
    # are all ones (-1) or all zeros, so that distances span 0 .. 64 W.
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    queries = rng.integers(lo, hi, size=(Q, W), dtype=np.int64, endpoint=True)
    refs = rng.integers(lo, hi, size=(R, W), dtype=np.int64, endpoint=True)
    for j in range(0, R, 5):
        flips = np.zeros(W, dtype=np.int64)
        for _ in range(int(rng.integers(0, 4 * W + 1))):
            flips[rng.integers(0, W)] ^= np.int64(1) << np.int64(rng.integers(0, 64))
        refs[j] = queries[rng.integers(0, Q)] ^ flips
    special = rng.random((R, W))
    refs[special < 0.02] = -1
    refs[(special >= 0.02) & (special < 0.04)] = 0
    return {"queries": queries, "refs": refs}


def hamming_distances(queries, refs, dist, Q, R, W):
    x = np.empty((R, W), dtype=np.int64)
    lo = np.empty((R, W), dtype=np.int64)
    hi = np.empty((R, W), dtype=np.int64)
    for i in range(Q):
        # The bits where query i and each reference differ.
        x[:, :] = refs ^ queries[i:i + 1, :]
        # Each 32-bit half as a nonnegative int64 (the mask drops the sign extension).
        lo[:, :] = x & 0xFFFFFFFF
        hi[:, :] = (x >> 32) & 0xFFFFFFFF
        # Bit counts of 2-bit, then 4-bit, then 8-bit fields of each half.
        lo[:, :] = lo - ((lo >> 1) & 0x55555555)
        hi[:, :] = hi - ((hi >> 1) & 0x55555555)
        lo[:, :] = (lo & 0x33333333) + ((lo >> 2) & 0x33333333)
        hi[:, :] = (hi & 0x33333333) + ((hi >> 2) & 0x33333333)
        lo[:, :] = (lo + (lo >> 4)) & 0x0F0F0F0F
        hi[:, :] = (hi + (hi >> 4)) & 0x0F0F0F0F
        # Add the halves' byte counts (at most 16 each), then the four bytes: the
        # multiply gathers their sum (at most 64) into bits 24 .. 31 (the product < 2^57).
        x[:, :] = (((lo + hi) * 0x01010101) >> 24) & 0xFF
        dist[i, :] = np.sum(x, axis=1).astype(np.int32)

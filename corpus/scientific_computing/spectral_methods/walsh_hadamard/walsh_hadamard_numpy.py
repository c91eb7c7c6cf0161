"""walsh_hadamard: the fast Walsh-Hadamard transform, natural (Hadamard, Sylvester) order and
unnormalised, y = H_N x with H_1 = [1], H_2m = [[H_m, H_m], [H_m, -H_m]], of B signals of
length N = 2**K stored one after another in x, in place: K stages of butterflies of sums and
differences (Yates 1937; Fino and Algazi 1976)."""

import numpy as np


def initialize(rng, B, N, K):
    return {"x": rng.standard_normal(B * N)}


def walsh_hadamard(x, B, N, K):
    # Stage s pairs each element with the one h = 2**s further on, inside blocks of
    # m = 2h (the signals are N long and N is a multiple of m, so a block never spans two
    # signals): x viewed as B N / m rows of m, the left half of every row becomes the sum
    # and the right half the difference.
    for s in range(K):
        h = 2 ** s
        m = 2 * h
        rows = x.reshape(B * N // m, m)
        t = np.empty((B * N // m, h), dtype=np.float64)
        t[:, :] = rows[:, h:m]
        rows[:, h:m] = rows[:, 0:h] - t
        rows[:, 0:h] += t

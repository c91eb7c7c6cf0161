"""s318_isamax: TSVC s318, isamax with stride INC: the largest |a[i * INC]| and its index i."""

import numpy as np


def initialize(rng, N, INC):
    # Standard normal values: the largest magnitude lies in the tails and at a random
    # place, so both the value and its index change from one draw to the next.
    return {"a": rng.standard_normal(N * INC).astype(np.float32)}


def s318_isamax(a, N, INC):
    # Row i of the N x INC view starts at a[i * INC]: its column 0 is the strided vector.
    rows = a.reshape(N, INC)
    first = np.argmax(np.abs(rows[:, 0]))
    return np.abs(rows[first, 0]), first

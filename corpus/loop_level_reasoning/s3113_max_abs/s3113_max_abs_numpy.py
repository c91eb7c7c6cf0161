"""s3113_max_abs: TSVC s3113, maximum absolute value max = max(|a[0]|, ..., |a[N-1]|)."""

import numpy as np


def initialize(rng, N):
    # Standard normal values: the largest magnitude lies in the tails (about
    # sqrt(2 ln 2N)), so it moves by several percent from one draw to the next, and it
    # comes from the negative tail about as often as from the positive one.
    return {"a": rng.standard_normal(N).astype(np.float32)}


def s3113_max_abs(a, N):
    return np.max(np.abs(a))

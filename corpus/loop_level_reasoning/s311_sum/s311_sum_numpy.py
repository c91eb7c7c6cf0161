"""s311_sum: TSVC s311, sum reduction of a float32 vector."""

import numpy as np


def initialize(rng, N):
    # Terms of order one, centred a little above zero: the sum (about 3 sqrt(N)) sits some
    # five standard deviations from zero, so it never cancels, yet it depends on every
    # term: another draw of a gives a sum several percent away. Partial sums stay near
    # sqrt(N), which keeps a sequential float32 loop accurate.
    return {"a": (rng.uniform(-1.0, 1.0, N) + 3.0 / np.sqrt(N)).astype(np.float32)}


def s311_sum(a, N):
    return np.sum(a)

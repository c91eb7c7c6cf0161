"""s275_guarded_columns: TSVC s275, for i: if (aa[0, i] > 0) for j >= 1: aa[j, i] = aa[j-1, i] + bb[j, i] * cc[j, i]."""

import numpy as np


def initialize(rng, N):
    return {
        "aa": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "bb": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
        "cc": rng.uniform(-1.0, 1.0, (N, N)).astype(np.float32),
    }


def s275_guarded_columns(aa, bb, cc, N):
    # Loops interchanged: the recurrence runs down the rows, each row a select over columns
    # on the (never written) first row's sign.
    for j in range(1, N):
        aa[j, :] = np.where(aa[0, :] > 0.0, aa[j - 1, :] + bb[j, :] * cc[j, :], aa[j, :])

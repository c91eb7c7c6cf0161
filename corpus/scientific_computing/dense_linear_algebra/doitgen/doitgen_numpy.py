"""doitgen: every row A[r, q, :] of a 3-D array replaced by its product with C4, in place
(PolyBench/C doitgen, the multiresolution analysis kernel of MADNESS)."""

import numpy as np


def initialize(rng, NR, NQ, NP):
    return {
        "A": rng.standard_normal((NR, NQ, NP)),
        "C4": rng.standard_normal((NP, NP)),
    }


def doitgen(A, C4, NR, NQ, NP):
    acc = np.empty((NP,), dtype=np.float64)
    for r in range(NR):
        for q in range(NQ):
            acc[:] = A[r, q, :] @ C4
            A[r, q, :] = acc

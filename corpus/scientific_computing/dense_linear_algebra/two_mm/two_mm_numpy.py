"""two_mm: D = alpha * A B C + beta * D, through tmp = alpha * A B (PolyBench/C 2mm)."""

import numpy as np


def initialize(rng, NI, NJ, NK, NL):
    return {
        "A": rng.standard_normal((NI, NK)),
        "B": rng.standard_normal((NK, NJ)),
        "C": rng.standard_normal((NJ, NL)),
        "D": rng.standard_normal((NI, NL)),
        "alpha": 1.5,
        "beta": 1.2,
    }


def two_mm(A, B, C, D, alpha, beta, NI, NJ, NK, NL):
    tmp = np.empty((NI, NJ), dtype=np.float64)
    tmp[:, :] = alpha * (A @ B)
    D[:, :] = beta * D + tmp @ C

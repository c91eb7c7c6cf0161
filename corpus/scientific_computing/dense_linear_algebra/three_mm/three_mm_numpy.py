"""three_mm: G = (A B) (C D), through E = A B and F = C D (PolyBench/C 3mm)."""

import numpy as np


def initialize(rng, NI, NJ, NK, NL, NM):
    return {
        "A": rng.standard_normal((NI, NK)),
        "B": rng.standard_normal((NK, NJ)),
        "C": rng.standard_normal((NJ, NM)),
        "D": rng.standard_normal((NM, NL)),
    }


def three_mm(A, B, C, D, G, NI, NJ, NK, NL, NM):
    E = np.empty((NI, NJ), dtype=np.float64)
    F = np.empty((NJ, NL), dtype=np.float64)
    E[:, :] = A @ B
    F[:, :] = C @ D
    G[:, :] = E @ F

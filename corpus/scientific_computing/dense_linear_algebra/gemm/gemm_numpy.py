"""gemm: C = alpha * A @ B + beta * C (PolyBench/C gemm)."""

import numpy as np


def initialize(rng, NI, NJ, NK):
    return {
        "A": rng.standard_normal((NI, NK)),
        "B": rng.standard_normal((NK, NJ)),
        "C": rng.standard_normal((NI, NJ)),
        "alpha": 1.5,
        "beta": 1.2,
    }


def gemm(A, B, C, alpha, beta, NI, NJ, NK):
    C[:, :] = alpha * (A @ B) + beta * C

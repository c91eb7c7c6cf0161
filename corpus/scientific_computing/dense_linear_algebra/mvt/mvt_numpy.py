"""mvt: x1 += A y_1 and x2 += A^T y_2 (PolyBench/C mvt)."""

import numpy as np


def initialize(rng, N):
    return {
        "A": rng.standard_normal((N, N)),
        "y_1": rng.standard_normal(N),
        "y_2": rng.standard_normal(N),
        "x1": rng.standard_normal(N),
        "x2": rng.standard_normal(N),
    }


def mvt(A, y_1, y_2, x1, x2, N):
    x1[:] = x1 + A @ y_1
    x2[:] = x2 + A.T @ y_2

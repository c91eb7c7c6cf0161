"""jacobi_1d: TSTEPS double sweeps of the 3-point Jacobi stencil (PolyBench/C jacobi-1d)."""

import numpy as np


def initialize(rng, TSTEPS, N):
    # Random vectors (not smooth) so that the result still varies after many sweeps.
    return {
        "A": rng.uniform(-1.0, 1.0, N),
        "B": rng.uniform(-1.0, 1.0, N),
    }


def jacobi_1d(A, B, TSTEPS, N):
    # PolyBench's weight is the literal 0.33333, not 1/3.
    for t in range(TSTEPS):
        B[1:N - 1] = 0.33333 * (A[0:N - 2] + A[1:N - 1] + A[2:N])
        A[1:N - 1] = 0.33333 * (B[0:N - 2] + B[1:N - 1] + B[2:N])

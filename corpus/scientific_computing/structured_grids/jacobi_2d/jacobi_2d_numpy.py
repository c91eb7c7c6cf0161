"""jacobi_2d: TSTEPS double sweeps of the 5-point Jacobi stencil (PolyBench/C jacobi-2d)."""

import numpy as np


def initialize(rng, TSTEPS, N):
    # Random grids (not smooth) so that the result still varies after many sweeps.
    return {
        "A": rng.uniform(-1.0, 1.0, (N, N)),
        "B": rng.uniform(-1.0, 1.0, (N, N)),
    }


def jacobi_2d(A, B, TSTEPS, N):
    for t in range(TSTEPS):
        B[1:N - 1, 1:N - 1] = 0.2 * (A[1:N - 1, 1:N - 1] + A[1:N - 1, 0:N - 2] + A[1:N - 1, 2:N]
                                     + A[2:N, 1:N - 1] + A[0:N - 2, 1:N - 1])
        A[1:N - 1, 1:N - 1] = 0.2 * (B[1:N - 1, 1:N - 1] + B[1:N - 1, 0:N - 2] + B[1:N - 1, 2:N]
                                     + B[2:N, 1:N - 1] + B[0:N - 2, 1:N - 1])

"""heat_3d: TSTEPS double sweeps of the 7-point heat stencil (PolyBench/C heat-3d)."""

import numpy as np


def initialize(rng, TSTEPS, N):
    # Random grids (not smooth) so that the result still varies after many steps.
    return {
        "A": rng.uniform(-1.0, 1.0, (N, N, N)),
        "B": rng.uniform(-1.0, 1.0, (N, N, N)),
    }


def heat_3d(A, B, TSTEPS, N):
    for t in range(TSTEPS):
        B[1:N - 1, 1:N - 1, 1:N - 1] = (
            0.125 * (A[2:N, 1:N - 1, 1:N - 1] - 2.0 * A[1:N - 1, 1:N - 1, 1:N - 1] + A[0:N - 2, 1:N - 1, 1:N - 1])
            + 0.125 * (A[1:N - 1, 2:N, 1:N - 1] - 2.0 * A[1:N - 1, 1:N - 1, 1:N - 1] + A[1:N - 1, 0:N - 2, 1:N - 1])
            + 0.125 * (A[1:N - 1, 1:N - 1, 2:N] - 2.0 * A[1:N - 1, 1:N - 1, 1:N - 1] + A[1:N - 1, 1:N - 1, 0:N - 2])
            + A[1:N - 1, 1:N - 1, 1:N - 1])
        A[1:N - 1, 1:N - 1, 1:N - 1] = (
            0.125 * (B[2:N, 1:N - 1, 1:N - 1] - 2.0 * B[1:N - 1, 1:N - 1, 1:N - 1] + B[0:N - 2, 1:N - 1, 1:N - 1])
            + 0.125 * (B[1:N - 1, 2:N, 1:N - 1] - 2.0 * B[1:N - 1, 1:N - 1, 1:N - 1] + B[1:N - 1, 0:N - 2, 1:N - 1])
            + 0.125 * (B[1:N - 1, 1:N - 1, 2:N] - 2.0 * B[1:N - 1, 1:N - 1, 1:N - 1] + B[1:N - 1, 1:N - 1, 0:N - 2])
            + B[1:N - 1, 1:N - 1, 1:N - 1])

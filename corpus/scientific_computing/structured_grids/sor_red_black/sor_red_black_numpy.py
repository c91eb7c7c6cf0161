"""sor_red_black: SWEEPS red-black successive over-relaxation sweeps for the 5-point discrete
Poisson equation on an N x N grid with fixed boundary values, red points (i + j even) first,
then black points."""

import numpy as np


def initialize(rng, SWEEPS, N):
    # A random boundary and starting guess, a random right-hand side (already scaled by h^2),
    # and a relaxation factor between 1 and 2.
    return {
        "u": rng.uniform(-1.0, 1.0, (N, N)),
        "b": rng.uniform(-1.0, 1.0, (N, N)),
        "omega": float(rng.uniform(1.3, 1.7)),
    }


def sor_red_black(u, b, omega, SWEEPS, N):
    # Every interior point (i, j) solves 4 u[i, j] - u[i-1, j] - u[i+1, j] - u[i, j-1]
    # - u[i, j+1] = b[i, j] and is over-relaxed towards that value. A point's four neighbours
    # all have the other colour, so the points of one colour are independent. To reach each
    # colour with unit-stride slices, the sweeps run on a copy of the grid padded to an even
    # size 2Q x 2Q and viewed as V[a, r, m, c] = u[2a + r, 2m + c] (row parity r, column
    # parity c); b likewise. The padding is never read. Red (i + j even) is (r, c) = (1, 1)
    # and (0, 0), black (1, 0) and (0, 1).
    Q = (N + 1) // 2
    o = (N - 1) // 2        # odd interior rows (columns) 2a + 1 for a in [0, o)
    e = N // 2              # even interior rows (columns) 2a for a in [1, e)
    W = np.empty((4 * Q * Q,), dtype=np.float64)
    Bw = np.empty((4 * Q * Q,), dtype=np.float64)
    grid = W.reshape(2 * Q, 2 * Q)
    rhs = Bw.reshape(2 * Q, 2 * Q)
    V = W.reshape(Q, 2, Q, 2)
    F = Bw.reshape(Q, 2, Q, 2)
    grid[0:N, 0:N] = u
    rhs[0:N, 0:N] = b
    for t in range(SWEEPS):
        # red, odd rows at odd columns, then even rows at even columns
        V[0:o, 1, 0:o, 1] = (1.0 - omega) * V[0:o, 1, 0:o, 1] + 0.25 * omega * (
            V[0:o, 0, 0:o, 1] + V[1:o + 1, 0, 0:o, 1] + V[0:o, 1, 0:o, 0] + V[0:o, 1, 1:o + 1, 0]
            + F[0:o, 1, 0:o, 1])
        V[1:e, 0, 1:e, 0] = (1.0 - omega) * V[1:e, 0, 1:e, 0] + 0.25 * omega * (
            V[0:e - 1, 1, 1:e, 0] + V[1:e, 1, 1:e, 0] + V[1:e, 0, 0:e - 1, 1] + V[1:e, 0, 1:e, 1]
            + F[1:e, 0, 1:e, 0])
        # black, odd rows at even columns, then even rows at odd columns
        V[0:o, 1, 1:e, 0] = (1.0 - omega) * V[0:o, 1, 1:e, 0] + 0.25 * omega * (
            V[0:o, 0, 1:e, 0] + V[1:o + 1, 0, 1:e, 0] + V[0:o, 1, 0:e - 1, 1] + V[0:o, 1, 1:e, 1]
            + F[0:o, 1, 1:e, 0])
        V[1:e, 0, 0:o, 1] = (1.0 - omega) * V[1:e, 0, 0:o, 1] + 0.25 * omega * (
            V[0:e - 1, 1, 0:o, 1] + V[1:e, 1, 0:o, 1] + V[1:e, 0, 0:o, 0] + V[1:e, 0, 1:o + 1, 0]
            + F[1:e, 0, 0:o, 1])
    u[1:N - 1, 1:N - 1] = grid[1:N - 1, 1:N - 1]

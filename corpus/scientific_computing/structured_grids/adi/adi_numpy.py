"""adi: TSTEPS steps of the alternating direction implicit (Peaceman-Rachford) scheme for the
2-D heat equation, each a column sweep and a row sweep of tridiagonal solves (PolyBench/C adi)."""

import numpy as np


def initialize(rng, TSTEPS, N):
    # A random field (not smooth): the scheme hardly damps its highest frequencies, so the
    # result still varies after many steps.
    return {"u": rng.uniform(-1.0, 1.0, (N, N))}


def adi(u, TSTEPS, N):
    # PolyBench's coefficients: a unit square with N points a side, TSTEPS steps of 1 / TSTEPS.
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    # v: the intermediate field; p, q: the Thomas algorithm's forward-elimination
    # coefficients, stored transposed (p[j, i] is PolyBench's p[i][j]) so that the systems,
    # which are independent, are the contiguous index. Entries never written are never read.
    v = np.empty((N, N), dtype=np.float64)
    p = np.empty((N, N), dtype=np.float64)
    q = np.empty((N, N), dtype=np.float64)
    for t in range(1, TSTEPS + 1):
        # Column sweep: for each column i, solve along j for v[:, i] (implicit in the first
        # index, explicit in u's second). The columns are independent: PolyBench loops over
        # them outermost, here they are the vectorised index; the recurrences in j stay loops,
        # each term computed as PolyBench writes it.
        v[0, 1:N - 1] = 1.0
        p[0, 1:N - 1] = 0.0
        q[0, 1:N - 1] = v[0, 1:N - 1]
        for j in range(1, N - 1):
            p[j, 1:N - 1] = -c / (a * p[j - 1, 1:N - 1] + b)
            q[j, 1:N - 1] = (-d * u[j, 0:N - 2] + (1.0 + 2.0 * d) * u[j, 1:N - 1] - f * u[j, 2:N]
                             - a * q[j - 1, 1:N - 1]) / (a * p[j - 1, 1:N - 1] + b)
        v[N - 1, 1:N - 1] = 1.0
        for k in range(1, N - 1):
            # back substitution, jb = N-2 down to 1
            jb = N - 1 - k
            v[jb, 1:N - 1] = p[jb, 1:N - 1] * v[jb + 1, 1:N - 1] + q[jb, 1:N - 1]
        # Row sweep: for each row i, solve along j for u[i, :] (implicit in the second index,
        # explicit in v's first), the rows vectorised the same way.
        u[1:N - 1, 0] = 1.0
        p[0, 1:N - 1] = 0.0
        q[0, 1:N - 1] = u[1:N - 1, 0]
        for j in range(1, N - 1):
            p[j, 1:N - 1] = -f / (d * p[j - 1, 1:N - 1] + e)
            q[j, 1:N - 1] = (-a * v[0:N - 2, j] + (1.0 + 2.0 * a) * v[1:N - 1, j] - c * v[2:N, j]
                             - d * q[j - 1, 1:N - 1]) / (d * p[j - 1, 1:N - 1] + e)
        u[1:N - 1, N - 1] = 1.0
        for k in range(1, N - 1):
            jb = N - 1 - k
            u[1:N - 1, jb] = p[jb, 1:N - 1] * u[1:N - 1, jb + 1] + q[jb, 1:N - 1]

"""symgs: HPCG's symmetric Gauss-Seidel smoother, one forward and one backward sweep over the
rows of a CSR matrix (the 27-point stencil of an NX x NY x NZ grid), in place on x
(Dongarra, Heroux and Luszczek, HPCG technical report, 2013)."""

import numpy as np


def initialize(rng, NX, NY, NZ):
    # HPCG's matrix: row i = (iz * NY + iy) * NX + ix couples grid point i with every point of
    # its 3 x 3 x 3 block inside the grid, 26 on the diagonal and -1 off it; columns increase
    # within a row. x and r are random (HPCG smooths a residual starting from its own x).
    N = NX * NY * NZ
    ix = np.tile(np.arange(NX, dtype=np.int64), NY * NZ)
    iy = np.tile(np.repeat(np.arange(NY, dtype=np.int64), NX), NZ)
    iz = np.repeat(np.arange(NZ, dtype=np.int64), NX * NY)
    present = np.zeros((N, 27), dtype=bool)
    cols = np.zeros((N, 27), dtype=np.int64)
    vals = np.zeros((N, 27), dtype=np.float64)
    s = 0
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                present[:, s] = ((ix + dx >= 0) & (ix + dx < NX) & (iy + dy >= 0) & (iy + dy < NY)
                                 & (iz + dz >= 0) & (iz + dz < NZ))
                cols[:, s] = ((iz + dz) * NY + iy + dy) * NX + ix + dx
                vals[:, s] = 26.0 if (dx, dy, dz) == (0, 0, 0) else -1.0
                s += 1
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(present.sum(axis=1))
    return {
        "values": vals[present],
        "indices": cols[present],
        "indptr": indptr,
        "r": rng.standard_normal(N),
        "x": rng.standard_normal(N),
    }


def symgs(values, indices, indptr, r, x, NX, NY, NZ):
    N = NX * NY * NZ
    deg = np.empty((N,), dtype=np.int64)
    diag = np.empty((N,), dtype=np.float64)
    pos = np.empty((N,), dtype=np.int64)
    deg[:] = indptr[1:N + 1] - indptr[0:N]
    dmax = np.max(deg)
    # Each row's diagonal entry.
    diag[:] = 0.0
    for d in range(dmax):
        pos[:] = np.minimum(indptr[0:N] + d, indptr[1:N + 1] - 1)
        diag[:] = np.where((indices[pos] == np.arange(0, N, dtype=np.int64)) & (deg > d), values[pos], diag)
    # Forward sweep, rows in increasing order: row i sees the new x of every earlier row.
    # As in HPCG, the whole row (diagonal included) is subtracted, then the diagonal term
    # added back.
    for i in range(N):
        lo = indptr[i]
        hi = indptr[i + 1]
        s = r[i] - values[lo:hi] @ x[indices[lo:hi]] + x[i] * diag[i]
        x[i] = s / diag[i]
    # Backward sweep, rows in decreasing order.
    for k in range(N):
        row = N - 1 - k
        lo = indptr[row]
        hi = indptr[row + 1]
        s = r[row] - values[lo:hi] @ x[indices[lo:hi]] + x[row] * diag[row]
        x[row] = s / diag[row]

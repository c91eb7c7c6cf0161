"""cg_jacobi: ITERS steps of the Jacobi-preconditioned conjugate gradient method on a symmetric
positive definite CSR matrix (Saad, Iterative Methods for Sparse Linear Systems, alg. 9.1),
from x = 0; returns x and the residual norm after every step."""

import numpy as np


def initialize(rng, NX, NY, ITERS):
    # The 5-point Laplacian of an NX x NY grid (Dirichlet: neighbours outside the grid dropped),
    # row i = iy * NX + ix, plus a random shift of the diagonal in [0.005, 0.25]: SPD, with
    # diagonal entries varying enough for the Jacobi preconditioner to matter.
    N = NX * NY
    ix = np.tile(np.arange(NX, dtype=np.int64), NY)
    iy = np.repeat(np.arange(NY, dtype=np.int64), NX)
    row = np.arange(N, dtype=np.int64)
    # The five slots in column order: south, west, centre, east, north.
    present = np.stack([iy > 0, ix > 0, np.ones(N, dtype=bool), ix < NX - 1, iy < NY - 1], axis=1)
    cols = np.stack([row - NX, row - 1, row, row + 1, row + NX], axis=1)
    diag = 4.0 + rng.uniform(0.005, 0.25, N)
    vals = np.stack([-np.ones(N), -np.ones(N), diag, -np.ones(N), -np.ones(N)], axis=1)
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(present.sum(axis=1))
    return {
        "values": vals[present].astype(np.float64),
        "indices": cols[present].astype(np.int64),
        "indptr": indptr,
        "b": rng.standard_normal(N),
    }


def cg_jacobi(values, indices, indptr, b, x, resnorm, NX, NY, ITERS):
    N = NX * NY
    deg = np.empty((N,), dtype=np.int64)
    dinv = np.empty((N,), dtype=np.float64)
    r = np.empty((N,), dtype=np.float64)
    z = np.empty((N,), dtype=np.float64)
    p = np.empty((N,), dtype=np.float64)
    q = np.empty((N,), dtype=np.float64)
    pos = np.empty((N,), dtype=np.int64)
    deg[:] = indptr[1:N + 1] - indptr[0:N]
    dmax = np.max(deg)
    # The Jacobi preconditioner M = diag(A): find each row's diagonal entry.
    dinv[:] = 0.0
    for d in range(dmax):
        pos[:] = np.minimum(indptr[0:N] + d, indptr[1:N + 1] - 1)
        dinv[:] = np.where((indices[pos] == np.arange(0, N, dtype=np.int64)) & (deg > d), values[pos], dinv)
    dinv[:] = 1.0 / dinv
    # x0 = 0, r0 = b, z0 = M^-1 r0, p0 = z0.
    x[:] = 0.0
    r[:] = b
    z[:] = dinv * r
    p[:] = z
    rz = np.sum(r * z)
    for k in range(ITERS):
        # q = A p, each row summing its entries in CSR order; the loop over a row's entries
        # runs outside the row loop so that each pass is one vector statement.
        q[:] = 0.0
        for d in range(dmax):
            pos[:] = np.minimum(indptr[0:N] + d, indptr[1:N + 1] - 1)
            q[:] = np.where(deg > d, q + values[pos] * p[indices[pos]], q)
        pq = np.sum(p * q)
        alpha = 0.0
        if pq > 0.0:
            alpha = rz / pq
        x[:] = x + alpha * p
        r[:] = r - alpha * q
        z[:] = dinv * r
        rz_new = np.sum(r * z)
        beta = 0.0
        if rz > 0.0:
            beta = rz_new / rz
        p[:] = z + beta * p
        rz = rz_new
        resnorm[k] = np.sqrt(np.sum(r * r))

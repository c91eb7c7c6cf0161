"""mesh_laplacian: ITERS Jacobi sweeps of Laplacian smoothing of a triangle mesh's vertex
positions, x[v] += lam * (mean of v's neighbours - x[v]), neighbours from a CSR adjacency."""

import numpy as np


def initialize(rng, NX, NY, ITERS):
    # A closed surface: an NX x NY periodic grid on a torus, each quad cut along a random
    # diagonal (vertex degrees 4 to 8, 3 NV edges), positions jittered.
    NV = NX * NY
    i, j = np.meshgrid(np.arange(NX), np.arange(NY), indexing="ij")
    i, j = i.ravel(), j.ravel()
    here = i * NY + j
    right = ((i + 1) % NX) * NY + j
    up = i * NY + (j + 1) % NY
    diag = ((i + 1) % NX) * NY + (j + 1) % NY
    flip = rng.random(NV) < 0.5
    edges = np.concatenate([np.stack([here, right], axis=1), np.stack([here, up], axis=1),
                            np.stack([np.where(flip, right, here), np.where(flip, up, diag)], axis=1)])
    theta, phi = 2.0 * np.pi * i / NX, 2.0 * np.pi * j / NY
    pts = np.stack([(2.0 + np.cos(phi)) * np.cos(theta), (2.0 + np.cos(phi)) * np.sin(theta), np.sin(phi)],
                   axis=1)
    pts += 0.1 * rng.standard_normal((NV, 3))
    # Numbering like a mesh generator's: row by row, each vertex displaced up to 256 places.
    perm = np.empty(NV, dtype=np.int64)                                  # old id -> new id
    perm[np.argsort(np.arange(NV) + rng.uniform(0.0, 256.0, NV), kind="stable")] = np.arange(NV)
    edges = perm[edges]
    X = np.empty((NV, 3))
    X[perm] = pts
    # The symmetric adjacency in CSR form, each row's columns increasing.
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    order = np.lexsort((cols, rows))
    indptr = np.zeros(NV + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(rows, minlength=NV))
    return {"X": X, "indptr": indptr, "indices": cols[order].astype(np.int64), "lam": 0.5}


def mesh_laplacian(X, indptr, indices, lam, NX, NY, ITERS):
    NV = NX * NY
    # Working copy, one row per coordinate, with a ghost vertex NV at the origin that stands in
    # for the neighbour slots a vertex of lower degree does not have.
    W = np.empty((3, NV + 1), dtype=np.float64)
    S = np.empty((3, NV), dtype=np.float64)        # sum of each vertex's neighbours
    deg = np.empty((NV,), dtype=np.int64)
    nbr = np.empty((NV,), dtype=np.int64)          # each vertex's d-th neighbour, or the ghost
    deg[:] = indptr[1:NV + 1] - indptr[0:NV]
    dmax = np.max(deg)
    W[:, 0:NV] = X.T
    W[:, NV] = 0.0
    for it in range(ITERS):
        # The loop over a vertex's neighbours runs outside the vertex loop, so that each pass
        # is one vector statement; every vertex still adds its neighbours in CSR order.
        S[:, :] = 0.0
        for d in range(dmax):
            nbr[:] = np.where(deg > d, indices[np.minimum(indptr[0:NV] + d, indptr[1:NV + 1] - 1)], NV)
            for c in range(3):
                S[c, :] += W[c][nbr]
        # Jacobi: every vertex moves from the previous sweep's positions.
        W[:, 0:NV] = W[:, 0:NV] + lam * (S / deg - W[:, 0:NV])
    X[:, :] = W[:, 0:NV].T

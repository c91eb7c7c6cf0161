"""lanczos: K steps of the symmetric Lanczos iteration on a CSR matrix from a given start
vector, with full reorthogonalisation of each new vector against the stored basis; returns
the tridiagonal matrix's diagonal alpha and off-diagonal beta (Golub and Van Loan, Matrix
Computations, 4th ed., alg. 10.1.1 in Paige's arrangement, sec. 10.3 for the reorthogonalisation)."""

import numpy as np


def initialize(rng, NX, NY, K):
    # A weighted 5-point graph Laplacian of an NX x NY grid plus a random diagonal: each grid
    # edge has a random weight w in [0.5, 1.5] (A[i, j] = A[j, i] = -w), each diagonal the sum
    # of its row's weights plus a random shift in [0, 1]. Symmetric, positive definite, with
    # eigenvalues spread over about [0, 9]. Row i = iy * NX + ix, columns increasing.
    N = NX * NY
    wx = rng.uniform(0.5, 1.5, (NY, NX))     # edge between (ix, iy) and (ix + 1, iy)
    wy = rng.uniform(0.5, 1.5, (NY, NX))     # edge between (ix, iy) and (ix, iy + 1)
    wx[:, NX - 1] = 0.0
    wy[NY - 1, :] = 0.0
    zero_row = np.zeros((1, NX))
    zero_col = np.zeros((NY, 1))
    south = np.concatenate([zero_row, wy[0:NY - 1, :]], axis=0).ravel()
    west = np.concatenate([zero_col, wx[:, 0:NX - 1]], axis=1).ravel()
    east = wx.ravel()
    north = wy.ravel()
    ix = np.tile(np.arange(NX, dtype=np.int64), NY)
    iy = np.repeat(np.arange(NY, dtype=np.int64), NX)
    row = np.arange(N, dtype=np.int64)
    present = np.stack([iy > 0, ix > 0, np.ones(N, dtype=bool), ix < NX - 1, iy < NY - 1], axis=1)
    cols = np.stack([row - NX, row - 1, row, row + 1, row + NX], axis=1)
    diag = south + west + east + north + rng.uniform(0.0, 1.0, N)
    vals = np.stack([-south, -west, diag, -east, -north], axis=1)
    indptr = np.zeros(N + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(present.sum(axis=1))
    return {
        "values": vals[present].astype(np.float64),
        "indices": cols[present].astype(np.int64),
        "indptr": indptr,
        "q": rng.standard_normal(N),
    }


def lanczos(values, indices, indptr, q, alpha, beta, NX, NY, K):
    N = NX * NY
    V = np.empty((K, N), dtype=np.float64)      # the Lanczos vectors v_0 .. v_{K-1}
    w = np.empty((N,), dtype=np.float64)
    vj = np.empty((N,), dtype=np.float64)
    h = np.empty((K,), dtype=np.float64)
    deg = np.empty((N,), dtype=np.int64)
    pos = np.empty((N,), dtype=np.int64)
    deg[:] = indptr[1:N + 1] - indptr[0:N]
    dmax = np.max(deg)
    V[0, :] = q / np.sqrt(np.sum(q * q))
    for j in range(K):
        # w = A v_j, each row summing its entries in CSR order (a pass per entry slot).
        vj[:] = V[j, :]
        w[:] = 0.0
        for d in range(dmax):
            pos[:] = np.minimum(indptr[0:N] + d, indptr[1:N + 1] - 1)
            w[:] = np.where(deg > d, w + values[pos] * vj[indices[pos]], w)
        # Paige's arrangement: subtract beta_{j-1} v_{j-1} first, then alpha_j v_j.
        if j > 0:
            w[:] = w - beta[j - 1] * V[j - 1, :]
        alpha[j] = np.sum(vj * w)
        w[:] = w - alpha[j] * vj
        if j < K - 1:
            # Full reorthogonalisation: one classical Gram-Schmidt pass against v_0 .. v_j.
            h[0:j + 1] = V[0:j + 1, :] @ w
            w[:] = w - h[0:j + 1] @ V[0:j + 1, :]
            beta[j] = np.sqrt(np.sum(w * w))
            V[j + 1, :] = 0.0
            if beta[j] > 0.0:
                V[j + 1, :] = w / beta[j]

"""contour_integral: the moments P0 = sum_k w_k T(z_k)^-1 Y and P1 = sum_k w_k z_k T(z_k)^-1 Y of
Beyn's contour-integral eigensolver for a Laurent matrix polynomial T(z) = sum_j z^(j-H) T_j
(NPBench contour_integral, after OMEN's open-boundary eigenvalue solver), each T(z_k) X = Y
solved by Gaussian elimination without pivoting."""

import numpy as np


def initialize(rng, N, M, H, NQ):
    # Quadrature: the annulus 1/R < |z| < R, trapezoidal rule for (1/(2 pi i)) \oint dz: NQ - NQ//2
    # points on the outer circle (counterclockwise, w = z / n_out) and NQ//2 on the inner one
    # (clockwise, w = -z / n_in), each circle rotated by a random phase.
    R = 1.4
    n_out, n_in = NQ - NQ // 2, NQ // 2
    t_out = 2.0 * np.pi * (np.arange(n_out) + rng.uniform()) / max(n_out, 1)
    t_in = 2.0 * np.pi * (np.arange(n_in) + rng.uniform()) / max(n_in, 1)
    z_out, z_in = R * np.exp(1j * t_out), np.exp(1j * t_in) / R
    z = np.concatenate([z_out, z_in])
    w = np.concatenate([z_out / max(n_out, 1), -z_in / max(n_in, 1)])

    # Diagonal of T(z), row i: z^-H prod_r (z - a_ir), 2H roots of modulus 0.4 (inside the inner
    # circle), 1.0 (in the annulus: the eigenvalues the contour encloses) or 2.0 (outside), the
    # first always 1.0; scaled so that its largest coefficient has modulus one.
    mods = rng.choice(np.array([0.4, 1.0, 2.0]), size=(N, 2 * H))
    mods[:, 0] = 1.0
    roots = mods * np.exp(2j * np.pi * rng.uniform(size=(N, 2 * H)))
    Tn = np.zeros((2 * H + 1, N, N), dtype=np.complex128)
    lower = {}
    for i in range(N):
        c = np.poly(roots[i])[::-1]            # c[j]: coefficient of z^j in prod_r (z - a_ir)
        s = 1.0 / np.abs(c).max()
        Tn[:, i, i] = s * c
        for rad in (R, 1.0 / R):
            # |diagonal| on the circle |z| = rad is at least this (reverse triangle inequality).
            lower[(i, rad)] = s * rad ** (-H) * np.prod(np.abs(rad - mods[i]))
    # Off-diagonal couplings: random complex, scaled row by row so that on both circles the row
    # sum of |T(z)_ij|, j != i, is at most 0.6 |T(z)_ii|: T(z_k) is strictly diagonally dominant
    # by rows at every quadrature point, so elimination without pivoting is stable.
    E = rng.uniform(-1.0, 1.0, (2 * H + 1, N, N)) + 1j * rng.uniform(-1.0, 1.0, (2 * H + 1, N, N))
    E[:, np.arange(N), np.arange(N)] = 0.0
    rows = np.abs(E).sum(axis=2)               # (2H + 1, N)
    for i in range(N):
        scale = np.inf
        for rad in (R, 1.0 / R):
            off = sum(rad ** (j - H) * rows[j, i] for j in range(2 * H + 1))
            if off > 0.0:
                scale = min(scale, 0.6 * lower[(i, rad)] / off)
        if np.isfinite(scale):
            Tn[:, i, :] += scale * E[:, i, :]
    Y = rng.standard_normal((N, M)) + 1j * rng.standard_normal((N, M))
    return {"Tn": Tn, "z": z, "w": w, "Y": Y}


def contour_integral(Tn, z, w, Y, P0, P1, N, M, H, NQ):
    Tz = np.empty((N, N), dtype=np.complex128)
    X = np.empty((N, M), dtype=np.complex128)
    lcol = np.empty((N, 1), dtype=np.complex128)
    urow = np.empty((1, N), dtype=np.complex128)
    xrow = np.empty((1, M), dtype=np.complex128)
    P0[:, :] = 0.0
    P1[:, :] = 0.0
    for k in range(NQ):
        zk = z[k]
        # T(z_k) = sum_j z_k^(j - H) T_j, the powers by repeated multiplication from z_k^-H.
        zinv = 1.0 / zk
        pw = 1.0 + 0.0j
        for e in range(H):
            pw = pw * zinv
        Tz[:, :] = pw * Tn[0, :, :]
        for j in range(1, 2 * H + 1):
            pw = pw * zk
            Tz[:, :] += pw * Tn[j, :, :]
        X[:, :] = Y
        # Gaussian elimination without pivoting on [T(z_k) | X]: column p below the diagonal is
        # eliminated with row p (a rank-one update of the trailing matrix and of X's rows).
        for p in range(N):
            inv = 1.0 / Tz[p, p]
            lcol[p + 1:N, 0:1] = Tz[p + 1:N, p:p + 1] * inv
            urow[0:1, p + 1:N] = Tz[p:p + 1, p + 1:N]
            xrow[0:1, :] = X[p:p + 1, :]
            Tz[p + 1:N, p + 1:N] -= lcol[p + 1:N, 0:1] * urow[0:1, p + 1:N]
            X[p + 1:N, :] -= lcol[p + 1:N, 0:1] * xrow[0:1, :]
        # Back substitution with the upper triangle (q = N-1 down to 0).
        for r in range(N):
            q = N - 1 - r
            X[q, :] = (X[q, :] - Tz[q, q + 1:N] @ X[q + 1:N, :]) / Tz[q, q]
        wk = w[k]
        P0[:, :] += wk * X
        P1[:, :] += (wk * zk) * X

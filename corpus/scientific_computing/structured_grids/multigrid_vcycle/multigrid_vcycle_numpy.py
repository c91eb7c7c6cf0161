"""multigrid_vcycle: NV geometric-multigrid V-cycles for the 2-D Poisson equation -Lap u = f on
the unit square with Dirichlet boundary values, 5-point differences on a grid of
N = 2^LEVELS + 1 points per side; weighted Jacobi smoothing (omega = 2/3, NU1 sweeps before
and NU2 after the coarse-grid correction), full-weighting restriction, bilinear interpolation,
and the exact solve of the coarsest grid's single unknown (Briggs, Henson and McCormick, A
Multigrid Tutorial, 2nd ed., ch. 3). The V-cycle is written without recursion: a descending
loop over the levels, the coarsest solve, an ascending loop; the grids of every level lie in
two flat arrays (iterates, right-hand sides) at per-level offsets."""

import numpy as np


def initialize(rng, LEVELS, NV, NU1, NU2):
    N = 2 ** LEVELS + 1
    # A random boundary and starting guess (so that every frequency of the error is present),
    # and a source f with a smooth part of a few random sine modes, scaled so that its share
    # of the solution is of order one, plus random noise of order one.
    s = np.linspace(0.0, 1.0, N)
    f = rng.uniform(-1.0, 1.0, (N, N))
    c = rng.uniform(-1.0, 1.0, (3, 3))
    for a in range(1, 4):
        for b in range(1, 4):
            f += c[a - 1, b - 1] * np.pi ** 2 * (a * a + b * b) * np.outer(np.sin(a * np.pi * s), np.sin(b * np.pi * s))
    return {"u": rng.uniform(-1.0, 1.0, (N, N)), "f": f}


def multigrid_vcycle(u, f, LEVELS, NV, NU1, NU2):
    nf = 2 ** LEVELS + 1
    omega = 2.0 / 3.0
    # Level l (0 the finest) has n = 2^(LEVELS - l) + 1 points per side, spacing 1 / (n - 1).
    # Its grid is stored with an even row length n + 1 (a last row and column of padding,
    # never read) as the (n + 1)^2 values from off[l] on, in W (the iterate on level 0, the
    # correction below) and in G (the right-hand side: f, then the restricted residuals).
    # Viewed as g4[a, r, b, c] = g[2a + r, 2b + c], the even and odd rows and columns that
    # restriction and interpolation reach with stride 2 are unit-stride slices.
    off = np.empty((LEVELS + 1,), dtype=np.int64)
    off[0] = 0
    for l in range(LEVELS):
        off[l + 1] = off[l] + (2 ** (LEVELS - l) + 2) * (2 ** (LEVELS - l) + 2)
    W = np.zeros((off[LEVELS],), dtype=np.float64)
    G = np.zeros((off[LEVELS],), dtype=np.float64)
    tmp = np.zeros(((nf + 1) * (nf + 1),), dtype=np.float64)   # a sweep's new values; the residual
    u0 = W[0:(nf + 1) * (nf + 1)].reshape(nf + 1, nf + 1)
    f0 = G[0:(nf + 1) * (nf + 1)].reshape(nf + 1, nf + 1)
    u0[0:nf, 0:nf] = u
    f0[0:nf, 0:nf] = f
    for it in range(NV):
        # Down: smooth, then restrict the residual to the next coarser level, whose
        # correction starts at zero (its boundary stays zero).
        for l in range(LEVELS - 1):
            n = 2 ** (LEVELS - l) + 1
            m = 2 ** (LEVELS - l - 1) + 1
            h2 = 1.0 / ((n - 1) * (n - 1))
            ul = W[off[l]:off[l + 1]].reshape(n + 1, n + 1)
            fl = G[off[l]:off[l + 1]].reshape(n + 1, n + 1)
            rl = tmp[0:(n + 1) * (n + 1)].reshape(n + 1, n + 1)
            r4 = tmp[0:(n + 1) * (n + 1)].reshape(m, 2, m, 2)
            for s in range(NU1):
                rl[1:n - 1, 1:n - 1] = (1.0 - omega) * ul[1:n - 1, 1:n - 1] + (0.25 * omega) * (
                    h2 * fl[1:n - 1, 1:n - 1] + ul[0:n - 2, 1:n - 1] + ul[2:n, 1:n - 1]
                    + ul[1:n - 1, 0:n - 2] + ul[1:n - 1, 2:n])
                ul[1:n - 1, 1:n - 1] = rl[1:n - 1, 1:n - 1]
            # residual r = f - A u, A u = (4 u - the four neighbours) / h^2 (restriction reads
            # only interior points)
            rl[1:n - 1, 1:n - 1] = fl[1:n - 1, 1:n - 1] - (
                4.0 * ul[1:n - 1, 1:n - 1] - ul[0:n - 2, 1:n - 1] - ul[2:n, 1:n - 1]
                - ul[1:n - 1, 0:n - 2] - ul[1:n - 1, 2:n]) / h2
            # full weighting: coarse (I, J), I, J = 1 .. m - 2, from fine (2I, 2J) and its
            # eight neighbours; fine row 2I is r4[I, 0], 2I - 1 is r4[I - 1, 1], 2I + 1 r4[I, 1].
            uc = W[off[l + 1]:off[l + 2]].reshape(m + 1, m + 1)
            fc = G[off[l + 1]:off[l + 2]].reshape(m + 1, m + 1)
            fc[1:m - 1, 1:m - 1] = 0.0625 * (
                4.0 * r4[1:m - 1, 0, 1:m - 1, 0]
                + 2.0 * (r4[0:m - 2, 1, 1:m - 1, 0] + r4[1:m - 1, 1, 1:m - 1, 0]
                         + r4[1:m - 1, 0, 0:m - 2, 1] + r4[1:m - 1, 0, 1:m - 1, 1])
                + r4[0:m - 2, 1, 0:m - 2, 1] + r4[0:m - 2, 1, 1:m - 1, 1]
                + r4[1:m - 1, 1, 0:m - 2, 1] + r4[1:m - 1, 1, 1:m - 1, 1])
            uc[1:m - 1, 1:m - 1] = 0.0
        # The coarsest level (3 x 3, spacing 1/2: one unknown) is solved exactly.
        lc = LEVELS - 1
        ul = W[off[lc]:off[lc + 1]].reshape(4, 4)
        fl = G[off[lc]:off[lc + 1]].reshape(4, 4)
        ul[1, 1] = 0.25 * (0.25 * fl[1, 1] + ul[0, 1] + ul[2, 1] + ul[1, 0] + ul[1, 2])
        # Up: add the bilinear interpolation of the next coarser level's correction, then smooth.
        for k in range(LEVELS - 1):
            lv = LEVELS - 2 - k
            n = 2 ** (LEVELS - lv) + 1
            m = 2 ** (LEVELS - lv - 1) + 1
            h2 = 1.0 / ((n - 1) * (n - 1))
            ul = W[off[lv]:off[lv + 1]].reshape(n + 1, n + 1)
            fl = G[off[lv]:off[lv + 1]].reshape(n + 1, n + 1)
            u4 = W[off[lv]:off[lv + 1]].reshape(m, 2, m, 2)
            rl = tmp[0:(n + 1) * (n + 1)].reshape(n + 1, n + 1)
            uc = W[off[lv + 1]:off[lv + 2]].reshape(m + 1, m + 1)
            # fine (2I, 2J) = u4[I, 0, J, 0] takes coarse (I, J); (2I + 1, 2J) the mean of
            # (I, J) and (I + 1, J); (2I, 2J + 1) of (I, J) and (I, J + 1); (2I + 1, 2J + 1)
            # of the four around it. The coarse boundary is zero.
            u4[1:m - 1, 0, 1:m - 1, 0] += uc[1:m - 1, 1:m - 1]
            u4[0:m - 1, 1, 1:m - 1, 0] += 0.5 * (uc[0:m - 1, 1:m - 1] + uc[1:m, 1:m - 1])
            u4[1:m - 1, 0, 0:m - 1, 1] += 0.5 * (uc[1:m - 1, 0:m - 1] + uc[1:m - 1, 1:m])
            u4[0:m - 1, 1, 0:m - 1, 1] += 0.25 * (uc[0:m - 1, 0:m - 1] + uc[1:m, 0:m - 1]
                                                  + uc[0:m - 1, 1:m] + uc[1:m, 1:m])
            for s in range(NU2):
                rl[1:n - 1, 1:n - 1] = (1.0 - omega) * ul[1:n - 1, 1:n - 1] + (0.25 * omega) * (
                    h2 * fl[1:n - 1, 1:n - 1] + ul[0:n - 2, 1:n - 1] + ul[2:n, 1:n - 1]
                    + ul[1:n - 1, 0:n - 2] + ul[1:n - 1, 2:n])
                ul[1:n - 1, 1:n - 1] = rl[1:n - 1, 1:n - 1]
    u[1:nf - 1, 1:nf - 1] = u0[1:nf - 1, 1:nf - 1]

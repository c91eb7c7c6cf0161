"""lavamd: Rodinia lavaMD's box-neighbour particle interaction. Particles live in a
BX x BY x BZ grid of unit boxes, NP per box; each particle's potential and force are summed
over the particles of its own box and of its (up to 26) neighbour boxes, with the Gaussian
pair term v_ij = q_j exp(-2 alpha^2 |r_i - r_j|^2) and force 2 v_ij (r_i - r_j)."""

import numpy as np


def initialize(rng, BX, BY, BZ, NP):
    # Box b = (ix * BY + iy) * BZ + iz holds particles b * NP .. b * NP + NP - 1, placed
    # uniformly inside the unit cube [ix, ix + 1) x [iy, iy + 1) x [iz, iz + 1).
    nbox = BX * BY * BZ
    origin = np.stack(np.meshgrid(np.arange(BX), np.arange(BY), np.arange(BZ), indexing="ij"), axis=-1)
    origin = np.repeat(origin.reshape(nbox, 3).astype(np.float64), NP, axis=0)
    return {
        "pos": origin + rng.random((nbox * NP, 3)),
        "q": rng.uniform(0.1, 1.0, nbox * NP),
        "alpha": 0.75,
    }


def lavamd(pos, q, pot, force, alpha, BX, BY, BZ, NP):
    a2 = 2.0 * alpha * alpha
    pot[:] = 0.0
    force[:, :] = 0.0
    dx = np.empty((NP, NP), dtype=np.float64)
    dy = np.empty((NP, NP), dtype=np.float64)
    dz = np.empty((NP, NP), dtype=np.float64)
    w = np.empty((NP, NP), dtype=np.float64)
    for ix in range(BX):
        for iy in range(BY):
            for iz in range(BZ):
                h = ((ix * BY + iy) * BZ + iz) * NP
                # The home box and its neighbours inside the grid (no periodic wrap).
                for jx in range(ix - 1, ix + 2):
                    for jy in range(iy - 1, iy + 2):
                        for jz in range(iz - 1, iz + 2):
                            if jx >= 0 and jx < BX and jy >= 0 and jy < BY and jz >= 0 and jz < BZ:
                                nb = ((jx * BY + jy) * BZ + jz) * NP
                                # All NP x NP pairs (i in the home box, j in the neighbour).
                                dx[:, :] = pos[h:h + NP, 0:1] - pos[nb:nb + NP, 0]
                                dy[:, :] = pos[h:h + NP, 1:2] - pos[nb:nb + NP, 1]
                                dz[:, :] = pos[h:h + NP, 2:3] - pos[nb:nb + NP, 2]
                                w[:, :] = q[nb:nb + NP] * np.exp(-a2 * (dx * dx + dy * dy + dz * dz))
                                pot[h:h + NP] += np.sum(w, axis=1)
                                force[h:h + NP, 0] += 2.0 * np.sum(w * dx, axis=1)
                                force[h:h + NP, 1] += 2.0 * np.sum(w * dy, axis=1)
                                force[h:h + NP, 2] += 2.0 * np.sum(w * dz, axis=1)

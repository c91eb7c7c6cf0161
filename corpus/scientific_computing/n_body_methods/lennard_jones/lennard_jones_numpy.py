"""lennard_jones: Lennard-Jones forces and total potential energy of N particles in a periodic
cubic box (reduced units, epsilon = sigma = 1), all pairs with the minimum-image convention
and a cutoff radius rc (truncated, not shifted)."""

import numpy as np


def initialize(rng, N):
    # A jittered simple-cubic lattice of spacing 1.1 (a liquid-like density of about 0.75):
    # N of its m^3 sites, m = ceil(N^(1/3)), chosen at random, each moved by up to 0.11 per
    # axis, so no two particles are closer than 0.88. The box is m lattice spacings wide;
    # rc = 2.5, or less than half the box where the box is small.
    m = int(round(N ** (1.0 / 3.0)))
    m += int(m ** 3 < N)
    spacing = 1.1
    sites = np.stack(np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij"), axis=-1)
    sites = sites.reshape(m ** 3, 3)[rng.permutation(m ** 3)[:N]].astype(np.float64)
    pos = (sites + 0.5 + rng.uniform(-0.1, 0.1, (N, 3))) * spacing
    box = m * spacing
    return {"pos": pos, "box": box, "rc": min(2.5, 0.45 * box)}


def lennard_jones(pos, force, box, rc, N):
    rc2 = rc * rc
    dx = np.empty((N,), dtype=np.float64)
    dy = np.empty((N,), dtype=np.float64)
    dz = np.empty((N,), dtype=np.float64)
    r2 = np.empty((N,), dtype=np.float64)
    ir2 = np.empty((N,), dtype=np.float64)
    s6 = np.empty((N,), dtype=np.float64)
    fs = np.empty((N,), dtype=np.float64)
    total = 0.0
    for i in range(N):
        # Minimum image: each separation wrapped to the nearest periodic copy.
        dx[:] = pos[i, 0] - pos[:, 0]
        dx[:] = dx - box * np.floor(dx / box + 0.5)
        dy[:] = pos[i, 1] - pos[:, 1]
        dy[:] = dy - box * np.floor(dy / box + 0.5)
        dz[:] = pos[i, 2] - pos[:, 2]
        dz[:] = dz - box * np.floor(dz / box + 0.5)
        r2[:] = dx * dx + dy * dy + dz * dz
        r2[i] = rc2                      # the particle itself: put outside the cutoff
        # 1 / r^2 inside the cutoff, 0 outside it.
        ir2[:] = np.where(r2 < rc2, 1.0, 0.0) / r2
        s6[:] = ir2 * ir2 * ir2
        # U(r) = 4 (r^-12 - r^-6); F = 24 (2 r^-12 - r^-6) / r^2 * (r_i - r_j).
        fs[:] = 24.0 * ir2 * s6 * (2.0 * s6 - 1.0)
        force[i, 0] = np.sum(fs * dx)
        force[i, 1] = np.sum(fs * dy)
        force[i, 2] = np.sum(fs * dz)
        total += 0.5 * np.sum(4.0 * s6 * (s6 - 1.0))
    return total

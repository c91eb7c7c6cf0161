"""nbody: direct-sum softened gravity, NSTEPS symplectic-Euler steps (G = 1)."""

import numpy as np


def initialize(rng, N, NSTEPS):
    # A unit-scale Gaussian cluster of total mass 1 with small random velocities.
    return {
        "pos": rng.standard_normal((N, 3)),
        "vel": 0.3 * rng.standard_normal((N, 3)),
        "mass": rng.uniform(0.5, 1.5, N) / N,
        "dt": 0.05,
        "eps": 0.1,
    }


def nbody(pos, vel, mass, dt, eps, N, NSTEPS):
    acc = np.empty((N, 3), dtype=np.float64)
    dx = np.empty((N,), dtype=np.float64)
    dy = np.empty((N,), dtype=np.float64)
    dz = np.empty((N,), dtype=np.float64)
    r2 = np.empty((N,), dtype=np.float64)
    s = np.empty((N,), dtype=np.float64)
    eps2 = eps * eps
    for step in range(NSTEPS):
        for i in range(N):
            dx[:] = pos[:, 0] - pos[i, 0]
            dy[:] = pos[:, 1] - pos[i, 1]
            dz[:] = pos[:, 2] - pos[i, 2]
            r2[:] = dx * dx + dy * dy + dz * dz + eps2
            s[:] = mass / (r2 * np.sqrt(r2))
            acc[i, 0] = np.sum(s * dx)
            acc[i, 1] = np.sum(s * dy)
            acc[i, 2] = np.sum(s * dz)
        vel[:, :] += dt * acc
        pos[:, :] += dt * vel

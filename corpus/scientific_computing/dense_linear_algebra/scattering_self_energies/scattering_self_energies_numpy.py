"""scattering_self_energies: electron-phonon scattering self-energy of OMEN's self-consistent
Born approximation (NPBench scattering_self_energies),
Sigma[k, E, a] = sum_{q, w, b, i, j} G[k-q, E-w, f(a, b)] dH[a, b, i] dH[a, b, j] D[q, w, a, b, i, j],
terms whose shifted momentum or energy index falls below zero left out."""

import numpy as np


def initialize(rng, NK, NE, NQ, NW, NA, NB, N3D, NORB):
    def cnormal(shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) / np.sqrt(2.0)

    return {
        "neigh_idx": rng.integers(0, NA, size=(NA, NB)).astype(np.int64),
        "dH": cnormal((NA, NB, N3D, NORB, NORB)) / np.sqrt(NORB),
        "G": cnormal((NK, NE, NA, NORB, NORB)) / np.sqrt(NORB),
        "D": cnormal((NQ, NW, NA, NB, N3D, N3D)),
    }


def scattering_self_energies(neigh_idx, dH, G, D, Sigma, NK, NE, NQ, NW, NA, NB, N3D, NORB):
    acc = np.empty((NORB, NORB), dtype=np.complex128)
    dHG = np.empty((NORB, NORB), dtype=np.complex128)
    dHD = np.empty((NORB, NORB), dtype=np.complex128)
    for k in range(NK):
        for e in range(NE):
            for a in range(NA):
                acc[:, :] = 0.0
                for q in range(NQ):
                    for w in range(NW):
                        if k - q >= 0 and e - w >= 0:
                            for b in range(NB):
                                c = neigh_idx[a, b]
                                for i in range(N3D):
                                    # G(k-q, E-w) of the neighbour, times the Hamiltonian's
                                    # derivative along i ...
                                    dHG[:, :] = G[k - q, e - w, c, :, :] @ dH[a, b, i, :, :]
                                    # ... times sum_j D^{ij}(q, w) dH_j: the j sum done first.
                                    dHD[:, :] = D[q, w, a, b, i, 0] * dH[a, b, 0, :, :]
                                    for j in range(1, N3D):
                                        dHD[:, :] += D[q, w, a, b, i, j] * dH[a, b, j, :, :]
                                    acc[:, :] += dHG @ dHD
                Sigma[k, e, a, :, :] = acc

"""scattering_self_energies' independent check: NPBench's loop order (k, E, q, w, i, j, a, b, each
term G dH_i (dH_j D_ij) added to Sigma[k, E, a] directly) with the published momentum shift,
over explicit Python loops; and the whole sum as np.einsum over gathered, shifted arrays."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

NAMES = ["NK", "NE", "NQ", "NW", "NA", "NB", "N3D", "NORB"]


def loops(neigh_idx, dH, G, D, nk, ne, nq, nw, na, nb, n3d, norb):
    Sigma = np.zeros((nk, ne, na, norb, norb), dtype=complex)
    for k in range(nk):
        for E in range(ne):
            for q in range(nq):
                for w in range(nw):
                    for i in range(n3d):
                        for j in range(n3d):
                            for a in range(na):
                                for b in range(nb):
                                    if k - q >= 0 and E - w >= 0:
                                        dHG = G[k - q, E - w, neigh_idx[a, b]] @ dH[a, b, i]
                                        dHD = dH[a, b, j] * D[q, w, a, b, i, j]
                                        Sigma[k, E, a] += dHG @ dHD
    return Sigma


def by_einsum(neigh_idx, dH, G, D, nk, ne, nq, nw, na, nb, n3d, norb):
    # Gs[k, E, q, w] = G[k-q, E-w], zero where a shift leaves the range.
    Gs = np.zeros((nk, ne, nq, nw, na, norb, norb), dtype=complex)
    for q in range(min(nq, nk)):
        for w in range(min(nw, ne)):
            Gs[q:, w:, q, w] = G[:nk - q, :ne - w]
    Gn = Gs[:, :, :, :, neigh_idx]                   # (nk, ne, nq, nw, na, nb, norb, norb)
    return np.einsum("keqwabxy,abiyz,abjzt,qwabij->keaxt", Gn, dH, dH, D, optimize=True)


@each(sizes=[(1, 1, 1, 1, 1, 1, 1, 1), (2, 3, 2, 2, 3, 2, 3, 2), (3, 5, 2, 3, 4, 3, 3, 4),
             (4, 4, 4, 4, 2, 1, 2, 3), (2, 6, 1, 2, 2, 4, 3, 10)],
      seed=SEEDS)
def check_against_loops(kernel, sizes, seed):
    sz = dict(zip(NAMES, sizes))
    v, out = run(kernel, sz, seed)
    args = (v["neigh_idx"], v["dH"], v["G"], v["D"], *sizes)
    assert v["neigh_idx"].min() >= 0 and v["neigh_idx"].max() < sz["NA"]
    expected = loops(*args)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(out["Sigma"], expected, rtol=1e-10, atol=1e-12 * scale)
    np.testing.assert_allclose(out["Sigma"], by_einsum(*args), rtol=1e-10, atol=1e-12 * scale)
    if expected.size > 1:
        assert_judged_like_an_oracle(kernel, out, {"Sigma": expected})

"""cfd_euler: ITERS explicit pseudo-time steps of a cell-centred finite-volume solver for the
3D compressible Euler equations on an unstructured tetrahedral mesh (after Rodinia's cfd,
euler3d): per step a local step factor from each element's sound speed, then three Runge-Kutta
stages, each summing a Rusanov (local Lax-Friedrichs) flux over the element's four faces."""

import numpy as np


def _box(C):
    # C cubes as an a x b x c box, as close to a cube as C's divisors allow.
    a = max(d for d in range(1, round(C ** (1 / 3)) + 2) if d * d * d <= C and C % d == 0)
    rest = C // a
    b = max(d for d in range(1, round(rest ** 0.5) + 2) if d * d <= rest and rest % d == 0)
    return a, b, rest // b


def initialize(rng, NEL, ITERS):
    # The mesh: a box of unit cubes, each split into the 6 tetrahedra of Kuhn's subdivision
    # (a conforming mesh), vertices jittered, elements numbered in random order and each
    # element's four faces listed in random order.
    a, b, c = _box(NEL // 6)
    vid = np.arange((a + 1) * (b + 1) * (c + 1), dtype=np.int64).reshape(a + 1, b + 1, c + 1)
    gx, gy, gz = np.meshgrid(np.arange(a + 1), np.arange(b + 1), np.arange(c + 1), indexing="ij")
    pts = np.stack([gx.ravel(), gy.ravel(), gz.ravel()], axis=1).astype(np.float64)
    pts += rng.uniform(-0.08, 0.08, pts.shape)
    ci, cj, ck = (g.ravel() for g in np.meshgrid(np.arange(a), np.arange(b), np.arange(c), indexing="ij"))
    tets = []
    for s in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        off = np.zeros(3, dtype=np.int64)
        corners = [vid[ci, cj, ck]]
        for axis in s:
            off[axis] = 1
            corners.append(vid[ci + off[0], cj + off[1], ck + off[2]])
        tets.append(np.stack(corners, axis=1))
    tets = np.stack(tets, axis=1).reshape(NEL, 4)                        # cube by cube: vertex ids
    # Face f of a tetrahedron is the one opposite its vertex f.
    faces = np.stack([np.delete(tets, f, axis=1) for f in range(4)], axis=1)   # (NEL, 4, 3)
    P = pts[faces]                                                       # (NEL, 4, 3, 3)
    n = 0.5 * np.cross(P[:, :, 1] - P[:, :, 0], P[:, :, 2] - P[:, :, 0])
    inward = np.einsum("efk,efk->ef", n, pts[tets] - P[:, :, 0]) > 0.0
    n[inward] *= -1.0                                                    # outward, |n| = face area
    # Neighbours: the two element faces with the same three vertices.
    key = np.sort(faces, axis=2).reshape(-1, 3)
    order = np.lexsort((key[:, 2], key[:, 1], key[:, 0]))
    same = np.all(key[order[1:]] == key[order[:-1]], axis=1)
    nb = np.full(4 * NEL, -1, dtype=np.int64)
    first, second = order[:-1][same], order[1:][same]
    nb[first] = second // 4
    nb[second] = first // 4
    nb = nb.reshape(NEL, 4)
    # Numbering like a mesh generator's: cube by cube, each element moved by a random
    # offset of up to 256 places; each element's faces in random order.
    perm = np.empty(NEL, dtype=np.int64)                                 # old id -> new id
    perm[np.argsort(np.arange(NEL) + rng.uniform(0.0, 256.0, NEL), kind="stable")] = np.arange(NEL)
    slots = np.argsort(rng.random((NEL, 4)), axis=1)
    nb = np.take_along_axis(nb, slots, axis=1)
    n = np.take_along_axis(n, slots[:, :, None], axis=1)
    neighbours = np.empty((4, NEL), dtype=np.int64)
    normals = np.empty((4, 3, NEL))
    neighbours[:, perm] = np.where(nb >= 0, perm[np.maximum(nb, 0)], -1).T
    normals[:, :, perm] = n.transpose(1, 2, 0)
    # The flow: a free stream at Mach 0.5 (sound speed 1) and per-element perturbations.
    g = 1.4
    ff_v = np.array([0.5, 0.1, 0.05])
    ff_p = 1.0 / g
    ff = np.array([1.0, ff_v[0], ff_v[1], ff_v[2], ff_p / (g - 1.0) + 0.5 * ff_v @ ff_v])
    rho = 1.0 + 0.2 * rng.uniform(-1.0, 1.0, NEL)
    vel = ff_v[:, None] + 0.1 * rng.standard_normal((3, NEL))
    p = ff_p * (1.0 + 0.2 * rng.uniform(-1.0, 1.0, NEL))
    U = np.empty((5, NEL))
    U[0] = rho
    U[1:4] = rho * vel
    U[4] = p / (g - 1.0) + 0.5 * rho * np.sum(vel * vel, axis=0)
    return {"U": U, "neighbours": neighbours, "normals": normals, "ff": ff, "cfl": 0.5}


def cfd_euler(U, neighbours, normals, ff, cfl, NEL, ITERS):
    # W holds the state of the NEL elements and, in column NEL, a ghost element with the
    # far-field state: a boundary face's neighbour.
    W = np.empty((5, NEL + 1), dtype=np.float64)
    Wold = np.empty((5, NEL), dtype=np.float64)
    R = np.empty((5, NEL), dtype=np.float64)       # flux residual: sum over the faces of F.n
    Wb = np.empty((5, NEL), dtype=np.float64)      # the neighbour's state across face j
    p = np.empty((NEL + 1,), dtype=np.float64)     # pressure
    lam = np.empty((NEL + 1,), dtype=np.float64)   # |v| + c, the largest wave speed
    sf = np.empty((NEL,), dtype=np.float64)        # local step factor dt / volume
    nb = np.empty((NEL,), dtype=np.int64)
    area = np.empty((NEL,), dtype=np.float64)
    pb = np.empty((NEL,), dtype=np.float64)
    lamb = np.empty((NEL,), dtype=np.float64)
    vn = np.empty((NEL,), dtype=np.float64)
    vnb = np.empty((NEL,), dtype=np.float64)
    dis = np.empty((NEL,), dtype=np.float64)
    W[:, 0:NEL] = U
    W[:, NEL] = ff
    for it in range(ITERS):
        Wold[:, :] = W[:, 0:NEL]
        for stage in range(3):
            p[:] = 0.4 * (W[4] - 0.5 * (W[1] * W[1] + W[2] * W[2] + W[3] * W[3]) / W[0])
            lam[:] = np.sqrt(W[1] * W[1] + W[2] * W[2] + W[3] * W[3]) / W[0] + np.sqrt(1.4 * p / W[0])
            if stage == 0:
                # Local time stepping: dt / volume = cfl / (wave speed * surface area).
                sf[:] = 0.0
                for j in range(4):
                    sf[:] += np.sqrt(normals[j, 0] * normals[j, 0] + normals[j, 1] * normals[j, 1]
                                     + normals[j, 2] * normals[j, 2])
                sf[:] = cfl / (lam[0:NEL] * sf)
            R[:, :] = 0.0
            for j in range(4):
                nb[:] = np.where(neighbours[j] >= 0, neighbours[j], NEL)
                for k in range(5):
                    Wb[k, :] = W[k][nb]
                pb[:] = p[nb]
                lamb[:] = lam[nb]
                area[:] = np.sqrt(normals[j, 0] * normals[j, 0] + normals[j, 1] * normals[j, 1]
                                  + normals[j, 2] * normals[j, 2])
                vn[:] = (W[1, 0:NEL] * normals[j, 0] + W[2, 0:NEL] * normals[j, 1]
                         + W[3, 0:NEL] * normals[j, 2]) / W[0, 0:NEL]
                vnb[:] = (Wb[1] * normals[j, 0] + Wb[2] * normals[j, 1] + Wb[3] * normals[j, 2]) / Wb[0]
                dis[:] = 0.5 * area * np.maximum(lam[0:NEL], lamb)
                # Rusanov flux through the face: the mean of both sides' F.n plus dissipation.
                R[0, :] += 0.5 * (W[0, 0:NEL] * vn + Wb[0] * vnb) + dis * (W[0, 0:NEL] - Wb[0])
                R[1, :] += (0.5 * (W[1, 0:NEL] * vn + Wb[1] * vnb + (p[0:NEL] + pb) * normals[j, 0])
                            + dis * (W[1, 0:NEL] - Wb[1]))
                R[2, :] += (0.5 * (W[2, 0:NEL] * vn + Wb[2] * vnb + (p[0:NEL] + pb) * normals[j, 1])
                            + dis * (W[2, 0:NEL] - Wb[2]))
                R[3, :] += (0.5 * (W[3, 0:NEL] * vn + Wb[3] * vnb + (p[0:NEL] + pb) * normals[j, 2])
                            + dis * (W[3, 0:NEL] - Wb[3]))
                R[4, :] += (0.5 * ((W[4, 0:NEL] + p[0:NEL]) * vn + (Wb[4] + pb) * vnb)
                            + dis * (W[4, 0:NEL] - Wb[4]))
            # Runge-Kutta stage as in Rodinia (RK = 3): W = Wold - dt / (volume (RK + 1 - stage)) * R.
            W[:, 0:NEL] = Wold - (sf / (4 - stage)) * R
    U[:, :] = W[:, 0:NEL]

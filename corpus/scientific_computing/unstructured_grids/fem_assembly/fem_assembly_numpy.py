"""fem_assembly: y = K x for the global P1 finite-element stiffness matrix K of a 2D triangle
mesh, assembled on the fly: per triangle the 3 x 3 element stiffness matrix from its vertex
coordinates, times the triangle's values of x, scattered into y with indirect adds."""

import numpy as np


def initialize(rng, NX, NY):
    # The unit square cut into NX x NY cells, each split along a random diagonal into two
    # counter-clockwise triangles; interior vertices jittered by up to 0.15 of a cell.
    NV, NT = (NX + 1) * (NY + 1), 2 * NX * NY
    i, j = np.meshgrid(np.arange(NX + 1), np.arange(NY + 1), indexing="ij")
    pts = np.stack([i.ravel() / NX, j.ravel() / NY], axis=1)
    inner = (i.ravel() > 0) & (i.ravel() < NX) & (j.ravel() > 0) & (j.ravel() < NY)
    pts[inner] += rng.uniform(-0.15, 0.15, (int(inner.sum()), 2)) / np.array([NX, NY])
    ci, cj = (g.ravel() for g in np.meshgrid(np.arange(NX), np.arange(NY), indexing="ij"))
    v00, v10 = ci * (NY + 1) + cj, (ci + 1) * (NY + 1) + cj
    v01, v11 = v00 + 1, v10 + 1
    flip = (rng.random(NX * NY) < 0.5)[:, None]
    first = np.where(flip, np.stack([v00, v10, v01], axis=1), np.stack([v00, v10, v11], axis=1))
    second = np.where(flip, np.stack([v10, v11, v01], axis=1), np.stack([v00, v11, v01], axis=1))
    tris = np.stack([first, second], axis=1).reshape(NT, 3)
    # Each triangle's vertex list starts at a random corner (the orientation stays the same).
    shift = rng.integers(0, 3, NT)[:, None]
    tris = np.take_along_axis(tris, (np.arange(3)[None, :] + shift) % 3, axis=1)
    # Numbering like a mesh generator's: vertices row by row and triangles cell by cell, each
    # displaced up to 256 places at random.
    vperm = np.empty(NV, dtype=np.int64)                                 # old id -> new id
    vperm[np.argsort(np.arange(NV) + rng.uniform(0.0, 256.0, NV), kind="stable")] = np.arange(NV)
    coords = np.empty((NV, 2))
    coords[vperm] = pts
    tris = vperm[tris][np.argsort(np.arange(NT) + rng.uniform(0.0, 256.0, NT), kind="stable")]
    return {
        "coords": coords,
        "tris": tris.astype(np.int64),
        "kappa": rng.uniform(0.5, 2.0, NT),
        "x": rng.standard_normal(NV),
    }


def fem_assembly(coords, tris, kappa, x, y, NX, NY):
    NT = 2 * NX * NY
    b = np.empty((NT, 3), dtype=np.float64)        # b_a = y_{a+1} - y_{a+2}
    c = np.empty((NT, 3), dtype=np.float64)        # c_a = x_{a+2} - x_{a+1}
    s = np.empty((NT,), dtype=np.float64)
    Ke = np.empty((NT, 3, 3), dtype=np.float64)    # element stiffness matrices
    r = np.empty((NT, 3), dtype=np.float64)        # K_e x_e
    for a in range(3):
        a1 = (a + 1) % 3
        a2 = (a + 2) % 3
        b[:, a] = coords[:, 1][tris[:, a1]] - coords[:, 1][tris[:, a2]]
        c[:, a] = coords[:, 0][tris[:, a2]] - coords[:, 0][tris[:, a1]]
    # kappa / (4 area), with 2 area = b_0 c_1 - b_1 c_0 for a counter-clockwise triangle.
    s[:] = kappa / (2.0 * (b[:, 0] * c[:, 1] - b[:, 1] * c[:, 0]))
    for a in range(3):
        for q in range(3):
            Ke[:, a, q] = s * (b[:, a] * b[:, q] + c[:, a] * c[:, q])
    for a in range(3):
        r[:, a] = Ke[:, a, 0] * x[tris[:, 0]] + Ke[:, a, 1] * x[tris[:, 1]] + Ke[:, a, 2] * x[tris[:, 2]]
    # Assembly: the scatter-add into the global vector, triangle by triangle (vertices shared
    # by several triangles receive several adds).
    y[:] = 0.0
    for e in range(NT):
        for a in range(3):
            y[tris[e, a]] += r[e, a]

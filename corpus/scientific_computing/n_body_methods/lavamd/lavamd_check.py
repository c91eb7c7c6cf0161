"""lavamd's independent check: a particle-by-particle loop over every other particle, keeping
those whose box is within one box of the home box in each direction (box coordinates decoded
from the particle's index); and, on grids of at most 2 boxes a side, where every box is every
other's neighbour, the all-pairs sum by broadcasting."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _box_of(p, by, bz, np_):
    b = p // np_
    return b // (by * bz), (b // bz) % by, b % bz


@each(shape=[(1, 1, 1, 1), (1, 1, 1, 5), (3, 2, 1, 3), (2, 3, 4, 2), (4, 1, 3, 3)], seed=SEEDS)
def check_against_particle_loops(kernel, shape, seed):
    bx, by, bz, np_ = shape
    v, out = run(kernel, {"BX": bx, "BY": by, "BZ": bz, "NP": np_}, seed)
    pos, q = v["pos"].tolist(), v["q"].tolist()
    a2 = 2.0 * float(v["alpha"]) ** 2
    n = bx * by * bz * np_
    pot = [0.0] * n
    force = [[0.0, 0.0, 0.0] for _ in range(n)]
    for i in range(n):
        bi = _box_of(i, by, bz, np_)
        # the particle lies inside its own unit box
        assert all(bi[d] <= pos[i][d] < bi[d] + 1 for d in range(3))
        terms = [[], [], [], []]
        for j in range(n):
            bj = _box_of(j, by, bz, np_)
            if max(abs(bi[d] - bj[d]) for d in range(3)) <= 1:
                d = [pos[i][k] - pos[j][k] for k in range(3)]
                e = q[j] * math.exp(-a2 * (d[0] ** 2 + d[1] ** 2 + d[2] ** 2))
                terms[0].append(e)
                for k in range(3):
                    terms[k + 1].append(2.0 * e * d[k])
        pot[i] = math.fsum(terms[0])
        force[i] = [math.fsum(terms[k + 1]) for k in range(3)]
    pot, force = np.array(pot), np.array(force)
    np.testing.assert_allclose(out["pot"], pot, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["force"], force, rtol=1e-12, atol=1e-12)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"pot": pot, "force": force})


@each(seed=SEEDS)
def check_all_pairs_when_every_box_neighbours(kernel, seed):
    v, out = run(kernel, {"BX": 2, "BY": 2, "BZ": 2, "NP": 7}, seed)
    pos, q, alpha = v["pos"], v["q"], float(v["alpha"])
    d = pos[:, None, :] - pos[None, :, :]
    e = q[None, :] * np.exp(-2.0 * alpha * alpha * np.einsum("ijk,ijk->ij", d, d))
    pot = e.sum(axis=1)
    force = 2.0 * np.einsum("ij,ijk->ik", e, d)
    np.testing.assert_allclose(out["pot"], pot, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["force"], force, rtol=1e-12, atol=1e-12)
    assert np.abs(force).max() > 0.1 and pot.min() > q.min()   # self term plus neighbours
    assert_judged_like_an_oracle(kernel, out, {"pot": pot, "force": force})

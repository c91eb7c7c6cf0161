"""cfd_euler's independent check: Rodinia's per-element loop nest (for each element, for each of
its 4 faces: read the neighbour or the far-field state, add the face's flux) over Python floats,
with the Euler flux written from the primitive variables; and the mesh's geometry: closed
elements, opposite normals on shared faces, and a free stream that the scheme preserves."""

import math

import numpy as np

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

G = 1.4


def _primitive(q):
    rho, mx, my, mz, e = q
    u, v, w = mx / rho, my / rho, mz / rho
    pres = (G - 1.0) * (e - 0.5 * rho * (u * u + v * v + w * w))
    return rho, u, v, w, e, pres, math.sqrt(u * u + v * v + w * w) + math.sqrt(G * pres / rho)


def _euler_flux(q, n):
    # F(q).n for the Euler equations, from density, velocity, energy and pressure.
    rho, u, v, w, e, pres, _ = _primitive(q)
    un = u * n[0] + v * n[1] + w * n[2]
    return [rho * un, rho * u * un + pres * n[0], rho * v * un + pres * n[1],
            rho * w * un + pres * n[2], (e + pres) * un]


def _solve(U, nbr, nrm, ff, cfl, nel, iters):
    U = [[float(U[k, i]) for k in range(5)] for i in range(nel)]
    ff = [float(x) for x in ff]
    for _ in range(iters):
        old = [list(q) for q in U]
        step = []
        for i in range(nel):
            surface = sum(math.sqrt(sum(float(nrm[j, d, i]) ** 2 for d in range(3))) for j in range(4))
            step.append(cfl / (_primitive(U[i])[6] * surface))
        for stage in range(3):
            flux = [[0.0] * 5 for _ in range(nel)]
            for i in range(nel):
                si = _primitive(U[i])[6]
                for j in range(4):
                    n = [float(nrm[j, d, i]) for d in range(3)]
                    other = U[nbr[j, i]] if nbr[j, i] >= 0 else ff
                    a, b = _euler_flux(U[i], n), _euler_flux(other, n)
                    lam = max(si, _primitive(other)[6]) * math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
                    for k in range(5):
                        flux[i][k] += 0.5 * (a[k] + b[k]) + 0.5 * lam * (U[i][k] - other[k])
            U = [[old[i][k] - step[i] / (4 - stage) * flux[i][k] for k in range(5)] for i in range(nel)]
    return np.array(U).T


@each(shape=[(6, 1), (42, 2), (48, 3), (150, 2)], seed=SEEDS)
def check_against_element_loops(kernel, shape, seed):
    nel, iters = shape
    v, out = run(kernel, {"NEL": nel, "ITERS": iters}, seed)
    expected = _solve(v["U"], v["neighbours"], v["normals"], v["ff"], float(v["cfl"]), nel, iters)
    np.testing.assert_allclose(out["U"], expected, rtol=1e-12, atol=1e-13)
    assert np.abs(out["U"] - v["U"]).max() > 1e-2           # the step changes the state
    assert_judged_like_an_oracle(kernel, out, {"U": expected})


@each(nel=[6, 48, 6 * 3 * 4 * 5], seed=SEEDS)
def check_mesh(kernel, nel, seed):
    v, _ = run(kernel, {"NEL": nel, "ITERS": 1}, seed)
    nbr, nrm = v["neighbours"], v["normals"]
    assert nbr.min() >= -1 and nbr.max() < nel
    np.testing.assert_allclose(nrm.sum(axis=0), 0.0, atol=1e-14)   # each tetrahedron is closed
    for i in range(nel):
        for j in range(4):
            k = nbr[j, i]
            if k >= 0:
                back = np.flatnonzero(nbr[:, k] == i)
                assert len(back) == 1
                np.testing.assert_allclose(nrm[back[0], :, k], -nrm[j, :, i], atol=1e-15)


@each(seed=SEEDS)
def check_free_stream_is_preserved(kernel, seed):
    # With the far-field state everywhere every element's fluxes cancel (its faces' normals sum
    # to zero): the reference leaves it unchanged.
    nel = 150
    case = explicit_case(kernel, {"NEL": nel, "ITERS": 2}, seed)
    v = make_inputs(kernel, case)
    v["U"] = np.repeat(v["ff"][:, None], nel, axis=1)
    got = run_oracle(kernel, case, v)["U"]
    np.testing.assert_allclose(got, v["U"], rtol=1e-14, atol=1e-14)

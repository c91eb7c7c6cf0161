"""cavity_flow's independent check: the course's scheme point by point over Python lists
(source, Jacobi sweeps with the cavity's pressure conditions, momentum, walls and lid), and
the boundary values the scheme must leave."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _simulate(u, v, p, rho, nu, dt, ny, nx, nt, nit):
    dx = 2.0 / (nx - 1)
    dy = 2.0 / (ny - 1)
    for _ in range(nt):
        un = [row[:] for row in u]
        vn = [row[:] for row in v]
        b = [[0.0] * nx for _ in range(ny)]
        for j in range(1, ny - 1):
            for i in range(1, nx - 1):
                ux = (u[j][i + 1] - u[j][i - 1]) / (2.0 * dx)
                uy = (u[j + 1][i] - u[j - 1][i]) / (2.0 * dy)
                vx = (v[j][i + 1] - v[j][i - 1]) / (2.0 * dx)
                vy = (v[j + 1][i] - v[j - 1][i]) / (2.0 * dy)
                b[j][i] = rho * ((ux + vy) / dt - ux * ux - 2.0 * uy * vx - vy * vy)
        for _ in range(nit):
            pn = [row[:] for row in p]
            for j in range(1, ny - 1):
                for i in range(1, nx - 1):
                    p[j][i] = (((pn[j][i + 1] + pn[j][i - 1]) * dy * dy
                                + (pn[j + 1][i] + pn[j - 1][i]) * dx * dx
                                - b[j][i] * dx * dx * dy * dy) / (2.0 * (dx * dx + dy * dy)))
            for j in range(ny):
                p[j][nx - 1] = p[j][nx - 2]
            p[0] = p[1][:]
            for j in range(ny):
                p[j][0] = p[j][1]
            p[ny - 1] = [0.0] * nx
        for j in range(1, ny - 1):
            for i in range(1, nx - 1):
                uc, vc = un[j][i], vn[j][i]
                lap_u = ((un[j][i + 1] - 2.0 * uc + un[j][i - 1]) / (dx * dx)
                         + (un[j + 1][i] - 2.0 * uc + un[j - 1][i]) / (dy * dy))
                lap_v = ((vn[j][i + 1] - 2.0 * vc + vn[j][i - 1]) / (dx * dx)
                         + (vn[j + 1][i] - 2.0 * vc + vn[j - 1][i]) / (dy * dy))
                u[j][i] = uc + dt * (-uc * (uc - un[j][i - 1]) / dx - vc * (uc - un[j - 1][i]) / dy
                                     - (p[j][i + 1] - p[j][i - 1]) / (2.0 * rho * dx) + nu * lap_u)
                v[j][i] = vc + dt * (-uc * (vc - vn[j][i - 1]) / dx - vc * (vc - vn[j - 1][i]) / dy
                                     - (p[j + 1][i] - p[j - 1][i]) / (2.0 * rho * dy) + nu * lap_v)
        for i in range(nx):
            u[0][i] = 0.0
            v[0][i] = 0.0
            v[ny - 1][i] = 0.0
        for j in range(ny):
            u[j][0] = u[j][nx - 1] = 0.0
            v[j][0] = v[j][nx - 1] = 0.0
        u[ny - 1] = [1.0] * nx
    return u, v, p


@each(size=[(4, 4, 1, 1), (5, 7, 3, 4), (9, 6, 5, 10), (12, 11, 4, 3)], seed=SEEDS)
def check_against_loops(kernel, size, seed):
    ny, nx, nt, nit = size
    v_, out = run(kernel, {"NY": ny, "NX": nx, "NT": nt, "NIT": nit}, seed)
    u, v, p = _simulate(v_["u"].tolist(), v_["v"].tolist(), v_["p"].tolist(), float(v_["rho"]),
                        float(v_["nu"]), float(v_["dt"]), ny, nx, nt, nit)
    expected = {"u": np.array(u), "v": np.array(v), "p": np.array(p)}
    for name in ("u", "v", "p"):
        scale = np.abs(expected[name]).max()
        np.testing.assert_allclose(out[name], expected[name], rtol=1e-10, atol=1e-12 * scale)
    assert_judged_like_an_oracle(kernel, out, expected)


@each(seed=SEEDS)
def check_boundaries(kernel, seed):
    ny, nx = 10, 13
    _, out = run(kernel, {"NY": ny, "NX": nx, "NT": 3, "NIT": 5}, seed)
    u, v, p = out["u"], out["v"], out["p"]
    np.testing.assert_array_equal(u[ny - 1, :], 1.0)
    np.testing.assert_array_equal(u[0:ny - 1, 0], 0.0)
    np.testing.assert_array_equal(u[0:ny - 1, nx - 1], 0.0)
    np.testing.assert_array_equal(u[0, :], 0.0)
    for edge in (v[0, :], v[ny - 1, :], v[:, 0], v[:, nx - 1], p[ny - 1, :]):
        np.testing.assert_array_equal(edge, 0.0)
    np.testing.assert_array_equal(p[0, 1:nx - 1], p[1, 1:nx - 1])
    np.testing.assert_array_equal(p[1:ny - 1, 0], p[1:ny - 1, 1])
    np.testing.assert_array_equal(p[1:ny - 1, nx - 1], p[1:ny - 1, nx - 2])
    # The interior moved away from the walls' values: the flow is not trivial.
    assert np.abs(v[1:ny - 1, 1:nx - 1]).max() > 1e-3

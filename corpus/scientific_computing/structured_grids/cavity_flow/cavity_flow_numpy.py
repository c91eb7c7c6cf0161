"""cavity_flow: NT explicit time steps of the incompressible Navier-Stokes equations in the
lid-driven square cavity, the pressure from NIT Jacobi sweeps of its Poisson equation per step
(Barba & Forsyth, CFD Python, step 11)."""

import numpy as np


def initialize(rng, NY, NX, NT, NIT):
    # A smooth random flow and pressure on the cavity [0, 2] x [0, 2] (a few low modes with
    # random amplitudes and phases, plus a little noise at every point), water-like rho and
    # the course's nu = 0.1; dt keeps the explicit viscous step well inside its stability
    # limit (nu dt / h^2 <= 0.1) and is at most the course's 0.001.
    y = np.linspace(0.0, 2.0, NY)[:, None]
    x = np.linspace(0.0, 2.0, NX)[None, :]
    fields = {}
    for name, amp in (("u", 0.5), ("v", 0.5), ("p", 1.0)):
        f = 0.02 * amp * rng.uniform(-1.0, 1.0, (NY, NX))
        for m in range(1, 4):
            for n in range(1, 4):
                a, px, py = rng.uniform(-amp, amp), rng.uniform(0.0, 2.0 * np.pi), rng.uniform(0.0, 2.0 * np.pi)
                f = f + a / (m * n) * np.sin(0.5 * m * np.pi * x + px) * np.sin(0.5 * n * np.pi * y + py)
        fields[name] = f
    nu = 0.1
    h = 2.0 / (max(NY, NX) - 1)
    fields["rho"] = 1.0
    fields["nu"] = nu
    fields["dt"] = min(0.001, 0.1 * h * h / nu)
    return fields


def cavity_flow(u, v, p, rho, nu, dt, NY, NX, NT, NIT):
    # Grid spacing of the square [0, 2] x [0, 2]; rows are y, columns x.
    dx = 2.0 / (NX - 1)
    dy = 2.0 / (NY - 1)
    un = np.empty((NY, NX), dtype=np.float64)
    vn = np.empty((NY, NX), dtype=np.float64)
    pn = np.empty((NY, NX), dtype=np.float64)
    # b: the Poisson equation's source, on the interior points only.
    b = np.empty((NY, NX), dtype=np.float64)
    for n in range(NT):
        un[:, :] = u
        vn[:, :] = v
        # Source term: rho (div(u) / dt - ux^2 - 2 uy vx - vy^2), central differences.
        b[1:NY - 1, 1:NX - 1] = rho * (
            1.0 / dt * ((u[1:NY - 1, 2:NX] - u[1:NY - 1, 0:NX - 2]) / (2.0 * dx)
                        + (v[2:NY, 1:NX - 1] - v[0:NY - 2, 1:NX - 1]) / (2.0 * dy))
            - ((u[1:NY - 1, 2:NX] - u[1:NY - 1, 0:NX - 2]) / (2.0 * dx)) ** 2
            - 2.0 * ((u[2:NY, 1:NX - 1] - u[0:NY - 2, 1:NX - 1]) / (2.0 * dy)
                     * (v[1:NY - 1, 2:NX] - v[1:NY - 1, 0:NX - 2]) / (2.0 * dx))
            - ((v[2:NY, 1:NX - 1] - v[0:NY - 2, 1:NX - 1]) / (2.0 * dy)) ** 2)
        # NIT Jacobi sweeps of the pressure Poisson equation, with dp/dn = 0 on the walls
        # and p = 0 on the lid.
        for q in range(NIT):
            pn[:, :] = p
            p[1:NY - 1, 1:NX - 1] = (
                ((pn[1:NY - 1, 2:NX] + pn[1:NY - 1, 0:NX - 2]) * dy ** 2
                 + (pn[2:NY, 1:NX - 1] + pn[0:NY - 2, 1:NX - 1]) * dx ** 2)
                / (2.0 * (dx ** 2 + dy ** 2))
                - dx ** 2 * dy ** 2 / (2.0 * (dx ** 2 + dy ** 2)) * b[1:NY - 1, 1:NX - 1])
            p[:, NX - 1] = p[:, NX - 2]
            p[0, :] = p[1, :]
            p[:, 0] = p[:, 1]
            p[NY - 1, :] = 0.0
        # Momentum: backward-difference convection, the pressure gradient, central diffusion.
        u[1:NY - 1, 1:NX - 1] = (
            un[1:NY - 1, 1:NX - 1]
            - un[1:NY - 1, 1:NX - 1] * dt / dx * (un[1:NY - 1, 1:NX - 1] - un[1:NY - 1, 0:NX - 2])
            - vn[1:NY - 1, 1:NX - 1] * dt / dy * (un[1:NY - 1, 1:NX - 1] - un[0:NY - 2, 1:NX - 1])
            - dt / (2.0 * rho * dx) * (p[1:NY - 1, 2:NX] - p[1:NY - 1, 0:NX - 2])
            + nu * (dt / dx ** 2 * (un[1:NY - 1, 2:NX] - 2.0 * un[1:NY - 1, 1:NX - 1] + un[1:NY - 1, 0:NX - 2])
                    + dt / dy ** 2 * (un[2:NY, 1:NX - 1] - 2.0 * un[1:NY - 1, 1:NX - 1] + un[0:NY - 2, 1:NX - 1])))
        v[1:NY - 1, 1:NX - 1] = (
            vn[1:NY - 1, 1:NX - 1]
            - un[1:NY - 1, 1:NX - 1] * dt / dx * (vn[1:NY - 1, 1:NX - 1] - vn[1:NY - 1, 0:NX - 2])
            - vn[1:NY - 1, 1:NX - 1] * dt / dy * (vn[1:NY - 1, 1:NX - 1] - vn[0:NY - 2, 1:NX - 1])
            - dt / (2.0 * rho * dy) * (p[2:NY, 1:NX - 1] - p[0:NY - 2, 1:NX - 1])
            + nu * (dt / dx ** 2 * (vn[1:NY - 1, 2:NX] - 2.0 * vn[1:NY - 1, 1:NX - 1] + vn[1:NY - 1, 0:NX - 2])
                    + dt / dy ** 2 * (vn[2:NY, 1:NX - 1] - 2.0 * vn[1:NY - 1, 1:NX - 1] + vn[0:NY - 2, 1:NX - 1])))
        # No slip on the walls; the lid (the last row) moves at velocity 1.
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, NX - 1] = 0.0
        u[NY - 1, :] = 1.0
        v[0, :] = 0.0
        v[NY - 1, :] = 0.0
        v[:, 0] = 0.0
        v[:, NX - 1] = 0.0

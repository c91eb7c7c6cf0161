"""hotspot's independent check: the model's heat balance written cell by cell in plain Python
(a flux (T_nb - T) / R from each neighbour that exists, which is what the clamped neighbour
gives), at small and degenerate grids; and the closed form of a uniform grid, where only the
power and the ambient act."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _constants(R, C):
    gh, gw = 0.016 / R, 0.016 / C
    t_chip, k_si, spec_heat = 0.0005, 100.0, 1.75e6
    cap = 0.5 * spec_heat * t_chip * gw * gh
    rx = gw / (2.0 * k_si * t_chip * gh)
    ry = gh / (2.0 * k_si * t_chip * gw)
    rz = t_chip / (k_si * gh * gw)
    step = 0.001 / (3.0e6 / (0.5 * t_chip * spec_heat))
    return cap, rx, ry, rz, step


def _loops(temp, power, NT, R, C):
    cap, rx, ry, rz, step = _constants(R, C)
    T = temp.tolist()
    P = power.tolist()
    for _ in range(NT):
        new = [[0.0] * C for _ in range(R)]
        for r in range(R):
            for c in range(C):
                flux = P[r][c] + (80.0 - T[r][c]) / rz
                if r > 0:
                    flux += (T[r - 1][c] - T[r][c]) / ry
                if r < R - 1:
                    flux += (T[r + 1][c] - T[r][c]) / ry
                if c > 0:
                    flux += (T[r][c - 1] - T[r][c]) / rx
                if c < C - 1:
                    flux += (T[r][c + 1] - T[r][c]) / rx
                new[r][c] = T[r][c] + step / cap * flux
        T = new
    return np.array(T)


@each(sizes=[(1, 1, 1), (3, 1, 7), (2, 6, 1), (1, 2, 2), (5, 6, 9), (7, 13, 11), (4, 40, 33)], seed=SEEDS)
def check_against_cell_loops(kernel, sizes, seed):
    NT, R, C = sizes
    v, out = run(kernel, {"NT": NT, "R": R, "C": C}, seed)
    expected = _loops(v["temp"], v["power"], NT, R, C)
    np.testing.assert_allclose(out["temp"], expected, rtol=1e-12, atol=1e-9)
    if R * C > 4:
        assert np.ptp(out["temp"] - v["temp"]) > 1e-6          # informative: cells differ
        assert_judged_like_an_oracle(kernel, out, {"temp": expected})


@each(sizes=[(1, 3, 4), (9, 30, 17)])
def check_uniform_grid_closed_form(kernel, sizes):
    # A uniform grid under uniform power has no lateral flux: every cell follows
    # T <- T + (step / Cap) (P + (80 - T) / Rz), a linear recurrence with a closed form.
    NT, R, C = sizes
    cap, rx, ry, rz, step = _constants(R, C)
    temp = np.full((R, C), 330.0)
    power = np.full((R, C), 0.7)
    kernel.reference().function(temp, power, NT, R, C)
    a = step / cap / rz
    fixed = 80.0 + 0.7 * rz                         # the steady state of the recurrence
    expected = fixed + (330.0 - fixed) * (1.0 - a) ** NT
    np.testing.assert_allclose(temp, expected, rtol=1e-12)

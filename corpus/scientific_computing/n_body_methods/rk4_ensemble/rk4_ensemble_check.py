"""rk4_ensemble's independent check: each member integrated on its own with scalar Python floats
(the Butcher tableau of classical RK4 applied step by step), and the final states against an
adaptive high-accuracy solution of the same ODE (scipy's DOP853), which RK4 with h = 0.01
matches to its truncation error."""

import numpy as np
from scipy.integrate import solve_ivp

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run

# Butcher tableau of the classical RK4 method.
A = [[], [0.5], [0.0, 0.5], [0.0, 0.0, 1.0]]
B = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0]


def _f(mu, x, v):
    return v, mu * (1.0 - x * x) * v - x


def _rk4_member(x, v, mu, h, nt):
    for _ in range(nt):
        ks = []
        for i in range(4):
            xi = x + h * sum(A[i][j] * ks[j][0] for j in range(i))
            vi = v + h * sum(A[i][j] * ks[j][1] for j in range(i))
            ks.append(_f(mu, xi, vi))
        x = x + h * sum(B[i] * ks[i][0] for i in range(4))
        v = v + h * sum(B[i] * ks[i][1] for i in range(4))
    return x, v


@each(size=[(1, 1), (1, 7), (3, 2), (17, 40), (64, 250)], seed=SEEDS)
def check_against_scalar_loops(kernel, size, seed):
    ne, nt = size
    v, out = run(kernel, {"NE": ne, "NT": nt}, seed)
    y0, mu, h = v["y"], v["mu"], float(v["h"])
    expected = np.array([_rk4_member(float(y0[m, 0]), float(y0[m, 1]), float(mu[m]), h, nt)
                         for m in range(ne)])
    np.testing.assert_allclose(out["y"], expected, rtol=1e-12, atol=1e-13)
    if ne > 1:
        assert_judged_like_an_oracle(kernel, out, {"y": expected})


@each(seed=SEEDS)
def check_against_dop853(kernel, seed):
    ne, nt = 12, 600
    v, out = run(kernel, {"NE": ne, "NT": nt}, seed)
    y0, mu, h = v["y"], v["mu"], float(v["h"])
    for m in range(ne):
        sol = solve_ivp(lambda t, s: _f(mu[m], s[0], s[1]), (0.0, nt * h), y0[m],
                        method="DOP853", rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out["y"][m], sol.y[:, -1], rtol=1e-6, atol=1e-6)
    assert np.abs(out["y"]).max() < 10.0                        # bounded
    assert np.abs(out["y"] - y0).max() > 0.5                     # the states moved

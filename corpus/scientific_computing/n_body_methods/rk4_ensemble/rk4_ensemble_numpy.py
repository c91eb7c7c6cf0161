"""rk4_ensemble: NE independent van der Pol oscillators x'' - mu (1 - x^2) x' + x = 0, each with
its own damping parameter mu, integrated NT steps of the classical fourth-order Runge-Kutta
method with a fixed step h. The state (x, v = x') of every member is advanced together, one
time step at a time."""

import numpy as np


def initialize(rng, NE, NT):
    # Starting points in [-2, 2]^2, mu in [0.5, 2.5], h = 0.01: every trajectory is drawn
    # towards its member's limit cycle (amplitude about 2) and stays bounded; a planar
    # autonomous system is not chaotic, so rounding differences are not amplified.
    return {
        "y": rng.uniform(-2.0, 2.0, (NE, 2)),
        "mu": rng.uniform(0.5, 2.5, NE),
        "h": 0.01,
    }


def rk4_ensemble(y, mu, h, NE, NT):
    # y[m, 0] = x, y[m, 1] = v of member m: f(x, v) = (v, mu (1 - x^2) v - x).
    x = np.empty((NE,), dtype=np.float64)
    v = np.empty((NE,), dtype=np.float64)
    xs = np.empty((NE,), dtype=np.float64)
    vs = np.empty((NE,), dtype=np.float64)
    k1x = np.empty((NE,), dtype=np.float64)
    k1v = np.empty((NE,), dtype=np.float64)
    k2x = np.empty((NE,), dtype=np.float64)
    k2v = np.empty((NE,), dtype=np.float64)
    k3x = np.empty((NE,), dtype=np.float64)
    k3v = np.empty((NE,), dtype=np.float64)
    k4x = np.empty((NE,), dtype=np.float64)
    k4v = np.empty((NE,), dtype=np.float64)
    x[:] = y[:, 0]
    v[:] = y[:, 1]
    for t in range(NT):
        # k1 = f(y)
        k1x[:] = v
        k1v[:] = mu * (1.0 - x * x) * v - x
        # k2 = f(y + h/2 k1)
        xs[:] = x + (0.5 * h) * k1x
        vs[:] = v + (0.5 * h) * k1v
        k2x[:] = vs
        k2v[:] = mu * (1.0 - xs * xs) * vs - xs
        # k3 = f(y + h/2 k2)
        xs[:] = x + (0.5 * h) * k2x
        vs[:] = v + (0.5 * h) * k2v
        k3x[:] = vs
        k3v[:] = mu * (1.0 - xs * xs) * vs - xs
        # k4 = f(y + h k3)
        xs[:] = x + h * k3x
        vs[:] = v + h * k3v
        k4x[:] = vs
        k4v[:] = mu * (1.0 - xs * xs) * vs - xs
        # y += h/6 (k1 + 2 k2 + 2 k3 + k4)
        x[:] = x + (h / 6.0) * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        v[:] = v + (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
    y[:, 0] = x
    y[:, 1] = v

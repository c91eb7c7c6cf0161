"""arc_distance: great-circle distances on the unit sphere between N pairs of points
(longitude theta, latitude phi), by the haversine formula:
t = sin^2((phi_2 - phi_1) / 2) + cos(phi_1) cos(phi_2) sin^2((theta_2 - theta_1) / 2),
d = 2 arctan2(sqrt(t), sqrt(1 - t)) (NPBench arc_distance, after the Pythran benchmark)."""

import numpy as np


def initialize(rng, N):
    # Latitudes in [-1, 1] rad and longitude differences of 0.3 to 2 rad either way: then
    # 0.006 < t < 0.92, away from coincident (t = 0) and antipodal (t = 1) pairs, where the
    # formula loses accuracy.
    theta_1 = rng.uniform(-np.pi, np.pi, N)
    dtheta = rng.uniform(0.3, 2.0, N) * rng.choice([-1.0, 1.0], N)
    return {
        "theta_1": theta_1,
        "phi_1": rng.uniform(-1.0, 1.0, N),
        "theta_2": theta_1 + dtheta,
        "phi_2": rng.uniform(-1.0, 1.0, N),
    }


def arc_distance(theta_1, phi_1, theta_2, phi_2, distance, N):
    t = np.empty((N,), dtype=np.float64)
    t[:] = (np.sin((phi_2 - phi_1) / 2.0) ** 2
            + np.cos(phi_1) * np.cos(phi_2) * np.sin((theta_2 - theta_1) / 2.0) ** 2)
    distance[:] = 2.0 * np.arctan2(np.sqrt(t), np.sqrt(1.0 - t))

"""arc_distance's independent check: the haversine formula pair by pair with Python's math
module (math.atan2), and the same central angle another way, from the two points' unit
vectors p, q on the sphere: atan2(|p x q|, p . q) (well conditioned at every distance)."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(n=[1, 2, 17, 1000], seed=SEEDS)
def check_against_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    expected = []
    for i in range(n):
        th1, ph1 = float(v["theta_1"][i]), float(v["phi_1"][i])
        th2, ph2 = float(v["theta_2"][i]), float(v["phi_2"][i])
        t = math.sin((ph2 - ph1) / 2) ** 2 + math.cos(ph1) * math.cos(ph2) * math.sin((th2 - th1) / 2) ** 2
        assert 0.005 < t < 0.95                      # well conditioned, as the initializer promises
        expected.append(2.0 * math.atan2(math.sqrt(t), math.sqrt(1.0 - t)))
    np.testing.assert_allclose(out["distance"], expected, rtol=1e-12, atol=1e-14)
    if n > 1:
        assert_judged_like_an_oracle(kernel, out, {"distance": np.array(expected)})


@each(n=[3, 5000], seed=SEEDS)
def check_against_vectors(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)

    def unit(theta, phi):
        return np.stack([np.cos(phi) * np.cos(theta), np.cos(phi) * np.sin(theta), np.sin(phi)], axis=1)

    p, q = unit(v["theta_1"], v["phi_1"]), unit(v["theta_2"], v["phi_2"])
    angle = np.arctan2(np.linalg.norm(np.cross(p, q), axis=1), np.sum(p * q, axis=1))
    np.testing.assert_allclose(out["distance"], angle, rtol=1e-12, atol=1e-14)
    assert 0.1 < out["distance"].min() and out["distance"].max() < 2.7
    assert_judged_like_an_oracle(kernel, out, {"distance": angle})

"""nbody's independent check: the same integrator with the forces written as einsum contractions
over all pairs."""

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


@each(seed=SEEDS)
def check_against_einsum_forces(kernel, seed):
    n, steps = 23, 3
    v, out = run(kernel, {"N": n, "NSTEPS": steps}, seed)
    pos, vel, m = v["pos"].copy(), v["vel"].copy(), v["mass"]
    dt, eps = float(v["dt"]), float(v["eps"])
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]                  # d[i, j] = x_j - x_i
        r2 = np.einsum("ijk,ijk->ij", d, d) + eps * eps
        acc = np.einsum("ij,ijk->ik", m[None, :] * r2 ** -1.5, d)
        vel += dt * acc
        pos += dt * vel
    np.testing.assert_allclose(out["pos"], pos, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["vel"], vel, rtol=1e-12, atol=1e-13)
    assert np.abs(out["vel"] - v["vel"]).max() > 1e-3    # the forces matter
    assert_judged_like_an_oracle(kernel, out, {"pos": pos, "vel": vel})

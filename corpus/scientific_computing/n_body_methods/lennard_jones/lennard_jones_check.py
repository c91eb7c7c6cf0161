"""lennard_jones's independent check: a loop over unordered pairs i < j with the minimum image
taken by comparing against half the box, each pair's force added to i and subtracted from j
(Newton's third law), sums exactly rounded by math.fsum; and the momentum identity (the
forces of a periodic pair potential sum to zero)."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _pair_loops(pos, box, rc):
    n = len(pos)
    terms = [[[] for _ in range(3)] for _ in range(n)]
    energy = []
    for i in range(n):
        for j in range(i + 1, n):
            d = []
            for k in range(3):
                s = pos[i][k] - pos[j][k]
                if s > 0.5 * box:
                    s -= box
                elif s < -0.5 * box:
                    s += box
                d.append(s)
            r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
            if r2 < rc * rc:
                inv6 = 1.0 / r2 ** 3
                energy.append(4.0 * (inv6 * inv6 - inv6))
                f = 24.0 * (2.0 * inv6 * inv6 - inv6) / r2
                for k in range(3):
                    terms[i][k].append(f * d[k])
                    terms[j][k].append(-f * d[k])
    force = np.array([[math.fsum(terms[i][k]) for k in range(3)] for i in range(n)]).reshape(n, 3)
    return force, math.fsum(energy)


@each(n=[1, 2, 7, 27, 64, 130], seed=SEEDS)
def check_against_pair_loops(kernel, n, seed):
    v, out = run(kernel, {"N": n}, seed)
    pos, box, rc = v["pos"], float(v["box"]), float(v["rc"])
    assert 0.0 < rc < 0.5 * box and pos.min() >= 0.0 and pos.max() < box
    force, energy = _pair_loops(pos.tolist(), box, rc)
    scale = max(1.0, float(np.abs(force).max()))
    np.testing.assert_allclose(out["force"], force, rtol=1e-11, atol=1e-12 * scale)
    np.testing.assert_allclose(out["energy"], energy, rtol=1e-11, atol=1e-12 * n)
    # Momentum: the pair forces cancel in total.
    np.testing.assert_allclose(out["force"].sum(axis=0), 0.0, atol=1e-10 * scale * n)
    if n >= 27:                                                # rc reaches the second shell
        assert np.abs(force).max() > 1.0 and energy < 0.0      # a liquid-like, bound state
    if n >= 7:
        assert_judged_like_an_oracle(kernel, out, {"force": force, "energy": np.float64(energy)})

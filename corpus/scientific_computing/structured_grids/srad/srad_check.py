"""srad's independent check: Rodinia's pixel loop written in plain Python (clamped neighbour
index tables, the statistics by math.fsum), at small and degenerate images; and the
conservation the divergence form implies (each coefficient-weighted difference leaves one
pixel and enters its neighbour, so the image's sum does not change)."""

import math

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _loops(J0, lam, NITER, R, C):
    J = J0.tolist()
    iN = [max(i - 1, 0) for i in range(R)]
    iS = [min(i + 1, R - 1) for i in range(R)]
    jW = [max(j - 1, 0) for j in range(C)]
    jE = [min(j + 1, C - 1) for j in range(C)]
    for _ in range(NITER):
        flat = [J[i][j] for i in range(R) for j in range(C)]
        mean = math.fsum(flat) / (R * C)
        var = math.fsum(x * x for x in flat) / (R * C) - mean * mean
        q0 = var / (mean * mean)
        d = {}
        c = [[0.0] * C for _ in range(R)]
        for i in range(R):
            for j in range(C):
                jc = J[i][j]
                n, s = J[iN[i]][j] - jc, J[iS[i]][j] - jc
                w, e = J[i][jW[j]] - jc, J[i][jE[j]] - jc
                d[i, j] = (n, s, w, e)
                g2 = (n * n + s * s + w * w + e * e) / (jc * jc)
                lap = (n + s + w + e) / jc
                num = 0.5 * g2 - (1.0 / 16.0) * lap * lap
                den = 1.0 + 0.25 * lap
                q = num / (den * den)
                cc = 1.0 / (1.0 + (q - q0) / (q0 * (1.0 + q0)))
                c[i][j] = min(max(cc, 0.0), 1.0)
        for i in range(R):
            for j in range(C):
                n, s, w, e = d[i, j]
                D = c[i][j] * n + c[iS[i]][j] * s + c[i][j] * w + c[i][jE[j]] * e
                J[i][j] = J[i][j] + 0.25 * lam * D
    return np.array(J)


@each(sizes=[(1, 1, 2), (3, 1, 9), (2, 7, 1), (1, 2, 2), (4, 5, 8), (6, 17, 13), (3, 40, 31)], seed=SEEDS)
def check_against_pixel_loops(kernel, sizes, seed):
    NITER, R, C = sizes
    v, out = run(kernel, {"NITER": NITER, "ROWS": R, "COLS": C}, seed)
    expected = _loops(v["J"], float(v["lam"]), NITER, R, C)
    np.testing.assert_allclose(out["J"], expected, rtol=1e-11, atol=1e-12)
    assert math.isclose(math.fsum(out["J"].ravel()), math.fsum(v["J"].ravel()), rel_tol=1e-12)
    if R * C > 4:
        assert np.abs(out["J"] - v["J"]).max() > 1e-3           # informative: it diffused
        assert_judged_like_an_oracle(kernel, out, {"J": expected})


@each(seed=SEEDS)
def check_conserves_sum_and_smooths(kernel, seed):
    v, out = run(kernel, {"NITER": 30, "ROWS": 96, "COLS": 80}, seed)
    assert math.isclose(math.fsum(out["J"].ravel()), math.fsum(v["J"].ravel()), rel_tol=1e-12)
    assert out["J"].min() > 0.0
    # Speckle removed: the pixel-to-pixel differences shrink.
    assert np.abs(np.diff(out["J"], axis=1)).mean() < 0.7 * np.abs(np.diff(v["J"], axis=1)).mean()
